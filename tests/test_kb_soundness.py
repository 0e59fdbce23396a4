"""Both sound KBs against primitive genealogy: every rule holds, no sound rule is missing."""
from __future__ import annotations

import numpy as np
import pytest

from clutrr.core.genealogy import compose, relation_masks
from clutrr.core.kb import load_kb
from clutrr.diagnostics.worlds import kb_worlds

SOUND_KBS = ("kinship", "kinship-blood")


@pytest.fixture(scope="module", params=SOUND_KBS)
def sound_kb(request):
    return load_kb(request.param)


def _compose(m1: np.ndarray, m2: np.ndarray) -> np.ndarray:
    out = compose(m1, m2)
    np.fill_diagonal(out, False)
    return out


def test_every_rule_holds_and_no_deterministic_composition_is_missing(sound_kb):
    kb = sound_kb
    assert kb.sound
    n = len(kb.predicates)
    always = np.ones((n, n, n), dtype=bool)  # always[a, b, c]: every a.b instance is a c
    seen = np.zeros((n, n), dtype=bool)
    for masks, _ in kb_worlds(kb):
        for a in range(n):
            for b in range(n):
                inst = _compose(masks[a], masks[b])
                if not inst.any():
                    continue
                seen[a, b] = True
                for c in range(n):
                    if always[a, b, c] and (inst & ~masks[c]).any():
                        always[a, b, c] = False
    names = [p.name for p in kb.predicates]
    for (a, b), c in kb.rules.items():
        assert seen[a, b], f"rule {names[a]} . {names[b]} never applies"
        assert always[a, b, c], f"unsound rule {names[a]} . {names[b]} -> {names[c]}"
    missing = [(names[a], names[b], names[c]) for a in range(n) for b in range(n) for c in range(n)
               if seen[a, b] and always[a, b, c] and (a, b) not in kb.rules]
    assert missing == []
    assert seen.sum() > 100


def test_definitions_agree_with_inverse_and_symmetry_declarations(sound_kb):
    for masks, _ in kb_worlds(sound_kb):
        for p in sound_kb.predicates:
            assert np.array_equal(masks[p.index].T, masks[p.inverse])


def test_the_known_unsound_original_rules_fail_here(sound_kb):
    """daughter . grandfather is father or father-in-law; son . aunt is sister or sister-in-law."""
    kb = sound_kb
    child, gp, parent, pib = (kb.index[x] for x in ("child", "grandparent", "parent", "pibling"))
    found = {"father": False, "father-in-law": False, "sister": False, "sister-in-law": False}
    for masks, _ in kb_worlds(kb):
        inst = _compose(masks[child], masks[gp])
        found["father"] |= bool((inst & masks[parent]).any())
        found["father-in-law"] |= bool((inst & masks[kb.index["parent_in_law"]]).any())
        inst = _compose(masks[child], masks[pib])
        found["sister"] |= bool((inst & masks[kb.index["sibling"]]).any())
        found["sister-in-law"] |= bool((inst & masks[kb.index["sibling_in_law"]]).any())
    assert all(found.values()), found


def test_compose_is_the_boolean_relation_product():
    rng = np.random.default_rng(5)
    for n in (1, 7, 64, 130):  # 130 people are multiplied in row blocks
        a, b = rng.random((n, n)) < 0.05, rng.random((n, n)) < 0.05
        naive = np.array([[any(a[x, y] and b[y, z] for y in range(n)) for z in range(n)] for x in range(n)])
        assert np.array_equal(compose(a, b), naive)


def test_an_aunts_husband_is_an_uncle_only_in_the_default_kb():
    # 0, 1: grandparents; 2 (female) and 3: their children; 4: 2's husband; 5: 3's child, 6: 3's wife
    parent = np.zeros((7, 7), dtype=bool)
    spouse = np.zeros((7, 7), dtype=bool)
    for child, par in ((2, 0), (2, 1), (3, 0), (3, 1), (5, 3), (5, 6)):
        parent[child, par] = True
    for a, b in ((0, 1), (2, 4), (3, 6)):
        spouse[a, b] = spouse[b, a] = True
    for name, by_marriage in (("kinship", True), ("kinship-blood", False)):
        kb = load_kb(name)
        masks = relation_masks(kb, parent, spouse)
        pibling, nibling = kb.index["pibling"], kb.index["nibling"]
        assert masks[pibling, 5, 2]  # the parent's sister is an aunt in both readings
        assert masks[pibling, 5, 4] == by_marriage  # her husband
        assert masks[nibling, 4, 5] == by_marriage  # and, from his side, the child
        assert (kb.index["pibling"], kb.index["spouse"]) in kb.rules if by_marriage else \
            (kb.index["pibling"], kb.index["spouse"]) not in kb.rules


def test_generation_with_the_blood_kb_verifies_under_it(tmp_path, capsys):
    from clutrr.cli import main

    out = tmp_path / "blood"
    assert main(["generate", "--kb", "kinship-blood", "--k", "2,3", "--test-k", "3,4", "--train-rows", "22",
                 "--test-rows", "22", "--noise", "all", "--quiet", "--out", str(out)]) == 0
    config = (out / "config.json").read_text()
    assert '"kb": "kinship-blood"' in config
    capsys.readouterr()
    assert main(["verify", str(out), "--kb", "kinship-blood"]) == 0
    assert "uniquely entailed: 88/88 (100.0%)" in capsys.readouterr().out
