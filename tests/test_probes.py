"""Probe sets (derangements, gender swap, renaming, shuffling) and permutation-acceptance metrics."""
from __future__ import annotations

import json
import random
import re
from collections import Counter

import numpy as np
import pytest

from clutrr.cli import main
from clutrr.core.records import split_f_comb
from clutrr.io.csv_format import COLUMNS, read_csv, row_fields
from clutrr.io.datadir import load_splits
from clutrr.story.generator import GeneratorConfig, make_example
from clutrr.core.kb import GENDERS, load_kb
from clutrr.diagnostics.permutation_metrics import (
    acceptance_shares, entropy_bits, group_by_story, omega_curve, permutation_acceptance,
)
from clutrr.diagnostics.probes import (
    derangement, entity_rename, gender_swap, make_probe, sentence_shuffle, source_id, split_sentences, word_permute,
)
from clutrr.diagnostics.verify import verify_row
from diag_rows import FIXTURES, make_row, write_csv

KB = load_kb("kinship")


def _fixture_rows():
    rows = [r for s in load_splits(FIXTURES) for r in s.rows]
    assert all(_entailed(r) for r in rows)
    return rows


def _entailed(row) -> bool:
    """Whether the KB derives exactly the row's target from its edges (clutrr verify)."""
    return verify_row(KB, dict(zip(COLUMNS, row_fields(row))))[0] == "entailed"


@pytest.mark.parametrize("n", range(2, 12))
def test_derangements_have_no_fixed_point(n):
    rng = random.Random(n)
    for _ in range(200):
        perm = derangement(n, rng)
        assert sorted(perm) == list(range(n))
        assert all(p != i for i, p in enumerate(perm))


def test_word_permute_derangements_are_seeded_and_move_every_word():
    for row in _fixture_rows():
        words = row.story.split()
        perms = word_permute(row, seed=4, q=3)
        assert [p.id for p in perms] == [f"{row.id}::perm{j}" for j in range(3)]
        for p in perms:
            new = p.story.split()
            assert Counter(new) == Counter(words)
            assert all(a != b for a, b in zip(new, words))  # no position keeps its word
            assert p.target == row.target and source_id(p.id) == row.id
        assert [p.story for p in word_permute(row, seed=4, q=3)] == [p.story for p in perms]
    stories = [p.story for r in _fixture_rows() for p in word_permute(r, seed=5, q=3)]
    assert stories != [p.story for r in _fixture_rows() for p in word_permute(r, seed=4, q=3)]


def test_sentence_shuffle_reorders_and_keeps_labels():
    for row in _fixture_rows():
        new = sentence_shuffle(row, seed=0)[0]
        assert sorted(split_sentences(new.story)) == sorted(split_sentences(row.story))
        assert new.story != row.story
        assert (new.target, new.query, new.id) == (row.target, row.query, row.id)


def test_permutation_rules_of_the_thesis():
    """Stories of 5 words or fewer are not permuted; a story without q distinct permutations is dropped."""
    five = make_row("five", ("Ann", "female"), ("Bob", "male"), "son", story="[Ann] hugged her son [Bob].")
    six = make_row("six", ("Ann", "female"), ("Bob", "male"), "son", story="[Ann] hugged her tall son [Bob].")
    assert word_permute(five, seed=0, q=3) == []
    assert len(word_permute(five, seed=0, q=3, min_words=5)) == 3  # the project's earlier rule kept it
    perms = [r.story for r in word_permute(six, seed=0, q=100)]  # 265 derangements of 6 distinct words
    assert len(perms) == len(set(perms)) == 100 and six.story not in perms
    # "a a a b b b": moving every word off a place holding the same word leaves one text only
    same = make_row("ab", ("Ann", "female"), ("Bob", "male"), "son", story="a a a b b b")
    assert [r.story for r in word_permute(same, seed=0, q=1)] == ["b b b a a a"]
    assert word_permute(same, seed=0, q=2) == []
    skipped = Counter()
    rows = make_probe("word-permute", [five, six, same], KB, q=2, skipped=skipped)
    assert [source_id(r.id) for r in rows] == ["six", "six"]
    assert skipped == {"under 6 words": 1, "with fewer distinct permutations than q": 1}


def test_sentence_shuffle_skips_stories_with_one_order(tmp_path, capsys):
    one = make_row("one", ("Ann", "female"), ("Bob", "male"), "son", story="[Ann] hugged her son [Bob].")
    twice = make_row("twice", ("Ann", "female"), ("Bob", "male"), "son", story="They met. They met.")
    assert sentence_shuffle(one, seed=0) == [] and sentence_shuffle(twice, seed=0) == []
    skipped = Counter()
    assert make_probe("sentence-shuffle", [one, twice], KB, skipped=skipped) == []
    assert skipped == {"with no other sentence order": 2}
    data = tmp_path / "data"
    data.mkdir()
    (data / "1.2_test.csv").write_text((FIXTURES / "1.2_test.csv").read_text())
    (data / "1.3_test.csv").write_text((FIXTURES / "1.3_test.csv").read_text())
    write_csv(data / "1.4_test.csv", [one, twice])
    assert main(["probe", str(data), "--kind", "sentence-shuffle", "--out", str(tmp_path / "p")]) == 0
    assert "1.4_test.csv: 2 of 2 stories skipped: 2 with no other sentence order" in capsys.readouterr().out
    meta = json.loads((tmp_path / "p" / "probe.json").read_text())
    assert meta["files"]["1.4_test.csv"] == {"stories": 2, "rows": 0, "skipped": {"with no other sentence order": 2}}
    assert main(["probe", str(data), "--kind", "word-permute", "--min-words", "1", "--out", str(tmp_path / "q")]) == 2


def test_gender_swap_relabels_by_the_kb():
    for row in _fixture_rows():
        new = gender_swap(row, seed=0, kb=KB)[0]
        pred, g = KB.parse_word(row.target)
        assert KB.parse_word(new.target) == (pred, 1 - g)
        assert [g for _, g in new.genders] == [GENDERS[1 - GENDERS.index(g)] for _, g in row.genders]
        assert not {n for n, _ in new.genders} & {n for n, _ in row.genders}
        assert _entailed(new)
        assert split_f_comb(new.f_comb) == new.edge_types
        for name, _ in new.genders:
            assert f"[{name}]" in new.story


def test_gender_swap_rewrites_text_consistently():
    row = make_row("g", ("Kate", "female"), ("Lena", "female"), "daughter",
                   story="[Kate] and her sister are sisters. She took her daughter [Lena] to her house; "
                         "[Lena] thanked her.")
    new = gender_swap(row, seed=1, kb=KB)[0]
    kate, lena = new.query
    assert new.story == (f"[{kate}] and his brother are brothers. He took his son [{lena}] to his house; "
                         f"[{lena}] thanked him.")
    assert new.target == "son"


def test_gender_swap_on_generated_stories_matches_the_chain():
    for i in range(30):
        row = make_example(GeneratorConfig(), 3, "none", 0, i, "test").row
        new = gender_swap(row, seed=0, kb=KB)[0]
        assert _entailed(new)
        assert not any(f"[{n}]" in new.story for n, _ in row.genders)


def test_entity_rename_keeps_genders_and_labels_and_avoids_names():
    rows = _fixture_rows()
    avoid = {"Liam", "Emma", "Olivia", "Noah"}
    for row in rows:
        new = entity_rename(row, seed=0, avoid=avoid)[0]
        assert [g for _, g in new.genders] == [g for _, g in row.genders]
        assert not {n for n, _ in new.genders} & ({n for n, _ in row.genders} | avoid)
        assert (new.target, new.f_comb, new.edge_types) == (row.target, row.f_comb, row.edge_types)
        assert _entailed(new)


def test_unknown_kind_is_a_usage_error(tmp_path, capsys):
    out = tmp_path / "probe"
    assert main(["probe", str(FIXTURES), "--kind", "mirror", "--out", str(out)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert not out.exists()
    assert main(["probe", str(tmp_path / "missing"), "--kind", "gender-swap", "--out", str(out)]) == 2
    assert not out.exists()


def test_cli_writes_probe_csvs_for_test_files(tmp_path):
    out = tmp_path / "probe"
    assert main(["probe", str(FIXTURES), "--kind", "word-permute", "--q", "2", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == [".clutrr-output.json", "1.2_test.csv", "1.3_test.csv", "probe.json"]
    rows = read_csv(out / "1.3_test.csv")
    assert len(rows) == 8
    again = make_probe("word-permute", read_csv(FIXTURES / "1.3_test.csv"), KB, seed=0, q=2)
    assert [r.story for r in rows] == [r.story for r in again]


def test_permutation_acceptance_by_hand():
    gold = ["son", "aunt", "wife", "niece"]
    original = ["son", "aunt", "son", "uncle"]
    permuted = [["son", "son", "aunt", "son"], ["uncle"] * 4, ["wife", "son", "son", "son"], ["uncle"] * 4]
    m = permutation_acceptance(gold, original, permuted, n_labels=4)
    assert m.omega_max == 0.5  # stories 0 and 2 have a gold-predicted permutation
    assert m.omega_rand == 0.25  # only story 0 beats 1/4 (3/4 > 1/4; story 2 has exactly 1/4)
    assert m.p_correct == pytest.approx((0.75 + 0.0) / 2)
    assert (m.originally_correct, m.originally_wrong, m.flipped) == (2, 2, 1)
    # P^f (the thesis): over D^f, the wrong stories with an accepted permutation: story 2 alone
    assert m.p_wrong == 1 / 4 and (m.accepted_wrong, m.permutations_flipped, m.q) == (1, 4, 4)
    # over every story wrong originally (stories 2 and 3): 1 of 8 permutations
    assert m.p_wrong_all == 1 / 8 and m.permutations_wrong == 8
    # a uniform guesser over 4 labels with q = 4: 1 - (3/4)^4; above 1/4 needs 2 or more of 4
    assert m.random_omega_max == pytest.approx(1 - (3 / 4) ** 4)
    assert m.random_omega_rand == pytest.approx(1 - (3 / 4) ** 4 - 4 * (1 / 4) * (3 / 4) ** 3)
    with pytest.raises(ValueError):
        permutation_acceptance(gold, original, permuted[:3], n_labels=4)


def test_omega_rand_needs_q_of_at_least_the_label_count():
    """With q < |labels| one accepted permutation is above chance: Omega_rand = Omega_max."""
    gold = ["son"] * 4
    few = [["son"] + ["aunt"] * 4, ["aunt"] * 5, ["son"] * 2 + ["aunt"] * 3, ["aunt"] * 5]  # q = 5
    m = permutation_acceptance(gold, gold, few, n_labels=22)
    assert m.omega_rand == m.omega_max == 0.5
    many = [["son"] + ["aunt"] * 99, ["aunt"] * 100, ["son"] * 30 + ["aunt"] * 70, ["aunt"] * 100]  # q = 100
    m = permutation_acceptance(gold, gold, many, n_labels=22)
    assert (m.omega_max, m.omega_rand, m.q) == (0.5, 0.25, 100)
    shares = acceptance_shares(gold, many)
    assert omega_curve(shares, [0.0, 0.2, 0.5]) == [(0.0, 0.5), (0.2, 0.25), (0.5, 0.0)]


def test_confidence_entropy():
    probs = np.array([[1.0, 0.0, 0.0, 0.0], [0.25] * 4, [0.5, 0.5, 0.0, 0.0]])
    assert entropy_bits(probs).tolist() == [0.0, 2.0, 1.0]


def test_probe_defaults_to_the_thesis_q(tmp_path, capsys):
    out = tmp_path / "probe"
    assert main(["probe", str(FIXTURES), "--kind", "word-permute", "--out", str(out)]) == 0
    meta = json.loads((out / "probe.json").read_text())
    assert meta["q"] == 100 and meta["files"]["1.3_test.csv"] == {"stories": 4, "rows": 400, "skipped": {}}
    assert meta["min_words"] == 6
    assert "Omega_rand will equal" not in capsys.readouterr().out
    assert main(["probe", str(FIXTURES), "--kind", "word-permute", "--q", "5", "--out", str(out), "--force"]) == 0
    assert "with q=5 < 22 labels" in capsys.readouterr().out


def test_group_by_story_uses_probe_ids():
    grouped = group_by_story(["a::perm0", "b::perm0", "a::perm1"], ["x", "y", "z"])
    assert grouped == {"a": ["x", "z"], "b": ["y"]}


def test_gender_swap_re_renders_generated_stories_through_their_slots(tmp_path, capsys):
    import yaml

    from clutrr.pipeline.run import write_dataset
    from clutrr.pipeline.spec import DatasetSpec

    ferry = "{A} waved at {A.his} brother {B}, the grumpy {B.ferryman|ferrywoman}."
    blocks = [{"clause": w, "any": [f"{{A}}'s {w} {{B}} waved."]} for w in KB.words if w != "brother"]
    blocks.append({"clause": "brother", "any": [ferry]})
    bank = tmp_path / "bank.yaml"
    bank.write_text(yaml.safe_dump(blocks))
    config = GeneratorConfig(templates=str(bank), template_split=False, fallback_templates="none")
    data = tmp_path / "data"
    write_dataset(DatasetSpec(train_k=(), test_k=(2,), test_rows=40, config=config), data, progress=False)
    assert main(["probe", str(data), "--kind", "gender-swap", "--out", str(tmp_path / "p")]) == 0
    assert "40 of 40 stories re-rendered through their templates" in capsys.readouterr().out
    before = {r.id: r for s in load_splits(data) for r in s.rows}
    after = [r for s in load_splits(tmp_path / "p") for r in s.rows]
    swapped = 0
    for row in after:
        old = before[row.id]
        m = re.search(r"waved at (his|her) brother \[\w+\], the grumpy ferryman\.", old.story)
        if m:
            swapped += 1
            flipped = {"his": "her", "her": "his"}[m.group(1)]
            assert re.search(rf"waved at {flipped} sister \[\w+\], the grumpy ferrywoman\.", row.story)
        assert _entailed(row)
    assert swapped
    # released data has no JSONL records: the text is rewritten word by word, and the probe says so
    for path in data.glob("*.jsonl"):
        path.unlink()
    assert main(["probe", str(data), "--kind", "gender-swap", "--out", str(tmp_path / "q")]) == 0
    assert "0 of 40 stories re-rendered" in capsys.readouterr().out
    rewritten = [r for s in load_splits(tmp_path / "q") for r in s.rows if "ferry" in before[r.id].story]
    assert rewritten and all("ferryman" in r.story or "ferrywoman" in before[r.id].story for r in rewritten)
