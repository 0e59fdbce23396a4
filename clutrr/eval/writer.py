"""Write an evaluation's files: ``report.md``, ``report.json``, ``accuracy_vs_k.png``,
``items.jsonl`` and the predictions a model gave, all or nothing."""
from __future__ import annotations

import json
from pathlib import Path

from clutrr.errors import UsageError
from clutrr.eval.plot import has_matplotlib, plot_accuracy_vs_k
from clutrr.eval.predictions import write_predictions
from clutrr.eval.published import Reference
from clutrr.eval.report import Report, render_markdown, report_json, safe_name
from clutrr.io.staging import StagedDir

ITEMS = "items.jsonl"


def write_items(reports: list[Report], path: Path) -> None:
    """Every report's per-answer records as JSONL (see docs/eval.md, "Per-item results")."""
    with open(path, "w", encoding="utf-8") as fh:
        for report in reports:
            for record in report.items:
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")


def write_report(reports: list[Report], out_dir: str | Path, references: list[Reference] = (),
                 force: bool = False, predictions: dict[str, list[dict]] | None = None) -> list[str]:
    """Write report.md, report.json, items.jsonl and accuracy_vs_k.png into ``out_dir``,
    all or nothing; the names of the files written.

    ``predictions`` (model name -> prediction records) are written as
    ``predictions-<model>.jsonl`` beside them, e.g. the answers an endpoint gave. Without
    matplotlib the plot is left out (and named in no file). A full disk or another write
    error is a UsageError, and nothing is left in ``out_dir``.
    """
    try:
        with StagedDir(out_dir, force=force) as out:
            written = []
            if has_matplotlib():
                plot_accuracy_vs_k(reports, out.file("accuracy_vs_k.png"), references)
                written.append("accuracy_vs_k.png")
            plot = "accuracy_vs_k.png" if written else None
            out.file("report.md").write_text(render_markdown(reports, references, plot), encoding="utf-8")
            out.file("report.json").write_text(json.dumps(report_json(reports, references), indent=1) + "\n",
                                               encoding="utf-8")
            write_items(reports, out.file(ITEMS))
            written = ["report.md", "report.json", ITEMS, *written]
            for name, records in (predictions or {}).items():
                file = f"predictions-{safe_name(name)}.jsonl"
                write_predictions(records, out.file(file))
                written.append(file)
    except OSError as exc:
        raise UsageError(f"cannot write the report to {out_dir} ({exc.strerror or exc}); nothing was written there") from None
    return written
