"""What a run generates and how: the dataset's spec, the run's options, and the plan of its work.

A dataset is a pure function of (spec, seed). The plan cuts it into logical files
(:meth:`DatasetSpec.logical_files`), files into shards (:func:`clutrr.io.shards.plan_shards`)
and shards into tasks of :func:`task_size` rows; none of that changes a byte of the output.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from clutrr.story.generator import GeneratorConfig, check_request
from clutrr.core.noise import TASK_OF_NOISE
from clutrr.errors import UsageError
from clutrr.io.shards import LogicalFile

ROWS_PER_SHARD = 1_000_000


@dataclass(frozen=True)
class DatasetSpec:
    """What to generate: lengths, noise, rows, seed and the generator's configuration."""

    train_k: tuple[int, ...] = (2, 3)
    test_k: tuple[int, ...] = tuple(range(2, 11))
    noise: str = "none"
    test_noise: tuple[str, ...] = ("none",)
    train_rows: int = 5000
    test_rows: int = 1000
    seed: int = 0
    config: GeneratorConfig = field(default_factory=GeneratorConfig)

    def validate(self) -> None:
        """Raise UsageError for the first bad argument."""
        if self.train_rows < 1 or self.test_rows < 1:
            raise UsageError(f"row counts must be positive, got train {self.train_rows}, test {self.test_rows}")
        if not self.train_k and not self.test_k:
            raise UsageError("nothing to generate: no train or test lengths")
        self.config.validate()
        for k in self.train_k:
            check_request(k, self.noise, "train", self.config)
        for noise in self.test_noise:
            for k in self.test_k:
                check_request(k, noise, "test", self.config)

    def files(self) -> list[tuple[str, str, str, tuple[int, ...]]]:
        """(file stem, split, noise, ks) for every output file, train first."""
        out = []
        if self.train_k:
            task = TASK_OF_NOISE[self.noise]
            out.append((",".join(f"{task}.{k}" for k in self.train_k) + "_train", "train", self.noise, self.train_k))
        for noise in self.test_noise:
            task = TASK_OF_NOISE[noise]
            out += [(f"{task}.{k}_test", "test", noise, (k,)) for k in self.test_k]
        return out

    def logical_files(self) -> list[LogicalFile]:
        """The files with their global row offsets."""
        out, offset = [], 0
        for i, (stem, split, noise, ks) in enumerate(self.files()):
            f = LogicalFile(i, stem, split, noise, ks, self.train_rows if split == "train" else self.test_rows, offset)
            out.append(f)
            offset += f.rows
        return out


@dataclass(frozen=True)
class RunOptions:
    """How to run a generation; none of these changes a byte of the output."""

    workers: int = 1
    engine: str = "local"
    address: str | None = None
    resume: bool = False
    shard: tuple[int, int] | None = None  # (I, N): only shards s with s % N == I, no assembly
    progress: bool = True


def task_size(k: int) -> int:
    """Rows per task: shorter for long chains so tasks take similar time."""
    return max(16, 1024 // k)
