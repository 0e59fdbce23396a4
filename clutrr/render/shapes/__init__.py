"""The checker's reader as a grammar: each sentence shape it reads is a small named rule with its
examples, in one module per family of shapes, and :mod:`clutrr.render.shapes.registry` lists them
in the order the reader tries them.

- :mod:`~clutrr.render.shapes.groups`: several people and one noun ("{C} and {D}, son and
  father", "his mother and father, {B} and {C}", "the three sisters {C}, {B} and {D}");
- :mod:`~clutrr.render.shapes.possessive`: who owns the noun, written before it ("X's R Y",
  "{X.his} R Y", "X and Z's R Y", "their R", "whose R", "my R", "X's R1's R2 Y");
- :mod:`~clutrr.render.shapes.having`: an owner who has the noun ("{B} has a son, {C}", "They
  had a son", "the father of a daughter named {A}");
- :mod:`~clutrr.render.shapes.prepositional`: the owner after the noun ("the R of X", "R to X");
- :mod:`~clutrr.render.shapes.appositive` and :mod:`~clutrr.render.shapes.copular`: where the
  named person is ("R Y", "her father, {A},", "Y, X's R", "Y is X's R", "X and Y are Rs");
- :mod:`~clutrr.render.shapes.roles`: a noun with a person but no owner ("Y, a R who ...",
  "Aunt Y", "with daughter {C}");
- :mod:`~clutrr.render.shapes.marriage`: events ("X married Y", "{B} gave birth to {A}").

:mod:`~clutrr.render.shapes.reader` resolves pronouns, :mod:`~clutrr.render.shapes.checks` checks the statements read;
:mod:`~clutrr.render.shapes.words` holds the tokens, word lists and facts.
"""
