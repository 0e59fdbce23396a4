"""Templates in the original CLUTRR AMT placeholder format.

A file is JSON ``{f_comb: {gender_comb: [template, ...]}}``: ``f_comb`` is the clause's
relation words joined by "-" (common misspellings, "neice", "grandaughter", are read as
the word), ``gender_comb`` the genders of the clause's entities in chain order joined by
"-", and a template names entity ``i`` as ``ENT_{i}_{gender}``. Entity 0 is our ``{A}``,
entity 1 ``{B}``, and so on; the gender of entity 0 becomes the template's gender key, and
a text given for both genders of entity 0 becomes one ``any`` template. Texts are kept as
written; rendering repairs tokenised spacing and a missing full stop.

A pair ``X.train.json`` / ``X.test.json`` is a fixed template holdout (see
:func:`amt_pair`).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from clutrr.core.kb import GENDERS, load_kb
from clutrr.render.normalise import SPELLINGS
from clutrr.render.templates import Template, template_id

ENTITY = re.compile(r"ENT_(\d+)_([A-Za-z]+)")


class AmtFormatError(ValueError):
    """An AMT placeholder file that cannot be translated; the message names file and entry."""


def _clause(f_comb: str) -> tuple[tuple[str, ...], str | None]:
    """The clause of an f_comb, or a problem when a word is not a kinship relation word."""
    from clutrr.core.records import split_f_comb

    vocab = set(load_kb("kinship").word_index) | set(SPELLINGS)
    words = [SPELLINGS.get(w, w) for w in split_f_comb(f_comb.strip().lower(), vocab)]
    unknown = [w for w in words if w not in vocab]
    if unknown or not 1 <= len(words) <= 3:
        why = f"unknown relation word(s) {unknown}" if unknown else f"{len(words)} facts (1 to 3 allowed)"
        return (), f"f_comb {f_comb!r}: {why}"
    return tuple(words), None


def _translate(text: str, genders: list[str]) -> tuple[str, str | None]:
    """Replace ``ENT_i_g`` by ``{A}``..; report a bad index or gender, or a missing entity."""
    if "{" in text or "}" in text:
        return "", "template contains a literal brace"
    for m in ENTITY.finditer(text):
        i, g = int(m.group(1)), m.group(2).lower()
        if i >= len(genders):
            return "", f"{m.group(0)} names entity {i}, but the clause has {len(genders)}"
        if g != genders[i]:
            return "", f"{m.group(0)} disagrees with gender_comb ({genders[i]})"
    missing = sorted(set(range(len(genders))) - {int(m.group(1)) for m in ENTITY.finditer(text)})
    if missing:
        return "", f"entities {missing} are never mentioned"
    return ENTITY.sub(lambda m: "{" + chr(65 + int(m.group(1))) + "}", text), None


def parse_amt(data: object, source: str) -> tuple[list[Template], list[str]]:
    """Translate parsed JSON into templates; untranslatable entries become problems."""
    if not isinstance(data, dict):
        return [], [f"{source}: expected a JSON object {{f_comb: {{gender_comb: [template, ...]}}}}"]
    kb = load_kb("kinship")
    problems: list[str] = []
    by_text: dict[tuple[tuple[str, ...], str], set[str]] = {}
    for f_comb, by_gender in data.items():
        clause, problem = _clause(str(f_comb))
        if problem:
            problems.append(f"{source}: {problem}")
            continue
        if not isinstance(by_gender, dict):
            problems.append(f"{source}: {f_comb}: expected an object keyed by gender_comb")
            continue
        word_genders = [GENDERS[kb.parse_word(w)[1]] for w in clause]
        for gender_comb, texts in by_gender.items():
            where = f"{source}: {f_comb} / {gender_comb}"
            genders = [g.strip().lower() for g in str(gender_comb).split("-")]
            if len(genders) != len(clause) + 1 or any(g not in GENDERS for g in genders):
                problems.append(f"{where}: gender_comb needs {len(clause) + 1} genders (male/female)")
                continue
            if genders[1:] != word_genders:
                problems.append(f"{where}: gender_comb disagrees with the words' genders {word_genders}")
                continue
            if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
                problems.append(f"{where}: expected a list of template strings")
                continue
            for n, raw in enumerate(texts):
                text, problem = _translate(raw, genders)
                if problem:
                    problems.append(f"{where} #{n}: {problem}")
                    continue
                by_text.setdefault((clause, text), set()).add(genders[0])
    templates = []
    for (clause, text), heads in by_text.items():
        gender = "any" if len(heads) == 2 else next(iter(heads))
        templates.append(Template(template_id(clause, gender, text), clause, gender, text, source))
    return templates, problems


def read_amt(path: str | Path) -> tuple[list[Template], list[str]]:
    """Read one AMT JSON file: (templates, problems), problems including a parse error."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return [], [f"{path}: cannot read JSON: {exc}"]
    return parse_amt(data, str(path))


def load_amt(path: str | Path) -> list[Template]:
    """Read one AMT JSON file; raise AmtFormatError naming the first problem."""
    templates, problems = read_amt(path)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise AmtFormatError(problems[0] + more)
    return templates


def amt_pair(path: str | Path) -> tuple[Path, Path] | None:
    """The (train, test) files when ``path`` names a holdout pair, else None.

    ``X.train.json`` or ``X.test.json`` names the pair when its twin exists; ``X.json``
    names it when it does not exist itself but both twins do.
    """
    p = Path(path)
    name = p.name
    for suffix in (".train.json", ".test.json"):
        if name.endswith(suffix):
            stem = name[: -len(suffix)]
            break
    else:
        if not name.endswith(".json") or p.exists():
            return None
        stem = name[: -len(".json")]
    train, test = p.with_name(f"{stem}.train.json"), p.with_name(f"{stem}.test.json")
    return (train, test) if train.is_file() and test.is_file() else None
