"""The text measures of config.json, computed per template, agree with tokenising each story."""
from __future__ import annotations

import random
import subprocess
import sys

from clutrr.story.generator import GeneratorConfig, banks, make_example
from clutrr.render.measures import TextTally, story_self_possessive, template_self_possessive
from clutrr.render.stitching import render_path
from clutrr.render.templates import Bank, Template, template_id


def _template(text: str) -> Template:
    clause = ("brother", "son")
    return Template(template_id(clause, "any", text), clause, "any", text, "test")


def test_template_self_possessive_reads_one_sentence():
    assert template_self_possessive(_template("{A} lent {A}'s car to {B}, whose son is {C}."))
    assert not template_self_possessive(_template("{A} met {B}. {A}'s son {C} came too."))
    assert not template_self_possessive(_template("{B} is {A}'s brother. {C} is {B}'s son."))


def test_per_template_flags_match_tokenised_stories():
    config = GeneratorConfig()
    tally = TextTally(banks(config, 3))
    stories = 0
    for k in (2, 3, 5, 8, 12):
        for split in ("train", "test"):
            for i in range(150 if k < 8 else 40):
                rec = make_example(config, k, "all", 3, i, split).record
                ids = [p["template"] for p in rec["pieces"]]
                fast = tally._self_possessive(split, ids, rec["story"], [p["name"] for p in rec["people"]])
                assert fast == story_self_possessive(rec), rec["story"]
                stories += 1
    assert stories > 1000


def test_stories_of_flagged_templates_are_flagged():
    """Pieces rendered from a bank holding self-possessive templates, shuffled and joined as
    the generator joins them: the per-template answer is the tokenised story's."""
    texts = {("brother",): ["{A} saw {A}'s brother {B}.", "{B} is {A}'s brother."],
             ("sister",): ["{A} and {A}'s sister {B} sang.", "{B} is the sister of {A}."]}
    bank = Bank([Template(template_id(c, "any", t), c, "any", t, "test") for c, ts in texts.items() for t in ts])
    tally = TextTally({"train": bank})
    rng = random.Random(0)
    seen = set()
    for _ in range(200):
        words = [rng.choice(["brother", "sister"]) for _ in range(2)]
        names = ["Ann", "Bob", "Cid"]
        pieces = render_path(bank, [0, 1], [0, 1, 2], words, names, [1, 0, 0], rng, 1)
        rng.shuffle(pieces)
        rec = {"people": [{"name": n} for n in names], "story": " ".join(p.text for p in pieces)}
        fast = tally._self_possessive("train", [p.template_id for p in pieces], rec["story"], names)
        assert fast == story_self_possessive(rec)
        seen.add(fast)
    assert seen == {True, False}


def test_unknown_template_falls_back_to_tokenising():
    config = GeneratorConfig()
    rec = make_example(config, 3, "all", 0, 0, "test").record
    rec = {**rec, "pieces": [{**p, "template": "unknown#00000000"} for p in rec["pieces"]]}
    tally = TextTally(banks(config, 0))
    tally.add(rec)
    assert tally.self_possessive == story_self_possessive(rec)


def test_a_worker_does_not_load_the_statement_reader():
    """The reader (clutrr.render.statements and its shapes) is imported only when a template
    lacks its flag or a story must be read: not by a generate worker's modules (start-up time)."""
    code = ("import sys, clutrr.pipeline.tasks, clutrr.render.measures; "
            "print(sorted(m for m in sys.modules if m.startswith(('clutrr.render.statements', 'clutrr.render.shapes'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
