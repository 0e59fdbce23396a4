"""Question forms with a kinship system (``--question`` with ``--kinship``): a term may name both
sexes (*cousin*) or one predicate per speaker sex, answers are still proved from the story's facts
(``clutrr verify`` accepts every row), and ``kin_type`` and ``glossary`` follow the question."""
from __future__ import annotations

import json

import pytest

from clutrr.cli import main
from clutrr.core.kb import load_kb
from clutrr.diagnostics.verify import summarize, verify_file
from clutrr.kinship.derive import kinship_kb_path
from clutrr.kinship.terminology import load_terminology
from clutrr.questions.proofs import term_pairs


@pytest.fixture(scope="module")
def eskimo(tmp_path_factory):
    out = tmp_path_factory.mktemp("q") / "eskimo"
    assert main(["generate", "--kinship", "eskimo", "--question", "mixed", "--k", "2,3", "--test-k", "2,3",
                 "--train-rows", "60", "--test-rows", "60", "--quiet", "--out", str(out)]) == 0
    return out


def _records(folder):
    return [json.loads(line) for path in sorted(folder.glob("*.jsonl")) for line in path.open()]


def test_a_term_of_both_sexes_is_one_word_of_two_pairs():
    kb = load_kb(kinship_kb_path("eskimo"))
    pairs = term_pairs(kb)
    assert sorted(g for _, g in pairs["cousin"]) == [0, 1] and len({p for p, _ in pairs["cousin"]}) == 1
    assert [g for _, g in pairs["uncle"]] == [0]
    assert all(len(v) == 1 for w, v in term_pairs(load_kb("kinship")).items())  # the default KB: one pair a word


def test_every_form_is_asked_and_every_row_verifies(eskimo):
    kb = load_kb(kinship_kb_path("eskimo"))
    for path in sorted(eskimo.glob("*.csv")):
        counts = summarize(verify_file(kb, path))
        assert counts["entailed"] == sum(counts.values()) > 0, (path.name, counts)
    forms = {r["form"] for r in _records(eskimo)}
    assert forms == {"relation", "person", "people", "count", "yesno"}


def test_kin_type_and_glossary_follow_the_question(eskimo):
    terminology = load_terminology("eskimo")
    covered = {term: {kt.letters for kt in kts} for term, kts in terminology.terms.items()}
    records = [r for r in _records(eskimo) if r["form"] != "relation"]
    asked_both_sexes = set()
    for r in records:
        kin_types = r["kin_type"].split(",") if r["kin_type"] else []
        if r["form"] in ("person", "yesno"):
            assert len(kin_types) == 1
        elif r["form"] == "people":
            assert len(kin_types) == len(r["answer"])
        else:
            assert len(kin_types) == r["answer"]
        if r["form"] != "yesno" or r["answer"] == "yes":  # the people the answer names hold the term
            assert all(kt in covered[r["target"]] for kt in kin_types), r
            if r["target"] == "cousin":
                asked_both_sexes.update(kt[-1] for kt in kin_types)
        else:
            assert all(kt not in covered[r["target"]] for kt in kin_types), r
        assert any(line.startswith(f"X's {r['target']} is ") for line in r["glossary"])
    assert asked_both_sexes == {"S", "D"}  # cousins of both sexes answer one question word


def test_eval_asks_the_forms_with_the_glossary_unless_told_not_to(eskimo):
    from clutrr.eval.forms import load_form_golds
    from clutrr.llm.prompts import GLOSSARY_HEAD

    golds = load_form_golds(eskimo)
    assert golds and all(GLOSSARY_HEAD in g.question for g in golds)
    assert not any(GLOSSARY_HEAD in g.question for g in load_form_golds(eskimo, glossary=False))
