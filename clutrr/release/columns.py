"""What each column of a release's Parquet files holds, and how v1's columns map onto them:
the card's field descriptions and its v1 -> release table."""
from __future__ import annotations

from clutrr.io.schema import Type
from clutrr.io.v1_view import LABELS, RENAMED, SHARED, V1_FIELDS, V1_LABELS, view_fields

DESCRIPTIONS = {
    "id": "the story's id (a UUID)",
    "story": "the story, names in [brackets]; in noisy tasks with the noise facts' sentences",
    "query": "the two names asked about, a Python tuple literal `('Head', 'Tail')`",
    "target": f"the integer label of `target_text` in v1's label list ({len(V1_LABELS)} words, `aunt` 0 ... "
              f"`sister-in-law` 20); `brother-in-law`, which v1's list lacks, is {LABELS.index('brother-in-law')}",
    "target_text": "the answer: what Tail is to Head (`father`: Tail is Head's father)",
    "clean_story": "the chain's sentences alone, in chain order",
    "proof_state": "a Python literal: a list of dicts, each from a derived fact `(head, relation, tail)` to the two "
                   "facts it is composed from, the query's fact first",
    "f_comb": "the chain's relation words joined by `-`",
    "task_name": "`task_T.k`: task T (1 no noise, 2 supporting, 3 irrelevant, 4 disconnected facts, 5 all three, "
                 "6 memory, 8 connected distractors; task 7 files hold task 1 and 6 rows) and the chain's length k",
    "story_edges": "a list literal of `(head, tail)` index pairs into `genders`, the chain's facts first",
    "edge_types": "a list literal of the relation word of each story edge, noise facts included (in "
                  "`v1_rob_train_clean_23_test_all_23` the chain's facts only, as in the original files)",
    "query_edge": "a tuple literal `(head, tail)` of indices into `genders`",
    "genders": "`Name:gender,Name:gender,...` in index order",
    "task_split": "`train` or `test`: the generator's split whose templates and patterns the row uses "
                  "(`train` for validation rows)",
    "split": "the same as `task_split`",
    "task": "the task number T of `task_name`",
    "k": "the chain's length (facts composed to answer)",
    "noise": "the noise of the story: `none`, `supporting`, `irrelevant`, `disconnected`, `all` or `connected`",
    "seed": "the generation seed of the row's file (with `k`, `noise`, `split` and `index` it fixes the story)",
    "index": "the row's number among the generated rows of its k, noise and split",
    "people": "the story's people in index order: `name` and `gender`",
    "edges": "every stated fact: `head` and `tail` (indices into `people`), `relation` (the word), `predicate` "
             "(the KB's gender-neutral predicate) and `noise` (`none` for a chain fact, else the noise kind)",
    "query_people": "`[head, tail]`, indices into `people` (the record's `query`); in a question-form "
                    "configuration the people its question names, `[X]` or `[X, Y]`",
    "target_word": "the answer word, the same as `target_text` (the record's `target`); in a question-form "
                   "configuration the relation word its question asks about",
    "target_predicate": "the answer's gender-neutral KB predicate",
    "pattern": "the chain's relation words joined by `-` (the same as `f_comb`)",
    "pattern_heldout": "whether the chain's pattern is held out of training (only test rows have true)",
    "proof": "the proof: for each composition, the derived fact (`goal`), the KB rule's two predicates (`rule`) "
             "and the two facts it is composed from (`by`)",
    "text_target": "the sentence that states the answer, as a one-element list",
    "pieces": "the story's sentences in order: each one's `template` and the indices of the `edges` it states",
    "target_template": "the template of `text_target`",
    "form": "(question-form configurations) the question's form: `person`, `people`, `count` or `yesno`",
    "question": "(question-form configurations) the question asked, e.g. `Who is X's aunt?`",
    "answer": "(question-form configurations) its answer, proved from the story's facts: a name (`person`), a list "
              "of names (`people`), an integer (`count`), `yes` or `no` (`yesno`)",
    "kin_type": "(kinship configurations) the answer person's shortest genealogical path from the person asked "
                "about, in the letters F M B Z S D H W (`FZS`: the father's sister's son)",
    "glossary": "(kinship configurations) a definition of each of the system's terms the story uses",
    "context": "(long-context configurations) the text's length in words, the depth asked, where the chain's "
               "sentences are (word offsets) and the padding's size",
    "difficulty": "(hard tier) the story's facts, its distractor facts with an end on the chain, and the simple "
                  "paths of at most `path_max_length` (k + 2) facts between the query's people, counted up to "
                  "10,000 paths or 200,000 search steps (`paths_capped`: stopped there, a lower bound)",
}
UNDESCRIBED = "a field of the generator's record (see `clutrr.io.schema`)"


def _type(t: Type) -> str:
    if isinstance(t, str):
        return {"str": "string", "int": "int64", "int32": "int32", "bool": "bool"}[t]
    if isinstance(t, list):
        return f"list of {_type(t[1])}"
    return "struct"


QUESTION_FIELDS = {"form": "string", "question": "string", "answer": "string, list of string or int64, by form"}


def field_table(forms: bool = False, kinship: bool = False) -> list[str]:
    """One row per Parquet column: name, type, meaning (v1's 14 first); with ``forms`` the
    columns of question-form configurations too, with ``kinship`` a kinship system's two."""
    out = ["| column | type | meaning |", "|---|---|---|"]
    for name, t in view_fields(context=True, kinship=kinship, difficulty=True).items():
        out.append(f"| `{name}` | {_type(t)} | {DESCRIPTIONS.get(name, UNDESCRIBED)} |")
    if forms:
        out += [f"| `{name}` | {t} | {DESCRIPTIONS[name]} |" for name, t in QUESTION_FIELDS.items()]
    return out


V1_NOTES = {
    "target": "same type and labels; one more label, `brother-in-law` = 21, which the original never asks",
    "edge_types": "in noisy files also types the noise facts (`v1_rob_train_clean_23_test_all_23`: chain only, "
                  "as in v1)",
    "task_name": "tasks 5 to 7 are new",
    "proof_state": "the same form: one dict per composition, the query's first",
}


def v1_table() -> list[str]:
    """v1's columns and where each is in the release, then the record's columns v1 lacks."""
    out = ["| v1 column | v1 type | release column | type | note |", "|---|---|---|---|---|"]
    for name, t in V1_FIELDS.items():
        out.append(f"| `{name}` | {_type(t)} | `{name}` | {_type(t)} | {V1_NOTES.get(name, 'same meaning')} |")
    renamed = ", ".join(f"`{old}` as `{new}`" for old, new in RENAMED.items())
    out += ["", f"The generator's record adds the columns after v1's (`id`, `{'`, `'.join(SHARED[1:])}` are "
            f"shared with v1); two of its fields would collide with v1's names and are renamed: {renamed}."]
    return out
