"""Run the reproduction and write RESULTS.md: GAT and BiLSTM-attention on the released data, GAT on ours.

    python -m clutrr.baselines.reproduce --release ../shared/clutrr-release --runs 3

Each experiment writes ``<out>/<slug>/<model>.json`` and ``.png``; ``--only`` picks experiments
(so two can run side by side, one per core). The report is rewritten after every experiment.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from clutrr.baselines.report import EXPERIMENTS, write_report
from clutrr.baselines.train import train_and_evaluate
from clutrr.errors import UsageError

HERE = Path(__file__).resolve().parent
DEFAULT_RELEASE = HERE.parent.parent / "shared" / "clutrr-release"


def generate_ours(out: Path, seed: int, test_rows: int) -> Path:
    """Generate our dataset with the released data's split settings (train k=2,3, test k=2..10, clean)."""
    from clutrr.commands.generate import main as generate

    code = generate(["--k", "2,3", "--test-k", "2..10", "--noise", "none", "--train-rows", "5000",
                     "--test-rows", str(test_rows), "--seed", str(seed), "--out", str(out), "--force", "--quiet"])
    if code != 0:
        raise UsageError(f"generate.py failed with exit code {code}")
    return out


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    p = argparse.ArgumentParser(prog="python -m clutrr.baselines.reproduce", description=__doc__.splitlines()[0])
    p.add_argument("--release", default=str(DEFAULT_RELEASE), help="folder holding data_089907f8 and data_7c5b0e70")
    p.add_argument("--out", default=str(HERE / "results"))
    p.add_argument("--report", default=str(HERE / "RESULTS.md"))
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--gat-epochs", type=int, default=20)
    p.add_argument("--lstm-epochs", type=int, default=6)
    p.add_argument("--test-rows", type=int, default=500, help="test rows per k of our generated data")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--only", default=",".join(EXPERIMENTS), help="comma-separated experiment slugs")
    args = p.parse_args(argv)
    release, out = Path(args.release), Path(args.out)
    try:
        for slug in args.only.split(","):
            if slug not in EXPERIMENTS:
                raise UsageError(f"unknown experiment {slug!r}; choose from {', '.join(EXPERIMENTS)}")
            model = EXPERIMENTS[slug][1]
            epochs = args.gat_epochs if model == "gat" else args.lstm_epochs
            if slug == "gat-ours":
                with tempfile.TemporaryDirectory() as tmp:
                    data = generate_ours(Path(tmp) / "data", args.seed, args.test_rows)
                    doc = train_and_evaluate(model, data, epochs, args.seed, args.runs, out / slug, threads=args.threads)
            else:
                data = release / ("data_089907f8" if slug == "gat-089907f8" else "data_7c5b0e70")
                doc = train_and_evaluate(model, data, epochs, args.seed, args.runs, out / slug, threads=args.threads)
            print(f"{slug}: done in {doc['seconds'] / 60:.1f} min")
            write_report(out, args.report)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {args.report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
