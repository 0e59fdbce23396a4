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


def _as_written(t: Template) -> tuple:
    return t.id, t.clause, t.gender, t.text, t.source, t.compile_plan()


def test_a_compiled_bank_reads_back_as_it_was_written():
    """The compiled cache's numbered tables (clauses, genders, sources, gendered forms) give back
    every template, render plan, flag, holdout half, fallback id and dropped count."""
    from clutrr.paths import data_dir
    from clutrr.render.bank_cache import decode_bank, encode_bank
    from clutrr.render.bank_files import load_bank
    from clutrr.render.templates import Bank

    bank = load_bank(str(data_dir("paraphrases") / "k1"))
    train, test = bank.split(3)
    filled = Bank(train.templates(), "k1:train", fallback_ids=frozenset(t.id for t in train.templates()[:5]),
                  dropped={"total": 2, "5": 2})
    whole = Bank(bank.templates(), "k1", holdout=(filled, test), dropped={"total": 1})
    flags = {t.id: i % 3 == 0 for i, t in enumerate(bank.templates())}
    data = json.loads(json.dumps(encode_bank(whole, flags)))
    assert len(data["template_rows"]) == len(bank) and len(data["sources"]) > 10 and len(data["genders"]) == 3
    back, back_flags = decode_bank(data)
    assert back_flags == flags
    for was, now in zip((whole, *whole.holdout), (back, *back.holdout)):
        assert [_as_written(t) for t in now.templates()] == [_as_written(t) for t in was.templates()]
        assert (now.name, now.fallback_ids, now.dropped) == (was.name, was.fallback_ids, was.dropped)
    fresh = [Template(t.id, t.clause, t.gender, t.text, t.source) for t in bank.templates()]
    assert [t._plan for t in back.templates()] == [t.compile_plan() for t in fresh]  # the plans compile_plan makes
    assert sum(f is not None for t in back.templates() for _, f, _ in t._plan[1]) > 1000  # gendered forms among them
    assert decode_bank({**data, "forms": []}) is None  # a damaged file is no bank
    assert decode_bank({**data, "format": 1}) is None  # nor is another format's
