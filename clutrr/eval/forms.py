"""``clutrr eval`` on a folder of other question forms (``--question``; docs/questions.md).

The gold answers come from the JSONL twin of each test CSV (its ``form``, ``question`` and
``answer``). A reply is read by :func:`clutrr.llm.form_answers.read_form_answer` and scored
per form: exact match (a set of names for ``people``, any order), set F1 for ``people`` (1
for an exact set; other forms score F1 as exact match), and with several answers per story
pass@k by the unbiased estimator. Tables are per form, then per (form, k).
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from clutrr.errors import UsageError
from clutrr.eval.data import split_name
from clutrr.eval.sampling import ks_for, pass_at_k
from clutrr.io.csv_format import iter_records
from clutrr.io.datadir import split_paths
from clutrr.llm.form_answers import read_form_answer
from clutrr.llm.prompts import form_question_text, question_text

FORM_ORDER = ("relation", "person", "people", "count", "yesno")


@dataclass
class FormGold:
    """One evaluated question: where it is, its form, its answer and what a model is shown."""

    id: str
    split: str
    k: int
    noise: str
    form: str
    answer: object
    names: list[str]  # the story's people
    asked: list[str]  # the names the question asks about (relation: head, tail)
    question: str  # the story and the question, as a model is shown them


def form_records(root: Path, splits: list[str] | None = None) -> Iterable[tuple[str, dict]]:
    """(split, record) for every row of the JSONL twins of a folder's test files (of the splits
    matching the shell patterns ``splits``, when given)."""
    import fnmatch

    for path in split_paths(root):
        name = split_name(path.stem)
        chosen = any(fnmatch.fnmatch(name, p) for p in splits) if splits else not name.endswith("_train")
        twin = path.with_suffix(".jsonl")
        if chosen and twin.is_file():
            with open(twin, encoding="utf-8") as fh:
                for line in fh:
                    if line.strip():
                        yield name, json.loads(line)


def is_form_folder(directory: str | Path) -> bool:
    """Whether the folder's first test file asks other question forms than relation (its CSV
    has the question columns)."""
    for path in split_paths(Path(directory)):
        if not split_name(path.stem).endswith("_train"):
            for _, rec in iter_records(path):
                return "form" in rec
    return False


def load_form_golds(directory: str | Path, splits: list[str] | None = None, limit: int | None = None,
                    glossary: bool = True) -> list[FormGold]:
    """The questions of the folder's test files (or of the splits matching ``splits``), the
    first ``limit`` of each, a kinship system's with its glossary unless ``glossary`` is False;
    UsageError when there are none."""
    golds: list[FormGold] = []
    seen: dict[str, int] = {}
    for split, rec in form_records(Path(directory), splits):
        seen[split] = seen.get(split, 0) + 1
        if limit is not None and seen[split] > limit:
            continue
        names = [p["name"] for p in rec["people"]]
        asked = [names[i] for i in rec["query"]]
        defined = rec.get("glossary", []) if glossary else []
        text = question_text(rec["story"], *asked, defined) if rec["form"] == "relation" else \
            form_question_text(rec["story"], rec["question"], defined)
        golds.append(FormGold(rec["id"], split, rec["k"], rec["noise"], rec["form"], rec["answer"], names, asked,
                              text))
    if not golds:
        raise UsageError(f"{directory}: no questions to evaluate (the JSONL twins of the test files are needed)")
    return golds


def form_item(gold: FormGold) -> dict:
    """What a prompt is built from: the item's id, split, form, question and the names it asks
    about (no answer)."""
    return {"id": gold.id, "split": gold.split, "form": gold.form, "question": gold.question, "query": gold.asked}


def score(form: str, gold: object, answer: object) -> tuple[bool, float]:
    """(exact match, set F1) of ``answer`` (None: no answer) against ``gold``."""
    if answer is None:
        return False, 0.0
    if form != "people":
        right = answer == gold
        return right, float(right)
    given, want = set(answer), set(gold)
    if not given and not want:
        return True, 1.0
    f1 = 2 * len(given & want) / (len(given) + len(want))
    return given == want, f1


@dataclass
class FormTally:
    """Scores of one group of questions (first answers), and pass@k over all samples."""

    n: int = 0
    exact: int = 0
    f1: float = 0.0
    unparsed: int = 0
    passes: dict[int, float] = field(default_factory=dict)

    def row(self, ks: list[int]) -> dict:
        """The group's figures: counts, exact-match rate, mean set F1 and pass@k."""
        out = {"n": self.n, "exact": self.exact / self.n if self.n else 0.0,
               "set_f1": self.f1 / self.n if self.n else 0.0, "unparsed": self.unparsed}
        if len(ks) > 1:
            out.update({f"pass@{k}": self.passes.get(k, 0.0) / self.n for k in ks})
        return out


def evaluate_forms(golds: list[FormGold], replies: dict[tuple[str, str, int], str | None], kb: str = "kinship"
                   ) -> tuple[dict, list[dict]]:
    """The report (``{"samples", "by_form", "by_form_k"}``) and per-answer records of the
    ``replies`` ((split, id, sample) -> reply text) to ``golds``."""
    samples = 1 + max((s for _, _, s in replies), default=0)
    ks = ks_for(samples) if samples > 1 else [1]
    by_form: dict[str, FormTally] = {}
    by_form_k: dict[str, FormTally] = {}
    items = []
    for g in golds:
        right = 0
        for s in range(samples):
            text = replies.get((g.split, g.id, s))
            answer = read_form_answer(text, g.form, g.names, g.asked, kb)
            exact, f1 = score(g.form, g.answer, answer)
            right += exact
            items.append({"id": g.id, "file": g.split, "k": g.k, "form": g.form, "gold": g.answer, "reply": text,
                          "answer": answer, "correct": exact, "set_f1": f1, "sample": s})
            if s == 0:
                for tally in (by_form.setdefault(g.form, FormTally()),
                              by_form_k.setdefault(f"{g.form} k={g.k}", FormTally())):
                    tally.n += 1
                    tally.exact += exact
                    tally.f1 += f1
                    tally.unparsed += answer is None
        if samples > 1:
            for tally in (by_form[g.form], by_form_k[f"{g.form} k={g.k}"]):
                for k in ks:
                    tally.passes[k] = tally.passes.get(k, 0.0) + pass_at_k(samples, right, k)
    order = {f: i for i, f in enumerate(FORM_ORDER)}
    report = {"samples": samples,
              "by_form": {f: by_form[f].row(ks) for f in sorted(by_form, key=order.get)},
              "by_form_k": {key: by_form_k[key].row(ks)
                            for key in sorted(by_form_k, key=lambda s: (order[s.split()[0]], int(s.split("=")[1])))}}
    return report, items


def render_forms(model: str, report: dict) -> str:
    """The report as text tables: per form, then per form and k."""
    lines = []
    for title, group in (("form", report["by_form"]), ("form and k", report["by_form_k"])):
        first = next(iter(group.values()))
        extra = [c for c in first if c.startswith("pass@")]
        lines.append(f"{model}: by {title}")
        lines.append(f"  {title:14s} {'n':>5s} {'exact':>7s} {'set F1':>7s} {'unparsed':>8s}"
                     + "".join(f" {c:>8s}" for c in extra))
        for key, row in group.items():
            lines.append(f"  {key:14s} {row['n']:5d} {row['exact']:7.1%} {row['set_f1']:7.3f} {row['unparsed']:8d}"
                         + "".join(f" {row[c]:8.1%}" for c in extra))
    return "\n".join(lines) + "\n"


def replies_of(records: Iterable, where: Callable[[object], tuple[str | None, str, int, str | None]],
               golds: list[FormGold]) -> dict[tuple[str, str, int], str | None]:
    """(split, id, sample) -> reply text of prediction records; ``where(record)`` gives a
    record's (split or None, id, sample, text). An id found in no evaluated split is skipped
    when another split of the folder has it; UsageError when an id is in several splits and
    the record names none."""
    splits_of: dict[str, list[str]] = {}
    for g in golds:
        splits_of.setdefault(g.id, []).append(g.split)
    out = {}
    for rec in records:
        split, id_, sample, text = where(rec)
        if split is None:
            found = splits_of.get(id_, [])
            if len(found) > 1:
                raise UsageError(f"id {id_!r} is in several test files; give its 'split'")
            if not found:
                continue
            split = found[0]
        out[split, id_, sample] = text
    return out
