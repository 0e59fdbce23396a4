"""A terminology compiled to a KB: one predicate per term, composition rules derived from the world model.

Each term is defined from primitive genealogy by the union of its kin types. The rules are
found as the soundness proof of the built-in KBs finds them (``tests/test_kb_soundness.py``):
over many worlds of the world model (sampled family trees and adversarial worlds), a rule
``t1 . t2 -> t`` is kept when t1 then t2 occurs and every occurrence is a t; a composition
that can give two terms gives none. Inverses are found the same way (t2 is t1 seen from the
other end in every world). The compiled KB is a YAML file in the user cache, keyed by a
hash of the terminology and of this code, so derivation runs once per terminology;
:func:`clutrr.core.soundness.check_sound` checks it again on other families before use.
"""
from __future__ import annotations

import hashlib
import os
import random
import re
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import yaml

from clutrr.core.family import FamilyConfig, sample_family
from clutrr.core.genealogy import relation_masks
from clutrr.core.kb import KB, KBError, load_kb, parse_kb
from clutrr.core.soundness import check_sound
from clutrr.paths import cache_dir, data_dir, trusted

if TYPE_CHECKING:
    from clutrr.kinship.terminology import Terminology

# The terminology modules (their patterns, glossary, templates) are imported by the functions that
# compile one: every generate run reads shown_source, and most tell no kinship system.

WORLDS = 150
SEED = 2026
FORMAT = 1  # of compiled files; their names also change with the code that writes them
_CODE = ("kinship/derive.py", "kinship/terminology.py", "kinship/templates.py", "kinship/glossary.py", "core/worlds.py",
         "core/family.py", "core/genealogy.py", "core/kb.py")


FAMILIES_ONLY = (
    "- Families are those clutrr draws, of at most {n} generations: one founding couple and their\n"
    "  descendants, each of whom marries someone from outside, who comes alone or with their own\n"
    "  parents and siblings. The rules are proved for these families only.\n")


def predicate_name(term: str, speaker: str | None = None) -> str:
    """The predicate of a term in the compiled KB (a term's letters, apostrophes as underscores;
    ``_ms`` or ``_ws`` for the term as said by a man or a woman)."""
    return term.replace("'", "_") + ("" if speaker is None else f"_{speaker[0].replace('f', 'w')}s")


def predicate_terms(terminology: Terminology) -> list[tuple[str, str | None]]:
    """(term, speaker) of each predicate, in KB order. When some kin type is limited to one
    speaker sex, every term is two predicates, one per speaker (a term said by nobody of a sex
    is left out), so that rules may depend on who speaks; otherwise one predicate per term."""
    from clutrr.kinship.terminology import SPEAKERS

    speakers = SPEAKERS if terminology.speaker_sensitive else (None,)
    return [(term, s) for term in terminology.terms for s in speakers if terminology.kin_types(term, s)]


def _skeleton(terminology: Terminology) -> dict:
    """The compiled KB as data, without rules or inverses."""
    from clutrr.kinship.glossary import glossary

    world = load_kb("kinship").world_model
    predicates = {}
    for term, speaker in predicate_terms(terminology):
        male, female = terminology.sexes(term, speaker)
        words = {g: term for g, has in (("male", male), ("female", female)) if has}
        spec = {"words": words, "inverse": None, "define": terminology.definition(term, speaker)}
        if speaker:
            spec["speaker"] = speaker
        predicates[predicate_name(term, speaker)] = spec
    data = {"name": terminology.name, "sound": True,
            "terminology": {"name": terminology.name, "file": Path(terminology.path).name,
                            "sha256": terminology.digest},
            "description": terminology.description, "world_model": world, "glossary": glossary(terminology),
            "predicates": predicates, "rules": []}
    if terminology.generations:
        data["world_model"] = world + FAMILIES_ONLY.format(n=terminology.generations)
        data["generations"] = terminology.generations
    return data


def worlds(kb: KB, n: int = WORLDS, seed: int = SEED, generations: int = 0):
    """``masks[p, x, y]`` of ``n`` worlds under the KB: every third a sampled family tree of
    four generations, the others adversarial random worlds; with ``generations``, only the
    family trees clutrr draws of that many generations (up to five children a couple, nine in
    ten of them married, so every shape of smaller settings occurs)."""
    from clutrr.core.worlds import random_world

    rng = random.Random(seed)
    for i in range(n):
        if generations:
            yield sample_family(FamilyConfig(generations=generations, max_children=4 + i % 2, p_marry=0.9), kb,
                                rng).masks
        elif i % 3 == 0:
            yield sample_family(FamilyConfig(generations=4, p_marry=0.9), kb, rng).masks
        else:
            parent, spouse, gender = random_world(rng)
            yield relation_masks(kb, parent, spouse, gender)


def derive(kb: KB, n: int = WORLDS, seed: int = SEED) -> tuple[dict[tuple[int, int], int], dict[int, int]]:
    """(rules ``{(t1, t2): t}``, inverses ``{t: t'}``) that hold in every one of ``n`` worlds
    (of families of at most ``kb.generations`` generations, when the KB says so).

    Terms are bits of an int64 (at most 63 terms); every x, y, z with y x's t1 and z y's t2
    (x, z distinct) is listed, and ``always[t1 * m + t2]`` keeps the terms z is of x in all.
    """
    m = len(kb.predicates)
    if m > 63:
        raise KBError(f"{kb.path}: {m} terms; at most 63 are supported")
    always = np.full(m * m, -1, dtype=np.int64)
    seen = np.zeros(m * m, dtype=bool)
    transposed = np.ones((m, m), dtype=bool)  # [a, b]: masks[a].T == masks[b]
    present = np.zeros(m, dtype=bool)
    weights = (np.int64(1) << np.arange(m, dtype=np.int64))[:, None, None]
    for masks in worlds(kb, n, seed, kb.generations):
        size = masks.shape[1]
        labels = (masks * weights).sum(axis=0)  # [x, z]: the terms z is of x, as bits
        terms, xs, ys = np.nonzero(masks)
        order = np.argsort(xs, kind="stable")
        terms, xs, ys = terms[order], xs[order], ys[order]
        starts = np.searchsorted(xs, np.arange(size + 1))
        degree = np.diff(starts)
        counts = degree[ys]  # facts out of each fact's tail
        first = np.repeat(np.arange(len(xs)), counts)
        offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        second = np.repeat(starts[ys], counts) + offsets
        x, z = xs[first], ys[second]
        keep = x != z
        keys = terms[first][keep] * m + terms[second][keep]
        np.bitwise_and.at(always, keys, labels[x[keep], z[keep]])
        seen[keys] = True
        present |= masks.reshape(m, -1).any(axis=1)
        flat_t = masks.transpose(0, 2, 1).reshape(m, -1)
        flat_m = masks.reshape(m, -1)
        for a in range(m):
            transposed[a] &= (flat_t[a] == flat_m).all(axis=1)
    rules = {}
    for key in np.flatnonzero(seen).tolist():
        heads = int(always[key]) & ((1 << m) - 1)
        if heads and heads & (heads - 1) == 0:  # exactly one term
            rules[divmod(key, m)] = heads.bit_length() - 1
    inverses = {}
    for a in range(m):
        match = np.flatnonzero(transposed[a]).tolist()
        if present[a] and len(match) == 1:
            inverses[a] = match[0]
    return rules, inverses


def compile_terminology(terminology: Terminology) -> str:
    """The compiled KB's YAML text; KBError naming the terms no derived rule uses."""
    data = _skeleton(terminology)
    kb = parse_kb(yaml.safe_dump(data, sort_keys=False), terminology.path)
    rules, inverses = derive(kb)
    names = kb.pred_names
    used = {p for (a, b), c in rules.items() for p in (a, b, c)}
    owners = predicate_terms(terminology)
    unused = [t for t in terminology.terms if not any(owners[p][0] == t for p in used)]
    if unused:
        raise KBError(f"{terminology.path}: no sound composition rule uses the term{'s' if len(unused) > 1 else ''} "
                      f"{', '.join(repr(t) for t in unused)} (no story could state or ask it)")
    preds = data["predicates"]
    for a, b in inverses.items():
        spec = preds[names[a]]
        del spec["inverse"]
        if a == b:
            spec["symmetric"] = True
        else:
            spec["inverse"] = names[b]
        spec["define"] = spec.pop("define")
        if "speaker" in spec:
            spec["speaker"] = spec.pop("speaker")
    data["rules"] = [f"{names[a]} . {names[b]} -> {names[c]}" for (a, b), c in sorted(rules.items())]
    header = (f"# Compiled by clutrr.kinship from {Path(terminology.path).name} (sha256 {terminology.digest}):\n"
              "# one predicate per term; rules and inverses derived from the world model. Do not edit.\n")
    return header + yaml.safe_dump(data, sort_keys=False, width=120, allow_unicode=True)


def code_digest() -> str:
    """A hash of the code a compiled file depends on (its name changes when the code does)."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.blake2b(f"{FORMAT}\x1f{WORLDS}\x1f{SEED}".encode(), digest_size=8)
    for rel in _CODE:
        h.update(rel.encode())
        h.update((root / rel).read_bytes())
    h.update((data_dir("kb_rules") / "kinship.yaml").read_bytes())
    return h.hexdigest()


COMPILED_NAME = re.compile(r"kinship-(?P<name>.+)-(?P<sha>[0-9a-f]{64})-[0-9a-f]{16}(?P<bank>-templates)?\.yaml")


def shown_source(source: str) -> str:
    """How a KB or template source is recorded (config.json): a terminology's compiled file,
    which lives in this machine's cache, as ``kinship:NAME@sha256:HEX`` (the system's name and
    its terminology file's sha256; ``/templates`` after it for its bank), so one seed gives the
    same bytes on any machine; any other source as given."""
    path = Path(source)
    m = COMPILED_NAME.fullmatch(path.name)
    if m is None or not _compiled_folder(path.parent):
        return source
    return f"kinship:{m['name']}@sha256:{m['sha']}" + ("/templates" if m["bank"] else "")


def cached_file(name: str, text_of) -> Path:
    """The trusted cache file ``name``, written from ``text_of()`` when absent (in a private
    temporary folder when the cache folder cannot be written)."""
    text = None
    for folder in (cache_dir(), None):
        if folder is None:
            folder = Path(_private_dir())
        path = folder / name
        if trusted(path):
            return path
        if text is None:
            text = text_of()  # before any file is opened: a refused terminology leaves no partial file
        try:
            folder.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, path)
            return path
        except OSError:
            continue
    raise KBError(f"cannot write the compiled file {name} to the cache or a temporary folder")


PRIVATE_PREFIX = "clutrr-kinship-"


def _compiled_folder(folder: Path) -> bool:
    """Whether compiled files are written to ``folder``: the cache, or a private temporary folder."""
    return folder == cache_dir() or (folder.parent == Path(tempfile.gettempdir())
                                     and folder.name.startswith(PRIVATE_PREFIX))


@lru_cache(maxsize=1)
def _private_dir() -> str:
    return tempfile.mkdtemp(prefix=PRIVATE_PREFIX)


@lru_cache(maxsize=32)
def kinship_kb_path(name_or_path: str) -> str:
    """The path of the compiled KB of a terminology (a built-in name or a file), compiled on
    first use; KBError (one line) when the terminology is refused."""
    from clutrr.kinship.terminology import load_terminology

    terminology = load_terminology(name_or_path)
    name = f"kinship-{terminology.name}-{terminology.digest}-{code_digest()}.yaml"
    return str(cached_file(name, lambda: compile_terminology(terminology)))


def kinship_kb(name_or_path: str) -> KB:
    """The compiled KB of a terminology, its rules checked again on other sampled families."""
    kb = load_kb(kinship_kb_path(name_or_path))
    check_sound(kb)
    return kb


@lru_cache(maxsize=32)
def kinship_bank_path(name_or_path: str) -> str:
    """The path of the template bank of a terminology's terms (see :mod:`clutrr.kinship.templates`)."""
    from clutrr.kinship.templates import bank_text
    from clutrr.kinship.terminology import load_terminology

    terminology = load_terminology(name_or_path)
    name = f"kinship-{terminology.name}-{terminology.digest}-{code_digest()}-templates.yaml"
    return str(cached_file(name, lambda: bank_text(terminology)))
