"""Question forms (--question, docs/questions.md): every answer of a generated row is proved
again here from the row's stated facts alone (the closure of its edges under the KB, computed
by this test, not by clutrr.questions), and it is the family's truth among the story's people."""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clutrr.core.entailment import story_closure
from clutrr.core.family import FamilyConfig
from clutrr.core.kb import GENDERS, load_kb
from clutrr.core.noise import NOISE_KINDS
from clutrr.story.generator import GeneratorConfig, make_example
from helpers import REPO, generated_folder, run_generate

KB = load_kb("kinship")
FORMS = ("relation", "person", "people", "count", "yesno")


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    return generated_folder(tmp_path_factory, "mixed", "--question", "mixed", "--k", "2,3", "--test-k", "2,6",
                            "--train-rows", "100", "--test-rows", "50", "--noise", "all",
                            "--format", "csv,jsonl,parquet")


def _records(folder):
    return [json.loads(line) for f in sorted(folder.glob("*.jsonl")) for line in f.read_text().splitlines()]


def _closure(rec):
    return story_closure(KB, [(e["head"], KB.index[e["predicate"]], e["tail"]) for e in rec["edges"]])


def _holders(closure, rec, x, word):
    """The story people the facts make x's ``word``."""
    pred, g = KB.parse_word(word)
    return [b for b, p in enumerate(rec["people"])
            if b != x and p["gender"] == GENDERS[g] and closure.get((x, b), 0) >> pred & 1]


def check_answer(rec):
    """Assert that the row's answer is what its facts prove."""
    closure, names = _closure(rec), [p["name"] for p in rec["people"]]
    form, query, word, answer = rec["form"], rec["query"], rec["target"], rec["answer"]
    x = query[0]
    if form == "relation":
        a, b = query
        assert closure[a, b] == 1 << KB.parse_word(word)[0] and answer == word
        return
    assert len(query) == (2 if form == "yesno" else 1)
    held = _holders(closure, rec, x, word)
    if form == "person":
        assert [names[b] for b in held] == [answer]
    elif form == "people":
        assert held and sorted(names[b] for b in held) == sorted(answer)
    elif form == "count":
        assert answer == len(held)
        if answer == 0:  # someone else holds every place: each other person of the word's gender is placed
            g = GENDERS[KB.parse_word(word)[1]]
            others = [b for b, p in enumerate(rec["people"]) if b != x and p["gender"] == g]
            assert others and all(closure.get((x, b), 0) for b in others)
    else:
        y = query[1]
        assert rec["people"][y]["gender"] == GENDERS[KB.parse_word(word)[1]]
        held_xy = closure.get((x, y), 0)
        pred = KB.parse_word(word)[0]
        assert answer == ("yes" if held_xy >> pred & 1 else "no") and held_xy  # "no": another relation entailed
    assert names[x] in rec["question"]


def test_every_answer_of_every_form_is_proved_from_the_facts(mixed):
    records = _records(mixed)
    assert len(records) == 200 + 100
    for rec in records:
        check_answer(rec)
    forms = Counter(r["form"] for r in records)
    assert forms == dict.fromkeys(FORMS, 60)  # equal shares (each block of five rows asks each form once)
    assert Counter(r["answer"] for r in records if r["form"] == "yesno") == {"yes": 30, "no": 30}
    assert {type(r["answer"]) for r in records if r["form"] == "count"} == {int}
    assert any(len(r["answer"]) > 1 for r in records if r["form"] == "people")


@pytest.mark.parametrize("form", FORMS[1:])
def test_entailed_sets_are_the_true_sets_among_the_story_people(form):
    config = GeneratorConfig(question=form)
    for noise in NOISE_KINDS:
        for i in range(12):
            ex = make_example(config, 3, noise, 5, i, "test")
            check_answer(ex.record)
            q = ex.question
            pred, g = KB.parse_word(q.target)
            x = q.query[0]
            truly = [b for b, p in enumerate(ex.people)
                     if b != x and ex.genders[b] == g and ex.family.holds(ex.people[x], pred, p)]
            if form == "yesno":
                assert (q.query[1] in truly) == (q.answer == "yes")
            else:
                assert truly == _holders(_closure(ex.record), ex.record, x, q.target)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), index=st.integers(0, 10**5), k=st.integers(1, 6),
       noise=st.sampled_from(NOISE_KINDS), generations=st.integers(3, 4), max_children=st.integers(2, 4),
       p_marry=st.floats(0.5, 1.0))
def test_person_answers_are_unique_in_random_families(seed, index, k, noise, generations, max_children, p_marry):
    if noise in ("supporting", "all") and k < 3:
        k = 3
    family = FamilyConfig(generations=generations, max_children=max_children, p_marry=p_marry)
    ex = make_example(GeneratorConfig(family=family, question="person"), k, noise, seed, index, "test")
    rec = ex.record
    pred, g = KB.parse_word(rec["target"])
    x = rec["query"][0]
    held = _holders(_closure(rec), rec, x, rec["target"])
    truly = [b for b, p in enumerate(ex.people)
             if b != x and ex.genders[b] == g and ex.family.holds(ex.people[x], pred, p)]
    assert len(held) == 1 and truly == held and rec["people"][held[0]]["name"] == rec["answer"]


def test_yes_and_no_alternate_in_pairs_of_rows():
    config = GeneratorConfig(question="yesno")
    answers = [make_example(config, 2, "none", 8, i, "test").question.answer for i in range(20)]
    assert all({answers[2 * j], answers[2 * j + 1]} == {"yes", "no"} for j in range(10))
    assert answers[::2] != ["yes"] * 10 and answers[::2] != ["no"] * 10  # which one comes first is seeded


def test_a_default_config_json_does_not_name_the_question(tmp_path):
    for name, extra in (("plain", ()), ("person", ("--question", "person"))):
        res = run_generate("--k", "2", "--test-k", "2", "--train-rows", "5", "--test-rows", "5", *extra,
                           "--out", str(tmp_path / name))
        assert res.returncode == 0, res.stderr
    plain = json.loads((tmp_path / "plain" / "config.json").read_text())
    person = json.loads((tmp_path / "person" / "config.json").read_text())
    assert "question" not in plain["spec"]["config"] and "question" not in plain["arguments"]
    assert "kinship" not in plain["arguments"]  # nor --kinship: a default run's config.json keeps its bytes
    assert person["spec"]["config"]["question"] == person["arguments"]["question"] == "person"


def test_the_relation_rows_of_a_mixed_file_are_the_default_stories():
    mixed, plain = GeneratorConfig(question="mixed"), GeneratorConfig()
    rows = [make_example(mixed, 4, "none", 1, i, "test") for i in range(10)]
    relation = [ex for ex in rows if ex.question.form == "relation"]
    assert len(relation) == 2
    for ex in relation:
        default = make_example(plain, 4, "none", 1, ex.index, "test").record
        assert {k: v for k, v in ex.record.items() if k not in ("form", "question", "answer")} == default


def test_parquet_answers_are_typed(mixed, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    table = pq.read_table(mixed / "5.6_test.parquet")
    answer = table.schema.field("answer").type
    assert str(answer) == ("struct<relation: string, person: string, people: list<element: string>, "
                           "count: int64, yesno: string>")
    jsonl = _records_of(mixed / "5.6_test.jsonl")
    for row, rec in zip(table.to_pylist(), jsonl):
        assert {f: v for f, v in row["answer"].items() if v is not None} == {rec["form"]: rec["answer"]}
    res = run_generate("--question", "count", "--k", "none", "--test-k", "3", "--test-rows", "20",
                       "--format", "parquet", "--out", str(tmp_path / "c"))
    assert res.returncode == 0, res.stderr
    table = pq.read_table(tmp_path / "c" / "1.3_test.parquet")
    assert str(table.schema.field("answer").type) == "int64"
    assert str(table.schema.field("form").type) == "string"


def _records_of(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_csv_adds_the_question_columns_and_keeps_the_chain_query(mixed):
    with open(mixed / "5.6_test.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    jsonl = _records_of(mixed / "5.6_test.jsonl")
    assert list(rows[0])[-5:] == ["form", "question", "answer", "form_query", "form_target"]
    for row, rec in zip(rows, jsonl):
        assert (row["form"], row["question"], json.loads(row["answer"]), json.loads(row["form_query"]),
                row["form_target"]) == (rec["form"], rec["question"], rec["answer"], rec["query"], rec["target"])
        assert row["f_comb"] == rec["pattern"]  # the original columns describe the story's chain


def _verify(*args):
    return subprocess.run([sys.executable, "-m", "clutrr.cli", "verify", *args], capture_output=True, text=True,
                          cwd=REPO)


def test_verify_proves_every_form_and_catches_a_wrong_answer(mixed, tmp_path):
    res = _verify(str(mixed))
    assert res.returncode == 0, res.stdout + res.stderr
    assert "uniquely entailed: 300/300" in res.stdout
    with open(mixed / "5.6_test.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    header = rows[0]
    col = {c: header.index(c) for c in ("form", "answer")}
    wrong = {}
    for i, row in enumerate(rows[1:], 1):
        form, answer = row[col["form"]], json.loads(row[col["answer"]])
        if form in wrong:
            continue
        if form == "count":
            row[col["answer"]] = json.dumps(answer + 1)
        elif form == "yesno":
            row[col["answer"]] = json.dumps("no" if answer == "yes" else "yes")
        elif form == "people":
            row[col["answer"]] = json.dumps(answer[:-1] or ["Nobody"])
        else:
            continue
        wrong[form] = i
    out = tmp_path / "tampered.csv"
    with open(out, "w", newline="") as fh:
        csv.writer(fh, lineterminator="\n").writerows(rows)
    res = _verify(str(out), "--show", "5")
    assert res.returncode == 1
    assert "uniquely entailed: 47/50" in res.stdout
    assert res.stdout.count("wrong: row") == 3


def test_forms_refuse_memory_queries_and_padding_in_one_line(tmp_path):
    for extra in (["--query", "memory"], ["--context-words", "500"]):
        res = run_generate("--question", "person", *extra, "--out", str(tmp_path / "x"))
        assert res.returncode == 2
        assert res.stderr.strip().count("\n") == 0 and "--question person goes with" in res.stderr
    res = run_generate("--question", "whom", "--out", str(tmp_path / "x"))
    assert res.returncode == 2 and "invalid choice: 'whom'" in res.stderr


def test_one_seed_fixes_every_byte_of_a_mixed_run(tmp_path):
    args = ["--question", "mixed", "--k", "2", "--test-k", "3", "--train-rows", "60", "--test-rows", "30",
            "--noise", "all", "--format", "csv,jsonl,parquet", "--seed", "4"]
    for name, workers in (("a", "1"), ("b", "2")):
        res = run_generate(*args, "--workers", workers, "--out", str(tmp_path / name))
        assert res.returncode == 0, res.stderr
    files = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert files == sorted(p.name for p in (tmp_path / "b").iterdir())
    for name in files:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_repeated_stories_are_replaced_with_their_questions_in_every_format(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    from clutrr.io.shards import logical_files
    from clutrr.pipeline.run import write_dataset
    from clutrr.pipeline.spec import DatasetSpec, RunOptions

    spec = DatasetSpec(train_k=(1,), test_k=(), train_rows=1500, seed=0,
                       config=GeneratorConfig(templates="synthetic", template_split=False, question="mixed"))
    formats = ("csv", "jsonl", "parquet")
    a = write_dataset(spec, tmp_path / "a", formats=formats, run=RunOptions(progress=False))
    write_dataset(spec, tmp_path / "b", formats=formats, rows_per_shard=400, run=RunOptions(workers=2, progress=False))
    assert a["checks"]["rows_replaced"] > 0
    records = _records(tmp_path / "a")
    assert len({r["story"] for r in records}) == len(records) == 1500
    for rec in records:
        check_answer(rec)
    table = pq.read_table(next((tmp_path / "a").glob("*.parquet")))
    assert [{f: v for f, v in row["answer"].items() if v is not None} for row in table.to_pylist()] == \
        [{r["form"]: r["answer"]} for r in records]
    for stem, parts in logical_files(tmp_path / "b", ".jsonl").items():
        assert "".join(p.read_text() for p in parts) == (tmp_path / "a" / f"{stem}.jsonl").read_text()


def test_show_prints_a_form_folders_questions(mixed):
    res = subprocess.run([sys.executable, "-m", "clutrr.cli", "show", str(mixed), "--file", "5.6_test", "-n", "50"],
                         capture_output=True, text=True, cwd=REPO)
    assert res.returncode == 0, res.stderr
    lines = [line for line in res.stdout.splitlines() if line.startswith("  ")]
    records = _records_of(mixed / "5.6_test.jsonl")
    assert len(lines) == len(records) == 50
    asked = {f"{r['question']} {', '.join(r['answer']) if isinstance(r['answer'], list) else r['answer']}  "
             f"({r['form']}; pattern {r['pattern']})" for r in records if r["form"] != "relation"}
    shown = {line.strip() for line in lines if "; pattern" in line}
    assert shown == asked and len(shown) == 40


def test_records_match_the_json_schema_of_their_question(mixed, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    from clutrr.io.schema import json_schema

    validator = jsonschema.Draft202012Validator(json_schema(question="mixed"))
    for rec in _records(mixed):
        validator.validate(rec)
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({**_records(mixed)[0], "answer": 1.5})
    res = run_generate("--question", "people", "--k", "none", "--test-k", "2", "--test-rows", "10",
                       "--out", str(tmp_path / "p"))
    assert res.returncode == 0, res.stderr
    people = jsonschema.Draft202012Validator(json_schema(question="people"))
    for rec in _records(tmp_path / "p"):
        people.validate(rec)
        with pytest.raises(jsonschema.ValidationError):
            people.validate({**rec, "answer": rec["answer"][0]})


def test_a_form_file_loads_typed_with_datasets(tmp_path):
    datasets = pytest.importorskip("datasets")
    from clutrr.io.schema import features

    res = run_generate("--question", "count", "--k", "none", "--test-k", "2", "--test-rows", "10",
                       "--out", str(tmp_path / "c"))
    assert res.returncode == 0, res.stderr
    ds = datasets.load_dataset("json", data_files=str(tmp_path / "c" / "1.2_test.jsonl"),
                               features=features(question="count"), split="train",
                               cache_dir=str(tmp_path / "cache"))
    assert ds.features["answer"].dtype == "int64" and len(ds) == 10
    assert ds["answer"] == [r["answer"] for r in _records(tmp_path / "c")]


def test_sets_and_counts_ask_only_words_held_twice():
    from clutrr.questions.pick import shared_words

    single = {"father", "mother", "husband", "wife", "father-in-law", "mother-in-law"}
    assert set(shared_words(KB)) == set(KB.words) - single
    for form in ("people", "count"):
        config = GeneratorConfig(question=form)
        asked = {make_example(config, 3, "all", 2, i, "test").question.target for i in range(40)}
        assert asked and not asked & single


def test_the_question_docs_samples_are_what_the_code_prints():
    """docs/questions.md's samples (as tests/test_docs_samples.py checks the other pages';
    ``CLUTRR_REGEN_DOCS=1`` rewrites them)."""
    from test_docs_samples import SAMPLE, run_code

    doc = REPO / "docs" / "questions.md"
    text = doc.read_text(encoding="utf-8")
    found = list(SAMPLE.finditer(text))
    assert [m.group("name") for m in found] == ["question-record", "question-forms", "question-eval"]
    printed = [run_code(m.group("code"), m.group("lang")) for m in found]
    if os.environ.get("CLUTRR_REGEN_DOCS"):
        for m, out in reversed(list(zip(found, printed))):
            text = text[: m.start("out")] + out + text[m.end("out"):]
        doc.write_text(text, encoding="utf-8")
        return
    for m, out in zip(found, printed):
        assert out == m.group("out"), f"docs/questions.md sample {m.group('name')!r} differs from a real run"
