"""The checks of rules 4-7 and 9 on the statements the shapes read: each fact of the clause told
with both its people (rule 9), each statement true of the clause and pointing the right way
(rules 5 and 6), and no wording that reads as a step-family (rule 7)."""
from __future__ import annotations

from clutrr.render.shapes.reader import Reader
from clutrr.render.shapes.words import MEETING, OTHER, Flag, Statement


def ownership(r: Reader, statements: list[Statement]) -> None:
    """Rule 9: each fact of the clause is told with both its people ("{A}'s father {B}",
    "{B.his} son {A}", "{A} married {B}"). A fact told only by a role noun ("{B}, a
    father-in-law who ...", "the husband") or not told at all is flagged, and so is a
    relation noun set off after something that is not a person (a dangling appositive)."""
    f = r.facts
    owned: set[frozenset[int]] = set()
    roles: dict[frozenset[int], Statement] = {}
    for st in statements:
        y = st.referent
        if st.shape == "chain":
            m = chain_middle(r, st)
            if m >= 0:
                owned.update((frozenset((st.possessors[0], m)), frozenset((m, y))))
            elif _chain_composes(r, st) and frozenset((st.possessors[0], y)) in map(frozenset, f.rel):
                owned.add(frozenset((st.possessors[0], y)))
            continue
        for x in st.possessors:
            if f.rel.get((x, y)) == st.pred or ((x, y) in f.rel and f.rel.get((y, x)) == st.pred):
                owned.add(frozenset((x, y)))  # a fact told the wrong way round is rule 5's
        if not st.possessors:
            for (x, z), p in f.rel.items():
                if z == y and p == st.pred:
                    roles.setdefault(frozenset((x, z)), st)
    owned |= _siblings_by_parent(r, statements)
    cousins = _grandchildren_of_one(r, statements)
    for a, b in r.dangling:
        r.flags.append(Flag("9", f"{r.toks[b].low!r} is set off after something that is not a person: "
                                    "it attaches to no one named (dangling appositive)", r.quote(a - 2, b + 2),
                               kind="dangling"))
    for i in range(len(f.genders) - 1):
        pair = frozenset((i, i + 1))
        if pair in owned:
            continue
        word = f.kb.word(f.rel[(i, i + 1)], f.genders[i + 1])
        fact = f"{r.name(i + 1)} is {r.name(i)}'s {word}"
        if pair in roles:
            st = roles[pair]
            r.flags.append(Flag("9", f"{fact}, but the text only calls {r.name(st.referent)} "
                                        f"'{st.word}' without saying whose (role-only)", r.quote(*st.span),
                                   kind="role-only"))
            continue
        preds = {f.rel[(i, i + 1)], f.rel.get((i + 1, i), -3)}
        told = {j for st in statements for j in range(st.span[0], st.span[1] + 1) if r.toks[j].low == st.word}
        bare = [j for j, t in enumerate(r.toks) if t.kind == "word" and t.low in r.lex
                and r.lex[t.low][0] in preds and j not in told]
        if bare:
            r.flags.append(Flag("9", f"{fact}, but {r.toks[bare[0]].low!r} names no owner (role-only)",
                                   r.quote(bare[0] - 2, bare[0] + 1), kind="role-only"))
        elif pair in cousins:
            r.flags.append(Flag("9", f"{fact}, but the text tells both only as grandchildren of one "
                                        "person, who may be cousins", r.quote(*cousins[pair].span),
                                   kind="unstated"))
        else:
            r.flags.append(Flag("9", f"{fact} is not stated in a shape the checker reads", r.quote(0, 6),
                                   drops=r.slot_bank, kind="unstated"))


def _grandchildren_of_one(r: Reader, statements: list[Statement]) -> dict[frozenset[int], Statement]:
    """Pairs of the clause told as grandchildren of one person ("her grandsons {C} and {D}"),
    with a statement telling one of them: siblings and cousins alike fit such a text."""
    f = r.facts
    by_grandparent: dict[int, list[tuple[int, Statement]]] = {}
    for st in statements:
        name = f.kb.predicates[st.pred].name if st.pred >= 0 else ""
        if name == "grandchild" and len(st.possessors) == 1:
            by_grandparent.setdefault(st.possessors[0], []).append((st.referent, st))
        elif name == "grandparent" and len(st.possessors) == 1:
            by_grandparent.setdefault(st.referent, []).append((st.possessors[0], st))
    out: dict[frozenset[int], Statement] = {}
    for kids in by_grandparent.values():
        for a, st in kids:
            for b, _ in kids:
                if a != b:
                    out.setdefault(frozenset((a, b)), st)
    return out


def _siblings_by_parent(r: Reader, statements: list[Statement]) -> set[frozenset[int]]:
    """Sibling facts of the clause told by telling both people as children of one person
    ("her twin daughters, {C} and {B}", "her son {B} and her daughter {C}") or as siblings
    of one person ("{C} sided with her sisters, {D} and {A}, against her brother {B}"):
    in the world model siblings share both parents, so the fact between them has one
    reading."""
    f = r.facts
    groups: list[set[int]] = []
    by_parent: dict[int, set[int]] = {}
    for st in statements:
        name = f.kb.predicates[st.pred].name if st.pred >= 0 else ""
        if name == "child" and st.shape not in ("mutual", "pair"):
            for parent in st.possessors:
                by_parent.setdefault(parent, set()).add(st.referent)
        elif name == "parent" and len(st.possessors) == 1 and st.shape not in ("mutual", "pair"):
            by_parent.setdefault(st.referent, set()).add(st.possessors[0])
        elif name == "sibling":
            groups += [{x, st.referent} for x in st.possessors]
    groups += by_parent.values()
    merged: list[set[int]] = []
    for g in groups:
        for m in [m for m in merged if m & g]:
            g = g | m
            merged.remove(m)
        merged.append(set(g))
    out = set()
    for kids in merged:
        for a in kids:
            for b in kids:
                if a < b and (a, b) in f.rel and f.kb.predicates[f.rel[(a, b)]].name == "sibling":
                    out.add(frozenset((a, b)))
    return out


def step_contrast(r: Reader, statements: list[Statement]) -> None:
    """Rule 7: wording that sets a couple's child apart from one of them reads as a
    step-family, which the world model does not have: the spouse and a child told by two
    pronouns of different partners in one sentence ("{A.his} wife {B} ... {B.his} son
    {C}"), or two children told each as a different partner's anywhere in the text
    ("{B}'s daughter {A}. {C}'s daughter {D} ..."). A child told from one side only ("{B}
    and her husband {A} called on her daughter {C}") has one reading in the world model
    (every child has two married parents) and is not flagged here."""
    f = r.facts
    told: dict[int, set[int]] = {}  # child -> the parents it is told as the child of, one at a time
    children: list[tuple[int, int, Statement]] = []
    for st in statements:
        if len(st.possessors) != 1 or st.shape not in ("after", "apposition", "copula"):
            continue
        name = f.kb.predicates[st.pred].name
        if name in ("child", "parent"):
            parent, child = (st.possessors[0], st.referent) if name == "child" else (st.referent, st.possessors[0])
            told.setdefault(child, set()).add(parent)
            children.append((parent, child, st))
    for sp in statements:
        if sp.shape not in ("after", "apposition") or len(sp.possessors) != 1 or not _by_pronoun(r, sp) \
                or f.kb.predicates[sp.pred].name != "spouse":
            continue
        x, y = sp.possessors[0], sp.referent
        for ch in statements:
            if ch.possessors == (y,) and _by_pronoun(r, ch) and ch.referent not in (x, y) \
                    and f.kb.predicates[ch.pred].name == "child" \
                    and r.sentence_of(ch.span[0]) == r.sentence_of(sp.span[0]):
                r.flags.append(Flag("7", f"{r.name(y)} is told as {r.name(x)}'s spouse and "
                                            f"{r.name(ch.referent)} as {r.name(y)}'s child by two "
                                            "pronouns in one sentence: it reads as a step-family",
                                       r.quote(sp.span[0], ch.span[1]), kind="world"))
                return
    for a, b in f.couples:
        ones = [(c, st) for p, c, st in children if p == a and b not in told[c]]
        others = [(c, st) for p, c, st in children if p == b and a not in told[c]]
        for c1, st1 in ones:
            for c2, st2 in others:
                if c1 != c2 and c1 not in (a, b) and c2 not in (a, b):
                    first, second = sorted((st1, st2), key=lambda st: st.span[0])
                    r.flags.append(Flag("7", f"{r.name(c1)} is told as {r.name(a)}'s child and "
                                                f"{r.name(c2)} as {r.name(b)}'s, though {r.name(a)} "
                                                f"and {r.name(b)} are a couple: it reads as a step-family",
                                           r.quote(first.span[0], second.span[1]), kind="world"))
                    return


def _by_pronoun(r: Reader, st: Statement) -> bool:
    """Whether a statement tells its owner by a possessive pronoun ("{A.his} wife {B}", "{B},
    {A.his} wife, ...")."""
    if st.shape == "apposition":
        return any(t.kind == "pron" and t.form == "his" for t in r.toks[st.span[0]:st.span[1] + 1])
    return r.toks[st.span[0]].kind == "pron"


def _couple_child(r: Reader, a: int, b: int) -> int:
    """A person of the clause who is the child of both a and b, or -1."""
    f = r.facts
    for c in range(len(f.genders)):
        names = [f.kb.predicates[p].name if p >= 0 else "" for p in
                 (f.rel.get((x, c), f.implied.get((x, c), -1)) for x in (a, b))]
        if c not in (a, b) and names == ["child", "child"]:
            return c
    return -1


def parent_spouse(r: Reader, statements: list[Statement]) -> None:
    """Rule 7: a couple's child told only through one parent's spouse reads as a step-family:
    the parent told by the child's pronoun and, later in the same sentence, the other parent
    told by the parent's pronoun as that parent's spouse ("{A} phoned {A.his} dad {B}, and {B.his} wife {C}
    answered"), or the couple's meeting told beside their child ("{B}, the father of {A},
    met a skater ... {B}'s wife {C} is that skater")."""
    f = r.facts
    for a, b in f.couples:
        child = _couple_child(r, a, b)
        if child < 0:
            continue
        for x, y in ((a, b), (b, a)):
            as_parent = [st for st in statements if f.kb.predicates[st.pred].name in ("child", "parent")
                         and {x, child} == ({st.referent} | set(st.possessors)) and len(st.possessors) == 1]
            told_y = any({y, child} == ({st.referent} | set(st.possessors)) for st in statements)
            for sp in statements:
                if told_y or sp.possessors != (x,) or sp.referent != y or sp.shape not in ("after", "apposition") \
                        or not _by_pronoun(r, sp) or f.kb.predicates[sp.pred].name != "spouse":
                    continue
                hit = next((st for st in as_parent if r.sentence_of(st.span[0]) == r.sentence_of(sp.span[0])
                            and st.span[0] < sp.span[0] and st.possessors == (child,)
                            and r.toks[st.span[0]].kind == "pron"), None)
                if hit is not None:
                    r.flags.append(Flag("7", f"{r.name(y)} is told only as the spouse of "
                                                f"{r.name(child)}'s parent {r.name(x)}, by a pronoun: "
                                                "it reads as a step-parent",
                                           r.quote(hit.span[0], sp.span[1]), kind="world"))
                    return
        for i, t in enumerate(r.toks):
            if t.kind == "word" and t.low in MEETING and any(
                    u.kind in ("ent", "pron") and u.ent in (a, b) for u in r.toks[r.clause_start(i):i + 3]):
                r.flags.append(Flag("7", f"the meeting of {r.name(a)} and {r.name(b)} is told beside "
                                            f"their child {r.name(child)}: it reads as a step-family",
                                       r.quote(r.clause_start(i), min(i + 2, len(r.toks) - 1)),
                                       kind="world"))
                return


def check(r: Reader, statements: list[Statement]) -> None:
    """Rules 5 and 6 (and 7 for a child told as one parent's alone): each statement must be a
    fact of the clause, stated or implied, pointing the right way, with a word of the right gender."""
    f = r.facts
    r.married = {frozenset((st.possessors[0], st.referent)) for st in statements if st.shape == "marry"}
    for st in statements:
        y = st.referent
        what = r.quote(*st.span)
        if y < 0 or y >= len(f.genders):
            continue
        if y in st.possessors:
            continue
        if st.shape == "chain":
            _check_chain(r, st, what)
            continue
        if not st.possessors:
            if st.pred != OTHER:
                _check_role(r, st, what)
            continue
        if st.gender is not None and st.gender != f.genders[y]:
            r.flags.append(Flag("6", f"{st.word!r} does not fit the gender of {r.name(y)}", what))
            continue
        if st.pred == OTHER:
            r.flags.append(Flag("6", f"names a relation outside the KB ({st.word!r})", what))
            continue
        for x in st.possessors:
            if x == y or x < 0 or x >= len(f.genders):
                continue
            _check_pair(r, st, x, y, what)


def chain_middle(r: Reader, st: Statement, reverse: bool = False) -> int:
    """The person between the ends of a possessive chain that fits the clause's facts, or -1."""
    f = r.facts
    x, y = st.possessors[0], st.referent
    if reverse:
        x, y = y, x
    for m in range(len(f.genders)):
        if m not in (x, y) and f.rel.get((x, m)) == st.links[0] and f.rel.get((m, y)) == st.links[1] \
                and (reverse or st.links[2] < 0 or f.genders[m] == st.links[2]):
            return m
    return -1


def _chain_composes(r: Reader, st: Statement) -> bool:
    """Whether a chain through someone outside the clause ("{B}'s wife's mother {A}" for
    "A is B's mother-in-law") composes, in the KB, to the fact between its ends."""
    f = r.facts
    x, y = st.possessors[0], st.referent
    if (x, y) not in f.rel:
        return False  # the person between is one of the clause's: the chain must go through them
    composed = f.kb.compose(st.links[0], st.links[1])
    return composed >= 0 and composed == f.rel[(x, y)]


def _check_chain(r: Reader, st: Statement, what: str) -> None:
    """"X's R1's R2 Y" must follow two facts of the clause, through the person between."""
    f = r.facts
    y = st.referent
    said = f"says {r.name(y)} is {r.name(st.possessors[0])}'s {st.word}"
    if OTHER in st.links:
        r.flags.append(Flag("6", f"names a relation outside the KB ({st.word!r})", what))
    elif st.gender is not None and st.gender != f.genders[y]:
        r.flags.append(Flag("6", f"{st.word!r} does not fit the gender of {r.name(y)}", what))
    elif chain_middle(r, st) >= 0 or _chain_composes(r, st):
        return
    elif chain_middle(r, st, reverse=True) >= 0:
        r.flags.append(Flag("5", f"{said}: the chain points the other way", what))
    else:
        r.flags.append(Flag("6", f"{said}, which the clause does not say", what))


def _check_role(r: Reader, st: Statement, what: str) -> None:
    """A relation noun beside a name, its possessor unsaid: it must be that person's
    relation to someone of the clause, stated or implied ("spends time with daughter {C}"
    where {C} is the first person's daughter through the clause). One held only by
    another person of the clause is attached to the wrong name (rule 5); one nobody holds
    may concern someone unnamed."""
    f = r.facts
    y = st.referent
    if any(p == st.pred for (x, z), p in f.rel.items() if z == y):
        if st.gender is not None and st.gender != f.genders[y]:
            r.flags.append(Flag("6", f"{st.word!r} does not fit the gender of {r.name(y)}", what))
        return
    if any(p == st.pred for (x, z), p in f.implied.items() if z == y):
        r.flags.append(Flag("6", f"names a relation the clause leaves implicit ({st.word!r})", what,
                               drops=r.slot_bank))
        return
    holders = [z for (x, z), p in f.rel.items() if p == st.pred and (st.gender is None or f.genders[z] == st.gender)]
    if holders:
        r.flags.append(Flag("5", f"{st.word!r} stands beside {r.name(y)}, but it is "
                                    f"{r.name(holders[0])} who is the {st.word}", what))


def _check_pair(r: Reader, st: Statement, x: int, y: int, what: str) -> None:
    f = r.facts
    stated = (f"says {r.name(x)} married {r.name(y)}" if st.shape in ("marry", "married")
              else f"says {r.name(y)} is {r.name(x)}'s {st.word}")
    if f.rel.get((x, y)) == st.pred:
        _check_one_parent(r, st, x, y, what)
        return
    if (x, y) in f.rel:
        if f.rel.get((y, x)) == st.pred:
            r.flags.append(Flag("5", f"{stated}: the fact points the other way", what))
        else:
            r.flags.append(Flag("6", f"{stated}, which the clause does not say", what))
        return
    if f.implied.get((x, y)) == st.pred:
        if len(st.possessors) < 2:
            answer = {x, y} == {0, len(f.genders) - 1}  # the first-to-last relation gives the answer away
            r.flags.append(Flag("6", f"{stated}: names a relation the clause leaves implicit", what,
                                   drops=r.slot_bank or answer))
        return
    if f.implied.get((y, x)) == st.pred and f.implied.get((x, y)) != st.pred:
        r.flags.append(Flag("5", f"{stated}: the implied relation points the other way", what))
        return
    r.flags.append(Flag("6", f"{stated}, which the clause does not say", what))


def _check_one_parent(r: Reader, st: Statement, x: int, y: int, what: str) -> None:
    """Rule 7: the child of one member of a couple the clause names, told as that member's
    alone beside the couple's marriage told as an event ("{A} married {B} ... {B}'s son
    {C}": the son reads as older than the marriage). In a slot bank also where "their"
    could say it without naming the first-to-last relation (a writing rule): in the world
    model every child has two married parents, so "{B} and her husband {A} ... her
    daughter {C}" has one reading there (C is A's daughter too) and a crowd text that
    only lacks "their" is kept."""
    if len(st.possessors) > 1 or st.shape in ("marry", "married"):
        return
    name = r.facts.kb.predicates[st.pred].name
    if name not in ("child", "parent"):
        return
    parent, child = (x, y) if name == "child" else (y, x)
    spouse = r.facts.spouse_of(parent)
    if spouse < 0 or spouse == child:
        return
    last = len(r.facts.genders) - 1
    their_fits = r.slot_bank and {spouse, child} != {0, last}
    if their_fits or frozenset((parent, spouse)) in r.married:
        how = "write 'their'" if their_fits else "the marriage is told as an event"
        r.flags.append(Flag("7", f"{r.name(child)} reads as the child of {r.name(parent)} alone, "
                                    f"though {r.name(spouse)} is {r.name(parent)}'s spouse ({how})", what))
