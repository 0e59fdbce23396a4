"""Loading and validating rules files."""
from __future__ import annotations

from pathlib import Path

import pytest

from clutrr.core.kb import KBError, load_kb, parse_kb

REPO = Path(__file__).resolve().parents[1]


def test_default_kb_has_22_words_and_sound_rules(kb):
    assert kb.sound
    assert len(kb.words) == 22 and len(set(kb.words)) == 22
    assert {"son", "daughter", "niece", "aunt", "sister-in-law"} <= set(kb.words)
    child, parent = kb.index["child"], kb.index["parent"]
    assert kb.compose(child, kb.index["child"]) == kb.index["grandchild"]
    # a daughter's grandfather may be a father or a father-in-law: no rule
    assert kb.compose(child, kb.index["grandparent"]) == -1
    # a son's aunt may be a sister or a sister-in-law: no rule
    assert kb.compose(child, kb.index["pibling"]) == -1
    assert kb.predicates[child].inverse == parent


def test_clutrr_v1_is_marked_unsound_and_keeps_its_table():
    v1 = load_kb("clutrr_v1")
    assert not v1.sound
    assert len(v1.rules) == 16
    assert v1.compose(v1.index["child"], v1.index["inv-grand"]) == v1.index["inv-child"]
    assert v1.parse_word("neice") == v1.parse_word("niece")


def _base() -> str:
    return (REPO / "kb_rules" / "kinship.yaml").read_text()


def _load(tmp_path: Path, text: str):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    load_kb.cache_clear()
    return load_kb(str(path))


def test_unknown_predicate_names_file_and_rule(tmp_path):
    text = _base().replace("  - child . child -> grandchild", "  - child . cousin -> grandchild")
    with pytest.raises(KBError) as err:
        _load(tmp_path, text)
    msg = str(err.value)
    assert "bad.yaml:" in msg and "cousin" in msg and "child . cousin -> grandchild" in msg


def test_conflicting_rules_are_an_error(tmp_path):
    text = _base() + "  - child . child -> sibling\n"
    with pytest.raises(KBError, match=r"bad\.yaml:\d+: rule 'child \. child -> sibling' conflicts with 'child \. child -> grandchild'"):
        _load(tmp_path, text)


def test_missing_gender_word_is_an_error(tmp_path):
    text = _base().replace("words: {male: uncle, female: aunt}", "words: {male: uncle}")
    with pytest.raises(KBError, match=r"bad\.yaml: predicate 'pibling' has no female word"):
        _load(tmp_path, text)


def test_duplicate_predicate_key_is_an_error():
    text = "name: x\npredicates:\n  a: {words: {male: m, female: f}, symmetric: true}\n  a: {words: {male: m2, female: f2}, symmetric: true}\nrules: []\n"
    with pytest.raises(KBError, match="duplicate key 'a'"):
        parse_kb(text, "dup.yaml")


def test_malformed_rule_is_an_error():
    text = "name: x\npredicates:\n  a: {words: {male: m, female: f}, symmetric: true}\nrules:\n  - a then a\n"
    with pytest.raises(KBError, match=r"x?.*:5: rule 'a then a' is not of the form"):
        parse_kb(text, "mal.yaml")


def test_an_unknown_kb_name_lists_the_built_in_ones():
    with pytest.raises(KBError, match=r"unknown KB 'bogus' \(built-in KBs: kinship, kinship-blood, clutrr_v1"):
        load_kb("bogus")
    with pytest.raises(KBError, match=r"cannot read rules file \(No such file or directory; built-in KBs: kinship,"):
        load_kb("no/such/rules.yaml")


def test_a_yaml_syntax_error_names_its_line(tmp_path):
    text = _base().replace("name: kinship\n", "name: kinship\n  oops: [\n")
    line = text.splitlines().index("  oops: [") + 1
    with pytest.raises(KBError, match=rf"bad\.yaml:{line}: not valid YAML \("):
        _load(tmp_path, text)


def test_a_template_bank_yaml_error_names_its_line(tmp_path):
    from clutrr.render.bank_files import load_bank

    bank = tmp_path / "bank.yaml"
    bank.write_text("- clause: son\n  any: [\"{B} is {A}'s son.\"]\n- clause: daughter\n  any: x: y\n")
    with pytest.raises(ValueError, match=r"bank\.yaml:4: not valid YAML \(mapping values") as err:
        load_bank(str(bank))
    assert "\n" not in str(err.value)


def test_kinship_blood_is_built_in_and_sound():
    blood = load_kb("kinship-blood")
    assert blood.sound and blood.words == load_kb("kinship").words
    assert blood.predicates[blood.index["pibling"]].definition == "parent . sibling"
