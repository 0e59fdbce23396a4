"""The gold side of an evaluation: the test items of a dataset folder, ours or a released one.

Files are read through :func:`clutrr.io.datadir.load_splits`. A file's split is its stem
without a shard suffix (``1.2_test-00001-of-00004`` is split ``1.2_test``). Chain length
and noise type come from the JSONL twin of each CSV when present (our folders), else from
``task_name`` (``task_3.4``: noise type 3 = irrelevant, k = 4). Whether a story's pattern
was held out of training is known only from the JSONL twin (``pattern_heldout``).

Files outside the evaluation (the training file, splits not chosen) are read only when
needed: for k-shot examples, or to tell a prediction for a story left out from an unknown id.
"""
from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from pathlib import Path

from clutrr.core.noise import TASK_OF_NOISE
from clutrr.errors import UsageError
from clutrr.io.bounded import loads as bounded_loads
from clutrr.eval.items import make_item
from clutrr.io.csv_format import StoryRow
from clutrr.io.datadir import Split, read_split, split_paths
from clutrr.llm.extract import extract_answer

SHARD = re.compile(r"-\d+-of-\d+$")
NOISE_OF_TASK = {task: noise for noise, task in TASK_OF_NOISE.items()}
TASK_NAME = re.compile(r"task_(\d+)\.(\d+)$")


@dataclass
class Gold:
    """One evaluated story: where it is, what it tests, and its answer."""

    id: str
    split: str
    index: int
    k: int
    noise: str
    target: str  # the KB's word for the answer
    heldout: bool | None
    row: StoryRow
    seed: int | None = None
    asked: dict | None = None  # the JSONL record of a row asking a question form (docs/questions.md)


def split_name(stem: str) -> str:
    """A file stem without its shard suffix."""
    return SHARD.sub("", stem)


def _task(row: StoryRow) -> tuple[int, str]:
    m = TASK_NAME.search(row.task_name)
    if not m:
        return row.k, "none"
    return int(m.group(2)), NOISE_OF_TASK.get(int(m.group(1)), f"task {m.group(1)}")


def _records(path: Path) -> dict[str, dict]:
    twin = path.with_suffix(".jsonl")
    if not twin.is_file():
        return {}
    out = {}
    with open(twin, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if line.strip():
                try:
                    rec = bounded_loads(line)
                    out[str(rec["id"])] = rec
                except (ValueError, KeyError, TypeError) as exc:
                    raise UsageError(f"{twin}:{n}: not a story record ({type(exc).__name__}: {exc})") from None
    return out


class EvalSet:
    """The items of the chosen splits of a dataset folder, with lookup by id.

    ``deferred`` files (outside the evaluation) are read on first use of :attr:`train`,
    :attr:`others` or :attr:`other_ids`.
    """

    def __init__(self, root: Path, golds: list[Gold], train: list[Gold], kb: str,
                 others: set[tuple[str, str]] = frozenset(), deferred: list[Path] = ()) -> None:
        self.root = root
        self._others = set(others)  # (split, id) of the folder's stories left out by the split choice or limit
        self._train = list(train)
        self._deferred = list(deferred)
        self._other_ids: set[str] | None = None
        self.golds = golds
        self.kb = kb
        self.glossary = True  # a kinship system's questions hold the definitions of the story's terms
        self.forms = False  # items of a question-form folder ask their row's question (clutrr.rl.FileDataset)
        self.splits = list(dict.fromkeys(g.split for g in golds))
        self.source = "clutrr" if any(g.heldout is not None for g in golds) else "released"
        self.by_id: dict[str, int | None] = {}
        self.by_key: dict[tuple[str, str], int] = {}
        for i, g in enumerate(golds):
            self.by_key[(g.split, g.id)] = i
            self.by_id[g.id] = None if g.id in self.by_id else i  # None: the id is in several files

    def _read_deferred(self) -> None:
        while self._deferred:
            part = read_split(self._deferred.pop(0))
            golds = _golds(part, self.kb)
            if part.is_train:
                self._train += golds
            self._others |= {(g.split, g.id) for g in golds}
            self._other_ids = None

    @property
    def train(self) -> list[Gold]:
        """The stories of the training file(s)."""
        self._read_deferred()
        return self._train

    @property
    def others(self) -> set[tuple[str, str]]:
        """(split, id) of the folder's stories outside the evaluation."""
        self._read_deferred()
        return self._others

    @property
    def other_ids(self) -> set[str]:
        """The ids of :attr:`others`."""
        others = self.others
        if self._other_ids is None:
            self._other_ids = {i for _, i in others}
        return self._other_ids

    def __len__(self) -> int:
        return len(self.golds)

    def item(self, i: int, answer: bool = True) -> dict:
        """The plain-data item of gold ``i`` (see :mod:`clutrr.eval.items`); without its
        ``answer`` field when ``answer`` is False (what a model under test is shown)."""
        g = self.golds[i]
        item = make_item(g.row, split=g.split, noise=g.noise, index=g.index, seed=g.seed, pattern_heldout=g.heldout,
                         glossary=self.glossary, asked=g.asked if self.forms else None)
        if not answer:
            del item["answer"]
        return item

    def items(self, answer: bool = True) -> list[dict]:
        """Every evaluated item, in file order (see :meth:`item`)."""
        return [self.item(i, answer) for i in range(len(self.golds))]

    def train_items(self) -> list[dict]:
        """The items of the training file(s), e.g. the pool for k-shot prompts."""
        return [make_item(g.row, split=g.split, noise=g.noise, index=g.index, seed=g.seed, pattern_heldout=g.heldout,
                          glossary=self.glossary) for g in self.train]


def _golds(part: Split, kb: str) -> list[Gold]:
    name = split_name(part.name)
    records = _records(part.path)
    golds = []
    for i, row in enumerate(part.rows):
        rec = records.get(row.id)
        k, noise = (rec["k"], rec["noise"]) if rec else _task(row)
        target = extract_answer(row.target, kb) or row.target.strip().lower()
        golds.append(Gold(row.id, name, rec["index"] if rec else i, k, noise, target,
                          rec["pattern_heldout"] if rec else None, row, rec["seed"] if rec else None,
                          rec if rec and "form" in rec else None))
    return golds


def load_eval_set(directory: str | Path, splits: list[str] | None = None, kb: str = "kinship",
                  limit: int | None = None) -> EvalSet:
    """Read a dataset folder. ``splits`` are shell patterns over split names (default: every
    test file); ``limit`` keeps the first rows of each split. Raises UsageError on bad input."""
    root = Path(directory)
    if limit is not None and limit < 1:
        raise UsageError(f"--limit must be at least 1, got {limit}")
    chosen: list[Gold] = []
    train: list[Gold] = []
    others: set[tuple[str, str]] = set()
    deferred: list[Path] = []
    for path in split_paths(root):
        name = split_name(path.stem)
        if splits is not None and not any(fnmatch.fnmatch(name, p) for p in splits) or \
                splits is None and name.endswith("_train"):
            deferred.append(path)
            continue
        part = read_split(path)
        golds = _golds(part, kb)
        if part.is_train:
            train += golds
            if splits is None:
                others |= {(g.split, g.id) for g in golds}
                continue
        chosen += golds
    if limit is not None:
        seen: dict[str, int] = {}
        kept = []
        for g in chosen:
            seen[g.split] = seen.get(g.split, 0) + 1
            if seen[g.split] <= limit:
                kept.append(g)
            else:
                others.add((g.split, g.id))
        chosen = kept
    if not chosen:
        what = f"no split matches {', '.join(splits)}" if splits else "no test files"
        raise UsageError(f"{root}: {what}")
    return EvalSet(root, chosen, train, kb, others, deferred)
