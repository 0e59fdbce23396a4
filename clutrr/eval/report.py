"""The evaluation report: its data, JSON form, markdown and terminal tables.

One :class:`Report` per model. Several reports render as one set of tables with a column
per model; :func:`clutrr.eval.writer.write_report` writes them to a folder.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from clutrr.core.noise import NOISE_KINDS
from clutrr.eval.metrics import CI_METHOD, Tally
from clutrr.eval.published import Reference
from clutrr.eval.replies import ReplyTally
from clutrr.eval.sampling import SampleTally, ks_for

SCHEMA = "clutrr-eval/report-v1"
UNPARSABLE = "(unparsable)"
MISSING = "(missing)"
OTHER = "(other)"
SOURCES = {"clutrr": "a folder from this generator (JSONL records read)",
           "released": "CSV files only (e.g. a released CLUTRR folder): no held-out pattern marks"}


@dataclass
class Report:
    """One model's scores on one dataset folder."""

    model: str
    data: str
    source: str
    kb: str
    split_info: dict[str, dict] = field(default_factory=dict)  # split -> {k, noise}
    overall: Tally = field(default_factory=Tally)
    by_split: dict[str, Tally] = field(default_factory=dict)
    by_k: dict[int, Tally] = field(default_factory=dict)
    by_noise: dict[str, Tally] = field(default_factory=dict)
    by_pattern: dict[str, Tally] = field(default_factory=dict)  # "seen" / "heldout"; empty when unknown
    by_relation: dict[str, Tally] = field(default_factory=dict)
    confusion: dict[str, Counter] = field(default_factory=dict)  # gold word -> predicted label -> count
    unparsable: int = 0
    missing: int = 0
    missing_ids: list[str] = field(default_factory=list)
    samples: int = 1  # answers per story; the tables above score the first (sample 0)
    sampling: dict[str, dict[str, SampleTally]] = field(default_factory=dict)  # by_k / by_noise / overall
    replies: dict[int, ReplyTally] = field(default_factory=dict)  # by k, when a server reported on its replies
    items: list[dict] = field(default_factory=list)  # one record per answer (items.jsonl); not in to_dict

    def to_dict(self) -> dict:
        """Plain JSON data; tallies carry n, correct, accuracy and the 95% Wilson interval."""
        def tallies(d: dict) -> dict:
            return {str(k): t.to_dict() for k, t in d.items()}
        n = self.overall.n
        return {
            "model": self.model, "data": self.data, "source": self.source, "kb": self.kb,
            "stories": n, "overall": self.overall.to_dict(),
            "unparsable": self.unparsable, "unparsable_share": self.unparsable / n if n else 0.0,
            "missing": self.missing, "missing_share": self.missing / n if n else 0.0,
            "missing_ids_first": self.missing_ids,
            "by_split": {s: dict(t.to_dict(), **self.split_info[s]) for s, t in self.by_split.items()},
            "by_k": tallies(self.by_k), "by_noise": tallies(self.by_noise), "by_pattern": tallies(self.by_pattern),
            "by_relation": tallies(self.by_relation),
            "confusion": {gold: dict(sorted(row.items())) for gold, row in self.confusion.items()},
            "samples": self.samples,
            "sampling": {group: {key: t.to_dict() for key, t in rows.items()} for group, rows in self.sampling.items()},
            "replies_by_k": {str(k): t.to_dict() for k, t in self.replies.items()},
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Report":
        """The inverse of :meth:`to_dict`."""
        def tallies(x: dict, key=str) -> dict:
            return {key(k): Tally.from_dict(v) for k, v in x.items()}
        return cls(
            model=d["model"], data=d["data"], source=d["source"], kb=d["kb"],
            split_info={s: {"k": v["k"], "noise": v["noise"]} for s, v in d["by_split"].items()},
            overall=Tally.from_dict(d["overall"]), by_split=tallies(d["by_split"]), by_k=tallies(d["by_k"], int),
            by_noise=tallies(d["by_noise"]), by_pattern=tallies(d["by_pattern"]), by_relation=tallies(d["by_relation"]),
            confusion={g: Counter(row) for g, row in d["confusion"].items()},
            unparsable=d["unparsable"], missing=d["missing"], missing_ids=list(d["missing_ids_first"]),
            samples=int(d.get("samples", 1)),
            sampling={group: {key: SampleTally.from_dict(t) for key, t in rows.items()}
                      for group, rows in d.get("sampling", {}).items()},
            replies={int(k): ReplyTally.from_dict(t) for k, t in d.get("replies_by_k", {}).items()},
        )


def _cell(t: Tally | None, sep: str = ", ") -> str:
    if t is None or not t.n:
        return "–"
    lo, hi = t.to_dict()["ci"]
    return f"{t.accuracy:.3f} [{lo:.3f}{sep}{hi:.3f}]"


def _share(count: int, n: int) -> str:
    return f"{count} ({count / n:.1%})" if n else "0"


def _keys(reports: list[Report], attr: str, order: tuple = ()) -> list:
    seen = dict.fromkeys(k for r in reports for k in getattr(r, attr))
    return [k for k in order if k in seen] + sorted((k for k in seen if k not in order), key=lambda k: (str(type(k)), k))


def _split_order(reports: list[Report]) -> list[str]:
    """Test files by noise type (in NOISE_KINDS order), then k, then name."""
    info = {s: i for r in reports for s, i in r.split_info.items()}
    rank = {noise: i for i, noise in enumerate(NOISE_KINDS)}
    return sorted(info, key=lambda s: (rank.get(info[s]["noise"], len(rank)), info[s]["noise"], info[s]["k"], s))


def tables(reports: list[Report], references: list[Reference] = ()) -> list[tuple[str, list[str], list[list[str]]]]:
    """The report's tables as (title, header, rows), shared by the markdown and terminal forms."""
    names = [r.model for r in reports]
    out = []
    out.append(("Summary", ["model", "stories", "accuracy [95% CI]", "unparsable", "missing"],
                [[r.model, str(r.overall.n), _cell(r.overall), _share(r.unparsable, r.overall.n),
                  _share(r.missing, r.overall.n)] for r in reports]))
    info = {s: i for r in reports for s, i in r.split_info.items()}
    rows = []
    for split in _split_order(reports):
        n = next(r.by_split[split].n for r in reports if split in r.by_split)
        rows.append([split, str(info[split]["k"]), info[split]["noise"], str(n),
                     *(_cell(r.by_split.get(split)) for r in reports)])
    out.append(("Accuracy per test file", ["test file", "k", "noise", "stories", *names], rows))
    refs = [ref for ref in references if ref.accuracy]
    rows = []
    for k in _keys(reports, "by_k"):
        n = next(r.by_k[k].n for r in reports if k in r.by_k)
        rows.append([str(k), str(n), *(_cell(r.by_k.get(k)) for r in reports),
                     *(f"{ref.accuracy[k]:.2f}" if k in ref.accuracy else "–" for ref in refs)])
    out.append(("Accuracy per k", ["k", "stories", *names, *(ref.label for ref in refs)], rows))
    rows = [[noise, str(next(r.by_noise[noise].n for r in reports if noise in r.by_noise)),
             *(_cell(r.by_noise.get(noise)) for r in reports)] for noise in _keys(reports, "by_noise", NOISE_KINDS)]
    out.append(("Accuracy per noise type", ["noise", "stories", *names], rows))
    if any(r.by_pattern for r in reports):
        rows = [[kind, *(f"{_cell(r.by_pattern.get(kind))} (n={r.by_pattern[kind].n})" if kind in r.by_pattern
                         else "–" for r in reports)] for kind in _keys(reports, "by_pattern", ("seen", "heldout"))]
        out.append(("Held-out versus seen patterns", ["pattern", *names], rows))
    for r in reports:
        if r.sampling:
            out.append(sampling_table(r))
        if r.replies:
            out.append(replies_table(r))
    rows = [[rel, str(next(r.by_relation[rel].n for r in reports if rel in r.by_relation)),
             *(_cell(r.by_relation.get(rel)) for r in reports)] for rel in _keys(reports, "by_relation")]
    out.append(("Accuracy per relation", ["relation", "stories", *names], rows))
    return out


def _mean_cell(value: float | None, ci: list[float]) -> str:
    return "–" if value is None else f"{value:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"


def sampling_table(report: Report) -> tuple[str, list[str], list[list[str]]]:
    """pass@k and majority vote per k, per noise type and overall, for one model."""
    ks = ks_for(report.samples)
    rows = []
    for group, label in (("by_k", "k={}"), ("by_noise", "{}"), ("overall", "all")):
        for key, tally in report.sampling.get(group, {}).items():
            d = tally.to_dict()
            rows.append([label.format(key), str(tally.n),
                         *(_mean_cell(d[f"pass@{k}"]["value"], d[f"pass@{k}"]["ci"]) for k in ks),
                         _cell(tally.majority)])
    title = f"Repeated sampling: {report.model}, {report.samples} answers per story"
    return title, ["group", "stories", *(f"pass@{k}" for k in ks), "majority vote"], rows


def replies_table(report: Report) -> tuple[str, list[str], list[list[str]]]:
    """Per k: replies, the share cut by the length limit, mean tokens and reasoning faithfulness."""
    def num(value: float | None) -> str:
        return "–" if value is None else f"{value:,.0f}"

    rows = []
    for k, t in report.replies.items():
        d = t.to_dict()
        cut = "–" if d["cut_share"] is None else f"{t.cut} ({d['cut_share']:.1%})"
        faithful = "–" if d["precision"] is None else f"{d['precision']:.3f} (n={t.judged})"
        connected = "–" if d["connected_share"] is None else f"{d['connected_share']:.1%}"
        rows.append([str(k), str(t.replies), cut, num(t.mean_tokens("prompt")), num(t.mean_tokens("completion")),
                     num(t.mean_tokens("reasoning")), faithful, connected])
    return (f"Replies per k: {report.model}",
            ["k", "replies", "cut by length", "prompt tokens", "completion tokens", "reasoning tokens",
             "faithfulness", "connected"], rows)


def confusion_table(report: Report) -> tuple[list[str], list[list[str]]]:
    """The confusion matrix (rows: right answer; columns: answer given) as header and rows.

    Answers outside the label set are pooled as ``(other)``.
    """
    golds = sorted(report.confusion)
    given = sorted({label for row in report.confusion.values() for label in row if label in report.confusion})
    extra = [OTHER, UNPARSABLE, MISSING]
    rows = []
    for gold in golds:
        row = report.confusion[gold]
        other = sum(c for label, c in row.items() if label not in report.confusion and label not in extra)
        cells = [row.get(label, 0) for label in given] + [other, row.get(UNPARSABLE, 0), row.get(MISSING, 0)]
        rows.append([gold, *(str(c) if c else "·" for c in cells)])
    return ["right \\ given", *given, *extra], rows


def md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """The lines of a markdown table."""
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(row) + " |" for row in rows)]


def render_markdown(reports: list[Report], references: list[Reference] = (), plot: str | None = None) -> str:
    """The report.md text for one or more models."""
    data = reports[0].data
    lines = ["# Evaluation report", "",
             f"Data: `{data}` ({SOURCES.get(reports[0].source, reports[0].source)}); "
             f"{reports[0].overall.n} stories in {len(reports[0].by_split)} test files; KB `{reports[0].kb}`.", "",
             "Accuracy is the share of stories whose answer names the right relation; brackets give the "
             f"{CI_METHOD}. A story without a prediction counts as wrong (*missing*); an answer from which "
             "no single relation can be read counts as wrong (*unparsable*).", ""]
    for title, header, rows in tables(reports, references):
        lines += [f"## {title}", "", *md_table(header, rows), ""]
    if not any(r.by_pattern for r in reports):
        lines += ["## Held-out versus seen patterns", "",
                  "Not available: the folder has no JSONL records marking held-out patterns.", ""]
    lines += ["## Confusion matrices", "", "Rows: the right relation; columns: the relation answered.", ""]
    for r in reports:
        header, rows = confusion_table(r)
        lines += [f"### {r.model}", "", *md_table(header, rows), ""]
    if references:
        lines += ["## Published reference figures", ""]
        lines += [f"- **{ref.label}**: {ref.setting}. Source: {ref.source}." for ref in references] + [""]
    if plot:
        lines += [f"![accuracy against k]({plot})", ""]
    return "\n".join(lines)


def render_text(reports: list[Report], references: list[Reference] = ()) -> str:
    """The main tables as aligned plain text, for the terminal."""
    out = []
    for title, header, rows in tables(reports, references):
        if title == "Accuracy per relation":
            continue
        table = [header, *rows]
        widths = [max(len(r[i]) for r in table) for i in range(len(header))]
        out += [title, *("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in table), ""]
    out.append(f"Brackets: {CI_METHOD}. Per-relation accuracy and confusion matrices are in report.md (--out).")
    return "\n".join(out) + "\n"


def report_json(reports: list[Report], references: list[Reference] = ()) -> dict:
    """The report.json document."""
    return {"schema": SCHEMA, "ci_method": CI_METHOD, "reports": [r.to_dict() for r in reports],
            "references": [ref.to_dict() for ref in references]}


def safe_name(name: str) -> str:
    """``name`` reduced to characters safe in a file name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_") or "model"
