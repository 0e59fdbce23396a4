"""Evaluate any model on a CLUTRR dataset folder: predictions in, report tables and plot out.

    from clutrr.eval import load_eval_set, evaluate, write_report
    data = load_eval_set("data/clutrr")                  # the test files
    report = evaluate(data, "preds.jsonl", name="mine")  # or a dict id -> answer
    write_report([report], "reports/eval")               # report.md, report.json, items.jsonl, accuracy_vs_k.png

See docs/eval.md for the predictions format and the command line (``clutrr eval``).
"""
from clutrr.eval.data import EvalSet, load_eval_set
from clutrr.eval.predictions import Prediction, read_predictions, write_predictions
from clutrr.eval.published import Reference, published, references
from clutrr.eval.report import Report, render_markdown, render_text
from clutrr.eval.sampling import pass_at_k
from clutrr.eval.writer import write_report
from clutrr.eval.scoring import evaluate

__all__ = ["EvalSet", "Prediction", "Reference", "Report", "evaluate", "load_eval_set", "pass_at_k", "published",
           "read_predictions", "references", "render_markdown", "render_text", "write_predictions", "write_report"]
