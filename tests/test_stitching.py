"""Stitching: covers of a fact path by templates, the fallback to smaller pieces, and whole stories."""
from __future__ import annotations

import random
import re
from collections import Counter

import pytest
import yaml

from clutrr.story.generator import GeneratorConfig, banks, make_example
from clutrr.core.kb import load_kb
from clutrr.core.noise import NOISE_KINDS
from clutrr.render.stitching import NoCoverError, render_path, sample_cover
from clutrr.render.bank_files import load_bank
from clutrr.render.templates import Bank, Template, template_id

KB = load_kb("kinship")
LETTERS = "ABCD"


def _template(clause: tuple[str, ...], gender: str = "any") -> Template:
    text = " ".join(f"{{{LETTERS[i]}}} -{w}-" for i, w in enumerate(clause)) + f" {{{LETTERS[len(clause)]}}}."
    return Template(template_id(clause, gender, text), clause, gender, text, "test")


def _bank(*extra: tuple[tuple[str, ...], str], words: list[str] | None = None) -> Bank:
    ones = [_template((w,)) for w in (KB.words if words is None else words)]
    return Bank(ones + [_template(c, g) for c, g in extra])


def _covers(bank: Bank, words: list[str], heads: list[str], max_piece: int = 3, n: int = 400) -> Counter:
    rng = random.Random(0)
    return Counter(tuple(sample_cover(bank, words, heads, max_piece, rng)) for _ in range(n))


def test_covers_are_drawn_in_proportion_to_the_product_of_piece_lengths():
    words = ["brother", "son", "brother"]
    bank = _bank((("brother", "son"), "any"), (("son", "brother"), "any"), (("brother", "son", "brother"), "any"))
    counts = _covers(bank, words, ["female", "male", "male"], n=4000)
    # weights 1, 2, 2, 3 of 8: expected 500, 1000, 1000, 1500
    expected = {(1, 1, 1): 500, (2, 1): 1000, (1, 2): 1000, (3,): 1500}
    assert set(counts) == set(expected)
    assert all(abs(counts[c] - e) < 120 for c, e in expected.items()), counts


def test_falls_back_to_smaller_pieces_when_a_longer_clause_has_no_template():
    bank = _bank((("brother", "son"), "male"))
    words = ["brother", "son", "aunt"]
    # the 2-fact template needs a male first person
    assert set(_covers(bank, words, ["female", "male", "male"])) == {(1, 1, 1)}
    assert set(_covers(bank, words, ["male", "male", "male"])) == {(1, 1, 1), (2, 1)}
    # no template covers "son-aunt" or any 3 facts: never a piece that would drop one
    bank3 = _bank((("brother", "son", "aunt"), "any"))
    assert set(_covers(bank3, words, ["male", "male", "male"], max_piece=2)) == {(1, 1, 1)}
    assert set(_covers(bank3, words, ["male", "male", "male"], max_piece=3)) == {(1, 1, 1), (3,)}


def test_a_word_without_a_one_fact_template_is_an_error_not_a_dropped_fact():
    bank = _bank((("brother", "son"), "any"), words=[w for w in KB.words if w != "aunt"])
    with pytest.raises(NoCoverError, match="aunt"):
        sample_cover(bank, ["brother", "aunt"], ["male", "male"], 3, random.Random(0))


def test_random_covers_never_drop_a_fact():
    rng = random.Random(7)
    for _ in range(200):
        n = rng.randint(1, 12)
        words = [rng.choice(KB.words) for _ in range(n)]
        heads = [rng.choice(("male", "female")) for _ in range(n)]
        extra = []
        for _ in range(rng.randint(0, 6)):
            i, length = rng.randrange(n), rng.randint(2, 3)
            if i + length <= n:
                extra.append((tuple(words[i:i + length]), rng.choice(("any", "male", "female"))))
        bank = _bank(*extra)
        lengths = sample_cover(bank, words, heads, rng.randint(1, 3), rng)
        assert sum(lengths) == n
        i = 0
        for length in lengths:
            assert bank.choices(tuple(words[i:i + length]), heads[i])
            i += length


def test_render_path_fills_every_entity_in_fact_order():
    bank = _bank((("brother", "son"), "any"))
    names = ["Ann", "Bob", "Cy", "Dan"]
    genders = [1, 0, 0, 0]
    pieces = render_path(bank, [4, 5, 6], [0, 1, 2, 3], ["brother", "son", "brother"], names, genders,
                         random.Random(1), max_piece=2, brackets=True)
    assert [f for p in pieces for f in p.facts] == [4, 5, 6]
    joined = " ".join(p.text for p in pieces)
    assert "{" not in joined and all(f"[{n}]" in joined for n in names)
    assert "[Ann] -brother- [Bob]" in joined and "[Cy] -brother- [Dan]" in joined
    plain = render_path(bank, [0], [0, 1], ["brother"], names, genders, random.Random(1), brackets=False)
    assert plain[0].text == "Ann -brother- Bob."


def _path_of(edge: int, k: int, noise_paths: list) -> int:
    """Which path an edge belongs to: 0 for the chain, i for the i-th noise path."""
    if edge < k:
        return 0
    start = k
    for i, (_, facts) in enumerate(noise_paths, 1):
        if edge < start + len(facts):
            return i
        start += len(facts)
    raise AssertionError(f"edge {edge} is on no path")


@pytest.mark.parametrize("noise", NOISE_KINDS)
def test_stories_cover_every_fact_once_for_every_noise_type(noise):
    config = GeneratorConfig(templates="paraphrase")
    split_banks = banks(config, 0)
    noise_first = 0
    for k in range(1 if noise in ("none", "irrelevant", "disconnected") else 2, 13):
        for split in ("train", "test"):
            ex = make_example(config, k, noise, 0, k, split)
            rec = ex.record
            n_edges = len(rec["edges"])
            assert n_edges > k or noise == "none"
            covered = [e for p in rec["pieces"] for e in p["edges"]]
            assert sorted(covered) == list(range(n_edges)), "a fact was dropped or repeated"
            bank = split_banks[split]
            ids = {t.id: t for t in bank.templates()}
            for piece in rec["pieces"]:
                edges = piece["edges"]
                assert edges == list(range(edges[0], edges[0] + len(edges)))
                assert len({_path_of(e, k, ex.noise) for e in edges}) == 1, "a piece spans two paths"
                template = ids[piece["template"]]
                assert template.clause == tuple(rec["edges"][e]["relation"] for e in edges)
            assert rec["target_template"] in ids
            story, clean = ex.row.story, ex.row.clean_story
            assert not re.search(r"[{}]|ENT_", story)
            for person in rec["people"]:
                assert f"[{person['name']}]" in story
            chain_people = {rec["people"][i]["name"] for i in range(k + 1)}
            assert set(re.findall(r"\[([^\]]+)\]", clean)) == chain_people
            chain_pieces = [i for i, p in enumerate(rec["pieces"]) if p["edges"][0] < k]
            noise_first += bool(chain_pieces) and chain_pieces[0] > 0
    if noise != "none":
        assert noise_first > 0, "noise pieces never came before the chain"


def test_max_piece_one_gives_one_fact_pieces():
    ex = make_example(GeneratorConfig(templates="paraphrase", max_piece=1), 6, "all", 0, 2)
    assert all(len(p["edges"]) == 1 for p in ex.record["pieces"])
    longer = [make_example(GeneratorConfig(templates="paraphrase"), 6, "none", 0, i) for i in range(6)]
    assert any(len(p["edges"]) > 1 for ex in longer for p in ex.record["pieces"])


def test_no_brackets_option():
    ex = make_example(GeneratorConfig(templates="paraphrase", brackets=False), 3, "irrelevant", 0, 1)
    assert "[" not in ex.row.story
    assert all(p["name"] in ex.row.story for p in ex.record["people"])


def test_a_used_multi_fact_template_is_not_a_valid_piece_again():
    bank = _bank((("brother", "son"), "any"))
    pair = bank.choices(("brother", "son"), "male")[0]
    used = {pair.id}
    rng = random.Random(0)
    covers = {tuple(sample_cover(bank, ["brother", "son"], ["male", "male"], 3, rng, used)) for _ in range(50)}
    assert covers == {(1, 1)}


def test_no_template_twice_in_a_story_while_others_are_left():
    # two one-fact templates per word: a path repeating a word uses both before any repeats
    ones = [_template((w,)) for w in KB.words] + [
        Template(template_id((w,), "any", f"{{A}} ~{w}~ {{B}}."), (w,), "any", f"{{A}} ~{w}~ {{B}}.", "test")
        for w in KB.words]
    bank = Bank(ones)
    for seed in range(30):
        used: set[str] = set()
        pieces = render_path(bank, [0, 1], [0, 1, 2], ["brother", "brother"], ["a", "b", "c"], [0, 0, 0],
                             random.Random(seed), 3, True, used)
        pieces += render_path(bank, [2], [0, 3], ["brother"], ["a", "b", "c", "d"], [0, 0, 0, 0],
                              random.Random(seed), 3, True, used)
        ids = [p.template_id for p in pieces]
        assert len(set(ids[:2])) == 2 and len(used) == 2  # the third had to reuse one of two


def test_generated_stories_never_reuse_a_template_nor_use_a_flagged_one(tmp_path):
    places = ("home", "out", "west", "north", "south", "east")
    blocks = [{"clause": w, "any": [f"{{B}} is {{A}}'s {w} and went {p}." for p in places]} for w in KB.words]
    blocks[KB.words.index("son")]["any"].append("{B} is the father of {A}.")  # backwards: flagged, rule 5
    path = tmp_path / "bank.yaml"
    path.write_text(yaml.safe_dump(blocks))
    config = GeneratorConfig(templates=str(path), template_split=False, fallback_templates="none")
    every = {t.id: t.text for t in load_bank(str(path)).templates()}
    flagged = set(every) - {t.id for t in banks(config, 0)["train"].templates()}
    assert [every[i] for i in flagged] == ["{B} is the father of {A}."]
    sons = 0
    for i in range(60):
        rec = make_example(config, 6, "all", 0, i, "test").record
        ids = [p["template"] for p in rec["pieces"]]
        assert len(ids) == len(set(ids)) and not set(ids) & flagged
        sons += any(e["relation"] == "son" for e in rec["edges"])
    assert sons
