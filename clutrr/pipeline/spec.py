"""What a run generates and how: the dataset's spec, the run's options, and the plan of its work.

A dataset is a pure function of (spec, seed). The plan cuts it into logical files
(:meth:`DatasetSpec.logical_files`), files into shards (:func:`clutrr.io.shards.plan_shards`)
and shards into tasks of :func:`task_size` rows; none of that changes a byte of the output.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from clutrr.story.generator import GeneratorConfig, check_request
from clutrr.core.memory import task_of
from clutrr.engines.base import STALL_SECONDS
from clutrr.errors import UsageError
from clutrr.io.shards import LogicalFile, Piece, Shard

ROWS_PER_SHARD = 1_000_000
MAX_ROWS = 1_000_000_000  # rows per file: --train-rows, --test-rows
MAX_SHARDS = 100_000  # shards of a whole run
PIECES_PER_WORKER = 2  # a piece takes this share of the rows left per worker (guided self-scheduling)
PIECE_TASKS = 32  # most tasks in a piece of a cut shard


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
        for flag, rows in (("--train-rows", self.train_rows), ("--test-rows", self.test_rows)):
            if rows > MAX_ROWS:
                raise UsageError(f"{flag} must be at most {MAX_ROWS:,} (rows per file), got {rows}")
        if not self.train_k and not self.test_k:
            raise UsageError("nothing to generate: no train or test lengths")
        self.config.validate()
        stems = [stem for stem, *_ in self.files()]
        if len(set(stems)) < len(stems):
            twice = next(s for s in stems if stems.count(s) > 1)
            raise UsageError(f"two files would be named {twice}: a memory or mixed task takes one test noise type")
        for k in self.train_k:
            check_request(k, self.noise, "train", self.config)
        for noise in self.test_noise:
            for k in self.test_k:
                check_request(k, noise, "test", self.config)

    def files(self) -> list[tuple[str, str, str, tuple[int, ...]]]:
        """(file stem, split, noise, ks) for every output file, train first."""
        out = []
        if self.train_k:
            task = task_of(self.noise, self.config.query)
            out.append((",".join(f"{task}.{k}" for k in self.train_k) + "_train", "train", self.noise, self.train_k))
        for noise in self.test_noise:
            task = task_of(noise, self.config.query)
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
    discard_edits: bool = False  # with force: replace a dataset whose files were edited since it was written
    stall: float = STALL_SECONDS  # no task finished for this long: the workers are killed, their tasks rerun


TASK_WORDS = 400_000  # most story words in one task (long contexts)


def task_size(k: int, context_words: int = 0) -> int:
    """Rows per task: shorter for long chains so tasks take similar time, and for long contexts
    so a task's rows stay a few MB."""
    return max(1, min(max(16, 1024 // k), TASK_WORDS // max(1, context_words)))


def plan_pieces(shards: list[Shard], workers: int, context_words: int = 0) -> list[Piece]:
    """The pieces that workers write, in row order: whole shards while there is work enough
    for every worker, then pieces of what is left over ``PIECES_PER_WORKER * workers``,
    shrinking to 2 tasks' rows at the end so no worker waits long for the last one.
    One worker writes whole shards (nothing to join).

    A cut shard's pieces are at most :data:`PIECE_TASKS` tasks long, and its first is half
    as long as it would be, so that the second, started with it, ends after it: a piece is
    held in memory until the pieces before it end (:mod:`clutrr.pipeline.joins`)."""
    out: list[Piece] = []
    left = sum(s.rows for s in shards)
    for s in shards:
        task = task_size(max(s.file.ks), context_words)
        smallest = 2 * task
        bounds = [s.start]
        while bounds[-1] < s.stop:
            rest, first = s.stop - bounds[-1], bounds[-1] == s.start
            guided = max(smallest, -(-left // (PIECES_PER_WORKER * workers)))
            if workers <= 1 or (first and rest <= guided * 3 // 2):
                size = rest  # a whole shard
            else:
                size = min(guided, max(smallest, PIECE_TASKS * task))
                if first:
                    size = max(smallest, size // 2)
                if rest <= size * 3 // 2:
                    size = rest
            bounds.append(bounds[-1] + size)
            left -= size
        count = len(bounds) - 1
        out += [Piece(s, i, count, bounds[i], bounds[i + 1], len(out) + i) for i in range(count)]
    return out
