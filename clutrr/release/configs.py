"""The named configurations of a release: the six of the original CLUTRR release, and ours.

A configuration is built from one or more generation runs (*parts*) with one seed, so its
files share the template split and the held-out patterns. The training file of a run is cut
into train and validation by story afterwards (:mod:`clutrr.release.build`).
"""
from __future__ import annotations

from dataclasses import dataclass

from clutrr.errors import UsageError
from clutrr.kinship.terminology import builtin_terminologies

CLEAN, SUPPORTING, IRRELEVANT, DISCONNECTED = "none", "supporting", "irrelevant", "disconnected"


@dataclass(frozen=True)
class Part:
    """One generation run of a configuration: its lengths, noise and generator options.

    ``tag`` marks the run's file names (``1.4_w4000_test``) when runs of one configuration
    would otherwise write files of the same name.
    """

    test_k: tuple[int, ...]
    test_noise: tuple[str, ...] = (CLEAN,)
    train_k: tuple[int, ...] = ()
    noise: str = CLEAN
    query: str = "reasoning"
    context_words: int = 0
    depth: str = "spread"
    tag: str = ""
    relations: str = "all"  # the words stories may state and ask (``clutrr generate --relations``)
    question: str = "relation"  # the question form its rows ask (``clutrr generate --question``)
    noise_facts: int = 2  # facts per noise type (``--noise-facts``)
    difficulty: bool = False  # records carry the difficulty record (``--difficulty``)
    kinship: str | None = None  # tell stories in a kinship system's terms (``clutrr generate --kinship``)


@dataclass(frozen=True)
class ReleaseConfig:
    """A named configuration: its parts and its rows (train, validation, test) at scale 1."""

    name: str
    purpose: str
    parts: tuple[Part, ...]
    rows: tuple[int, int, int]
    original: str | None = None  # the folder of the original release it stands for
    edge_types: str = "all"  # "chain": edge_types types the chain's facts alone, as the original files did

    def test_files(self) -> int:
        """The number of test files."""
        return sum(len(p.test_k) * len(p.test_noise) for p in self.parts)

    def train_ks(self) -> tuple[int, ...]:
        """The chain lengths of its training stories."""
        return next((p.train_k for p in self.parts if p.train_k), ())

    def question(self) -> str:
        """The question form its rows ask (its parts ask one)."""
        return self.parts[0].question

    @property
    def kinship(self) -> str | None:
        """The kinship system its stories are told in (None: the default KB's English words)."""
        return self.parts[0].kinship


def _robust(name: str, original: str | None, train_noise: str, rows: tuple[int, int, int], task: int,
            relations: str = "all") -> ReleaseConfig:
    others = tuple(n for n in (CLEAN, SUPPORTING, IRRELEVANT, DISCONNECTED) if n != train_noise)
    return ReleaseConfig(
        name, f"robustness: trained on task {task} (k=2,3), tested on k=3 stories of every noise type",
        (Part((2, 3), (train_noise,), (2, 3), train_noise, relations=relations),
         Part((3,), others, relations=relations)), rows, original)


def _v1_compatible() -> ReleaseConfig:
    base = _robust("v1_rob_train_clean_23_test_all_23", None, CLEAN, (8098, 2026, 447), 1, "clutrr_v1")
    purpose = ("v1-compatible robustness: as `rob_train_clean_23_test_all_23`, but stories state and ask only the "
               "original release's relation words (`--relations clutrr_v1`: its 18 target words) and `edge_types` "
               "types the chain's facts alone, as the original files did")
    return ReleaseConfig(base.name, purpose, base.parts, base.rows, edge_types="chain")


# The hard tier: long chains inside graphs of connected distractors, each story's difficulty recorded.
HARD_KS = (20, 50, 100)
HARD_DISTRACTORS = (200, 500, 1000)
HARD_TEST_ROWS = 450  # 50 stories per (k, distractors) file


def _hard() -> tuple[ReleaseConfig, ...]:
    purpose = (f"hard tier (test only): chains of {HARD_KS[0]} to {HARD_KS[-1]} facts among "
               f"{HARD_DISTRACTORS[0]:,} to {HARD_DISTRACTORS[-1]:,} connected distractors (true facts about the "
               "same family, joined to the story's people; task 8), every row with its difficulty")
    return (ReleaseConfig("hard_k20to100_d200to1000", purpose,
                          tuple(Part(HARD_KS, ("connected",), noise_facts=n, difficulty=True, tag=f"n{n}")
                                for n in HARD_DISTRACTORS), (0, 0, HARD_TEST_ROWS)),)


K2_10 = tuple(range(2, 11))
CONTEXT_KS = (2, 4, 6, 8, 10)
CONTEXT_WORDS = (1000, 4000, 16000)
DEPTHS = ("0.0", "0.25", "0.5", "0.75", "1.0")

CONFIGS: tuple[ReleaseConfig, ...] = (
    ReleaseConfig("gen_train23_test2to10", "systematic generalisation: train on chains of 2 and 3 facts, test on 2 to 10",
                  (Part(K2_10, train_k=(2, 3)),), (9074, 2020, 1146), "data_089907f8"),
    ReleaseConfig("gen_train234_test2to10", "systematic generalisation: train on chains of 2 to 4 facts, test on 2 to 10",
                  (Part(K2_10, train_k=(2, 3, 4)),), (12064, 3019, 1048), "data_db9b8f04"),
    _robust("rob_train_clean_23_test_all_23", "data_7c5b0e70", CLEAN, (8098, 2026, 447), 1),
    _robust("rob_train_sup_23_test_all_23", "data_06b8f2a1", SUPPORTING, (8123, 2031, 447), 2),
    _robust("rob_train_irr_23_test_all_23", "data_523348e6", IRRELEVANT, (8079, 2020, 444), 3),
    _robust("rob_train_disc_23_test_all_23", "data_d83ecc3e", DISCONNECTED, (8080, 2020, 445), 4),
    ReleaseConfig("gen_train234_test2to30", "long chains: train on 2 to 4 facts, test on chains of up to 30 facts",
                  (Part(tuple(range(2, 31)), train_k=(2, 3, 4)),), (12000, 3000, 2900)),
    ReleaseConfig("noise_all_train23_test2to10", "all noise at once (task 5: supporting, irrelevant and disconnected "
                  "facts in every story), at every length from 2 to 10",
                  (Part(K2_10, ("all",), (2, 3), "all"),), (8000, 2000, 900)),
    ReleaseConfig("mem_train23_test2to10", "memory (task 6): the query asks a relation the story states, in stories "
                  "of the same chains as task 1",
                  (Part(K2_10, train_k=(2, 3), query="memory"),), (8000, 2000, 900)),
    ReleaseConfig("mix_train23_test2to10", "memory and reasoning mixed (task 7): in each pair of rows one query is "
                  "stated in the story and one must be composed",
                  (Part(K2_10, train_k=(2, 3), query="mixed"),), (8000, 2000, 900)),
    ReleaseConfig("ctx_train23_test2to10", "long contexts: the story hidden among true facts about other families, "
                  "a k x context-length grid (the same stories at 1,000, 4,000 and 16,000 words; sentences spread through "
                  "the text)",
                  tuple(Part(CONTEXT_KS, train_k=(2, 3) if words == CONTEXT_WORDS[0] else (), context_words=words,
                             tag=f"w{words}") for words in CONTEXT_WORDS), (4000, 1000, 750)),
    ReleaseConfig("ctx_depth_k4_w4000", "long contexts by depth: the same k=4 stories of 4,000 words with their "
                  "sentences together at 0, 25, 50, 75 or 100% of the text (test only)",
                  tuple(Part((4,), context_words=4000, depth=d, tag=f"d{d}") for d in DEPTHS), (0, 0, 250)),
    _v1_compatible(),
    *_hard(),
)

# One configuration per question form (docs/questions.md): the chains of gen_train23_test2to10,
# each story asking one form instead of "how is Y related to X?", its answer proved from the facts.
FORM_PURPOSES = {
    "person": "who (`--question person`): \"Who is X's aunt?\", answered by the name of the one story person the "
              "facts make X's aunt",
    "people": "which people (`--question people`): \"Which people in the story are X's nieces?\", answered by the "
              "list of every such name (never empty; score by exact set and set F1)",
    "count": "how many (`--question count`): \"How many people in the story are X's grandsons?\", answered by an "
             "integer (0 only where the facts relate every other person of that gender to X)",
    "yesno": "yes or no (`--question yesno`): \"Is Y X's nephew?\", half yes and half no; no only where the facts "
             "entail another relation",
}
FORM_CONFIGS = tuple(ReleaseConfig(f"{form}_train23_test2to10", f"question form {purpose}; chains of 2 and 3 facts "
                                   "in training, 2 to 10 in test", (Part(K2_10, train_k=(2, 3), question=form),),
                                   (8000, 2000, 900)) for form, purpose in FORM_PURPOSES.items())
CONFIGS += FORM_CONFIGS


# The kinship tier: one configuration per built-in kinship system (docs/kinship.md), the
# systematic-generalisation split told in its terms. Built by name or as ``--configs kinship``;
# not part of the default release.
def _kinship(system: str) -> ReleaseConfig:
    return ReleaseConfig(f"kin_{system}_train23_test2to10", f"kinship system `{system}`: train on chains of 2 and 3 "
                         "facts, test on 2 to 10, every story told in the system's terms with their glossary",
                         (Part(K2_10, train_k=(2, 3), kinship=system),), (8000, 2000, 900))


KINSHIP = tuple(_kinship(system) for system in builtin_terminologies())
TIERS = {"kinship": KINSHIP}
BY_NAME = {c.name: c for c in CONFIGS + KINSHIP}
ORIGINAL_NAMES = tuple(c.name for c in CONFIGS if c.original)


def select(names: str | None) -> tuple[ReleaseConfig, ...]:
    """The configurations named in a comma-separated list of names and tiers (:data:`TIERS`; the
    default release when None), in table order."""
    if names is None:
        return CONFIGS
    asked = [m for n in names.split(",") if n.strip() for m in _expand(n.strip())]
    unknown = [n for n in asked if n not in BY_NAME]
    if unknown or not asked:
        raise UsageError(f"unknown configuration {unknown[0] if unknown else names!r} "
                         f"(choose from {', '.join(BY_NAME)}, or the tier {', '.join(TIERS)})")
    return tuple(c for c in BY_NAME.values() if c.name in asked)


def _expand(name: str) -> list[str]:
    """A tier's configuration names, or the one name given."""
    return [c.name for c in TIERS[name]] if name in TIERS else [name]


def scaled(n: int, scale: float) -> int:
    """A row count at ``scale``: at least 1 unless it is 0."""
    return 0 if n == 0 else max(1, round(n * scale))
