"""Flagged templates are dropped; their ids are cached on disk by content, outside the package."""
from __future__ import annotations

import json

from clutrr.render.templates import Template, template_id
from clutrr.render.usable import cache_dir, dropped_rules


def _t(text: str, clause: tuple[str, ...] = ("son",)) -> Template:
    return Template(template_id(clause, "any", text), clause, "any", text, "bank.yaml")


def test_flags_are_cached_by_content(tmp_path, monkeypatch):
    monkeypatch.setenv("CLUTRR_CACHE_DIR", str(tmp_path / "cache"))
    good, bad = _t("{B} is {A}'s son."), _t("{A} is {B}'s son.")
    assert cache_dir() == tmp_path / "cache"
    # backwards (rule 5), and "son" does not fit A when A is female (rule 6)
    assert dropped_rules([good, bad]) == {bad.id: ["5", "6"]}
    [cached] = (tmp_path / "cache").glob("flags-*.json")
    # the second call reads the cache (a sentinel written there comes back) ...
    cached.write_text(json.dumps({"sentinel": ["x"]}))
    assert dropped_rules([good, bad]) == {"sentinel": ["x"]}
    # ... and other content is another key
    assert bad.id in dropped_rules([good, bad, _t("{B} is the son of {A}.")])
    assert len(list((tmp_path / "cache").glob("flags-*.json"))) == 2


def test_an_unwritable_cache_gives_the_same_flags(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("CLUTRR_CACHE_DIR", str(blocker / "cache"))  # a folder below a file: cannot exist
    bad = _t("{A} is {B}'s son.")
    assert list(dropped_rules([bad])) == [bad.id]


def test_the_shipped_bank_has_no_flagged_template_and_meets_its_size_goals():
    from clutrr.render.bank_check import read_bank, resolve_files
    from clutrr.render.usable import dropped_rules

    templates = [e.template for e in read_bank(resolve_files("paraphrase"))[0]]
    assert dropped_rules(templates) == {}
    assert len(templates) >= 6000
    k3 = {}
    for t in templates:
        if len(t.clause) == 3:
            k3[t.clause] = k3.get(t.clause, 0) + 1
    assert sum(n >= 8 for n in k3.values()) >= 150


def test_a_name_list_change_refreshes_both_caches(tmp_path, monkeypatch):
    """The extra-named-person check reads the first-name lists: editing them is a new key for
    the cached flags and for the compiled bank, not a stale hit."""
    import shutil

    from clutrr.core import names
    from clutrr.render.usable import _compiled_key, _key

    data = tmp_path / "data"
    shutil.copytree(names._DATA, data)
    monkeypatch.setattr(names, "_DATA", data)
    templates = [_t("{B} is {A}'s son.")]
    before = _key(templates, "kinship"), _compiled_key("paraphrase", "kinship")
    (data / "names_female.txt").write_text((data / "names_female.txt").read_text() + "\nZenobia\n")
    after = _key(templates, "kinship"), _compiled_key("paraphrase", "kinship")
    assert before[0] != after[0] and before[1] != after[1]
