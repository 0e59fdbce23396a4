"""Write an evaluation's files: ``report.md``, ``report.json``, ``accuracy_vs_k.png`` and the
predictions an endpoint gave, all or nothing."""
from __future__ import annotations

import json
from pathlib import Path

from clutrr.eval.plot import plot_accuracy_vs_k
from clutrr.eval.predictions import write_predictions
from clutrr.eval.published import Reference
from clutrr.eval.report import Report, render_markdown, report_json, safe_name
from clutrr.io.staging import StagedDir


def write_report(reports: list[Report], out_dir: str | Path, references: list[Reference] = (),
                 force: bool = False, predictions: dict[str, list[dict]] | None = None) -> Path:
    """Write report.md, report.json and accuracy_vs_k.png into ``out_dir``, all or nothing.

    ``predictions`` (model name -> prediction records) are written as
    ``predictions-<model>.jsonl`` beside them, e.g. the answers an endpoint gave.
    """
    with StagedDir(out_dir, force=force) as out:
        plot_accuracy_vs_k(reports, out.file("accuracy_vs_k.png"), references)
        out.file("report.md").write_text(render_markdown(reports, references, "accuracy_vs_k.png"), encoding="utf-8")
        out.file("report.json").write_text(json.dumps(report_json(reports, references), indent=1) + "\n",
                                           encoding="utf-8")
        for name, records in (predictions or {}).items():
            write_predictions(records, out.file(f"predictions-{safe_name(name)}.jsonl"))
    return Path(out_dir)
