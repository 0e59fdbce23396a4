"""The one loader: CLUTRR CSV rows (ours and the released ones) to model-agnostic stories.

A :class:`Story` keeps what every model needs: the people, the directed facts with
relation-type ids, the query pair, the label id and the tokenised text whose names are
replaced by slots (local person indices). :mod:`baselines.graphs` and :mod:`baselines.text`
turn stories into PyG graphs and padded token tensors.

Untyped edges: the released files give a relation word for chain edges only (noise edges
have none). Such edges are kept and typed with the extra id :data:`UNKNOWN_RELATION`
(``len(words)``), so a noisy story keeps its noise in the graph; our own files type every edge.
"""
from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from clutrr.io.csv_format import StoryRow, read_csv
from clutrr.io.shards import logical_files
from clutrr.errors import UsageError
from clutrr.core.kb import KB, load_kb
from clutrr.eval.data import split_name

TOKEN_RE = re.compile(r"\[([^\[\]]+)\]|[a-z]+(?:-[a-z]+)*|\d+|[^\sa-z\d]")


@dataclass(frozen=True)
class LabelVocab:
    """The shared label vocabulary: the kinship KB's relation words, in the KB's order."""

    words: tuple[str, ...]
    kb_name: str = "kinship"

    @classmethod
    def from_kb(cls, name: str = "kinship") -> "LabelVocab":
        """The vocabulary of KB ``name`` (default: the 22 kinship words)."""
        return cls(tuple(load_kb(name).words), name)

    @property
    def unknown_relation(self) -> int:
        """The edge-type id of a fact with no relation word."""
        return len(self.words)

    @property
    def num_edge_types(self) -> int:
        """Relation words plus the unknown type."""
        return len(self.words) + 1

    def index(self, word: str) -> int:
        """The id of a relation word (aliases such as ``neice`` accepted); KeyError if unknown."""
        kb: KB = load_kb(self.kb_name)
        try:
            pred, gender = kb.parse_word(word)
        except KeyError:
            # the released files' spellings (``neice``) are aliases of the original KB
            original = load_kb("clutrr_v1")
            pred, gender = original.parse_word(word)
            word = original.word(pred, gender)
            pred, gender = kb.parse_word(word)
        return self.words.index(kb.word(pred, gender))


@dataclass
class Story:
    """One example, ready to become a graph sample or a text sample."""

    id: str
    label: int
    k: int
    people: list[str]
    edges: list[tuple[int, int]]
    edge_types: list[int]
    query: tuple[int, int]
    tokens: list[str]
    slots: list[int]
    sexes: tuple[str, ...] = ()  # each person's gender (``male``/``female``), in the order of ``people``

    def placeholder_tokens(self, assignment: list[int]) -> list[str]:
        """The story's tokens with person ``i`` written ``@entity-{assignment[i]}``."""
        return [f"@entity-{assignment[s]}" if s >= 0 else t for t, s in zip(self.tokens, self.slots)]


@dataclass
class TestSplit:
    """One test file: its task name (``1.4``), noise family, chain length and stories."""

    file: str
    task: str
    noise: int
    k: int
    stories: list[Story]

    @property
    def split(self) -> str:
        """The split name ``clutrr eval`` gives the file (its stem without a shard suffix)."""
        return split_name(Path(self.file).stem)


@dataclass
class Dataset:
    """A data folder: one training file and its test files, sorted by (noise, k)."""

    root: str
    train_file: str
    train: list[Story]
    tests: list[TestSplit]
    labels: LabelVocab


def story_rng(seed: int, story: Story) -> np.random.Generator:
    """A generator fixed by ``seed`` and the story's id, so a story's draw does not depend on its neighbours."""
    return np.random.default_rng([seed, zlib.crc32(story.id.encode("utf-8"))])


def split_validation(stories: list[Story], share: float, seed: int) -> tuple[list[Story], list[Story]]:
    """Hold out about ``share`` of ``stories`` for validation, by story: rows that tell the same
    story (same people, same text) all go to one side. The choice is fixed by ``seed``; both
    sides keep the input order."""
    if not 0.0 <= share < 1.0:
        raise UsageError(f"the validation share must be in [0, 1), got {share}")
    groups: dict[tuple, list[int]] = {}
    for i, s in enumerate(stories):
        groups.setdefault((tuple(s.people), tuple(s.tokens)), []).append(i)
    want = round(share * len(stories))
    if share > 0 and len(groups) > 1:
        want = min(max(want, 1), len(stories) - len(max(groups.values(), key=len)))
    held: set[int] = set()
    keys = list(groups)
    for g in np.random.default_rng(seed).permutation(len(keys)):
        if len(held) >= want:
            break
        held.update(groups[keys[g]])
    return [s for i, s in enumerate(stories) if i not in held], [s for i, s in enumerate(stories) if i in held]


def tokenize(text: str, people: list[str]) -> tuple[list[str], list[int]]:
    """Lower-cased tokens of ``text`` and, per token, the index of the bracketed person or -1.

    ``people`` is extended in place with any bracketed name it does not hold.
    """
    index = {name: i for i, name in enumerate(people)}
    tokens: list[str] = []
    slots: list[int] = []
    for m in TOKEN_RE.finditer(_lower_outside_brackets(text)):
        name = m.group(1)
        if name is None:
            tokens.append(m.group(0))
            slots.append(-1)
            continue
        if name not in index:
            index[name] = len(people)
            people.append(name)
        tokens.append("<entity>")
        slots.append(index[name])
    return tokens, slots


def _lower_outside_brackets(text: str) -> str:
    parts = re.split(r"(\[[^\[\]]+\])", text)
    return "".join(p if p.startswith("[") else p.lower() for p in parts)


def story_from_row(row: StoryRow, labels: LabelVocab) -> Story:
    """Convert a parsed CSV row; raises UsageError on an unknown relation word."""
    people = [name for name, _ in row.genders]
    try:
        label = labels.index(row.target)
        types = [labels.index(w) for w in row.edge_types]
    except KeyError as exc:
        raise UsageError(f"row {row.id}: relation word {exc.args[0]!r} is not in the {labels.kb_name} KB") from None
    types += [labels.unknown_relation] * (len(row.story_edges) - len(types))
    tokens, slots = tokenize(row.story, people)
    return Story(
        id=row.id, label=label, k=row.k, people=people, edges=[tuple(e) for e in row.story_edges],
        edge_types=types, query=tuple(row.query_edge), tokens=tokens, slots=slots,
        sexes=tuple(gender for _, gender in row.genders),
    )


def load_stories(path: str | Path, labels: LabelVocab | None = None) -> list[Story]:
    """Read one CLUTRR CSV file into stories."""
    labels = labels or LabelVocab.from_kb()
    return [story_from_row(row, labels) for row in read_csv(path)]


def parse_task(file_name: str) -> tuple[str, int, int]:
    """(task, noise family, k) from a file name such as ``1.4_test.csv``."""
    task = file_name.split("_")[0]
    noise, _, k = task.partition(".")
    if not (noise.isdigit() and k.isdigit()):
        raise UsageError(f"test file {file_name!r} is not named like 1.4_test.csv")
    return task, int(noise), int(k)


def _logical_files(root: Path) -> dict[str, list[Path]]:
    if not root.is_dir():
        raise UsageError(f"data folder {root} does not exist")
    try:
        return logical_files(root, ".csv")
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def load_tests(root: str | Path, labels: LabelVocab | None = None) -> list[TestSplit]:
    """The ``*_test.csv`` files of a folder (each possibly written in shards,
    ``*_test-00000-of-00004.csv`` ...; a training file beside them is ignored), sorted by (noise, k)."""
    root = Path(root)
    found = _logical_files(root)
    labels = labels or LabelVocab.from_kb()
    tests = []
    for stem in found:
        if stem.endswith("_test"):
            task, noise, k = parse_task(f"{stem}.csv")
            tests.append(TestSplit(f"{stem}.csv", task, noise, k, load_stories(root / f"{stem}.csv", labels)))
    if not tests:
        raise UsageError(f"{root} holds no *_test.csv")
    return sorted(tests, key=lambda t: (t.noise, t.k, t.file))


def load_dataset(root: str | Path, labels: LabelVocab | None = None, max_train: int | None = None) -> Dataset:
    """Load a data folder holding exactly one ``*_train.csv`` and any number of ``*_test.csv``
    (each possibly written in shards)."""
    root = Path(root)
    labels = labels or LabelVocab.from_kb()
    trains = [f"{stem}.csv" for stem in _logical_files(root) if stem.endswith("_train")]
    if len(trains) != 1:
        raise UsageError(f"{root} must hold exactly one *_train.csv (found {len(trains)})")
    tests = load_tests(root, labels)
    train = load_stories(root / trains[0], labels)
    if max_train is not None:
        train = train[:max_train]
    return Dataset(str(root), trains[0], train, tests, labels)
