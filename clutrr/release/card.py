"""The dataset card (``README.md``): a YAML header that HuggingFace ``datasets`` reads (every
configuration, its data files and typed features, its split sizes) and the text a reader needs.

The header is written by hand from the schema (:mod:`clutrr.io.schema`), so its bytes depend
on no YAML library; every string is a JSON string, which YAML reads as a double-quoted scalar.
"""
from __future__ import annotations

import json
from pathlib import Path

from clutrr import __version__
from clutrr.io.schema import Type
from clutrr.io.v1_view import view_fields
from clutrr.release.build import BuildOptions, SplitFile, config_seed, generate_command
from clutrr.release.columns import field_table, v1_table
from clutrr.release.compare import comparability_section
from clutrr.release.configs import ReleaseConfig
from clutrr.release.reference import reference_tables
from clutrr.render.templates import TEST_SHARE
from clutrr.story.generator import GeneratorConfig

DTYPES = {"str": "string", "int": "int64", "int32": "int32", "bool": "bool"}


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def yaml_features(fields: dict[str, Type], indent: int) -> list[str]:
    """``features:`` entries in the format of ``datasets`` (``name`` with ``dtype``, ``list`` or ``struct``)."""
    out = []
    pad = " " * indent
    for name, t in fields.items():
        out.append(f"{pad}- name: {_q(name)}")
        out += _yaml_type(t, indent + 2)
    return out


def _yaml_type(t: Type, indent: int) -> list[str]:
    pad = " " * indent
    if isinstance(t, str):
        return [f"{pad}dtype: {DTYPES[t]}"]
    if isinstance(t, dict):
        return [f"{pad}struct:", *yaml_features(t, indent)]
    inner = t[1]
    if isinstance(inner, str):
        return [f"{pad}list: {DTYPES[inner]}"]
    if isinstance(inner, dict):
        return [f"{pad}list:", *yaml_features(inner, indent)]
    return [f"{pad}list:", *_yaml_type(inner, indent + 2)]


def has_context(config: ReleaseConfig) -> bool:
    """Whether the configuration's records carry the long-context field."""
    return any(p.context_words for p in config.parts)


def has_difficulty(config: ReleaseConfig) -> bool:
    """Whether the configuration's records carry the difficulty field."""
    return any(p.difficulty for p in config.parts)


def yaml_header(built: list[tuple[ReleaseConfig, list[SplitFile]]], figures: dict[str, dict]) -> list[str]:
    """The card's YAML header (between ``---`` lines)."""
    lines = ["---", "license: mit", "language:", "- en", f"pretty_name: {_q('CLUTRR, sound release')}",
             "task_categories:", "- question-answering", "- text-classification",
             "tags:", "- reasoning", "- kinship", "- systematic-generalization", "- long-context", "configs:"]
    for n, (config, files) in enumerate(built):
        lines.append(f"- config_name: {_q(config.name)}")
        if n == 0:
            lines.append("  default: true")
        lines.append("  data_files:")
        for split in ("train", "validation", "test"):
            paths = [f"{config.name}/{f.stem}.parquet" for f in files if f.split == split]
            if paths:
                lines += [f"  - split: {split}", "    path:", *(f"    - {_q(p)}" for p in paths)]
    lines.append("dataset_info:")
    for config, files in built:
        lines += [f"- config_name: {_q(config.name)}", "  features:",
                  *yaml_features(view_fields(has_context(config), kinship=bool(config.kinship),
                                             question=config.question(), difficulty=has_difficulty(config)), 2),
                  "  splits:"]
        for split in ("train", "validation", "test"):
            rows = figures[config.name]["rows"][split]
            if rows:
                lines += [f"  - name: {split}", f"    num_bytes: {figures[config.name]['arrow_bytes'][split]}",
                          f"    num_examples: {rows}"]
    return lines + ["---"]


def _size(n: int) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _tasks(files: list[SplitFile], split: str) -> str:
    stems = [f.stem.rpartition("_")[0] for f in files if f.split == split]
    return ", ".join(stems) if stems else "—"


def configs_table(built: list[tuple[ReleaseConfig, list[SplitFile]]], figures: dict[str, dict]) -> list[str]:
    """One row per configuration: what it trains and tests on, its sizes and purpose."""
    out = ["| configuration | original | train & validation | test | rows (train / validation / test) | purpose |",
           "|---|---|---|---|---|---|"]
    for config, files in built:
        rows = figures[config.name]["rows"]
        out.append(f"| `{config.name}` | {config.original or 'ours'} | {_tasks(files, 'train')} | "
                   f"{_tasks(files, 'test')} | {rows['train']} / {rows['validation']} / {rows['test']} | "
                   f"{config.purpose} |")
    return out


def _holdout() -> str:
    shares = ", ".join(f"{100 * share:.0f}%" for share in TEST_SHARE.values())
    sizes = "/".join(str(n) for n in TEST_SHARE)
    return (f"{shares} of the templates of {sizes}-fact clauses (so test stories are told in sentences no training "
            f"story uses), {100 * GeneratorConfig().holdout:.0f}% of the relation patterns of k > 2, and every "
            "length not trained on")


def _code(source: dict) -> str:
    if not source.get("commit"):
        return f"clutrr {__version__} (installed, not a git checkout: no commit recorded)"
    state = "a clean checkout" if source.get("tree_clean") else "a checkout with uncommitted changes"
    tag = f", tag `{source['tag']}`" if source.get("tag") else ""
    return f"clutrr {__version__} at commit `{source['commit']}`{tag} ({state})"


def how_made(built: list[tuple[ReleaseConfig, list[SplitFile]]], options: BuildOptions, command: str,
             writer: str, source: dict) -> list[str]:
    """The command, version, commit, seed and each configuration's generation commands."""
    out = ["## How it was made", "",
           f"Built by {_code(source)} with one command (no other input: the generator, its KB "
           "`kb_rules/kinship.yaml` and its template bank `paraphrases/` ship with the package):", "",
           "```sh", command, "```", "",
           f"Seed {options.seed}, scale {options.scale:g}. Each configuration is generated with a seed of its own "
           "(derived from the release seed and its name), so configurations share no stories; its files are the "
           "output of the `clutrr generate` commands below, after which the training file is cut into train and "
           "validation by story: the validation rows are those whose id has the smallest seeded hash, in file "
           "order. A row's `split` field (`task_split` in CSV) names the generator's split whose templates and "
           f"patterns it uses, so validation rows say `train`. Test files hold out what `clutrr generate` holds out: "
           f"{_holdout()}. In configurations marked *chain types* the files' `edge_types` then keep the chain's "
           "facts alone.",
           "", "| configuration | seed | commands |", "|---|---|---|"]
    for config, _ in built:
        cmds = "<br>".join(f"`{generate_command(config, p, options.seed, options.scale)}`" for p in config.parts)
        chain = " (*chain types*)" if config.edge_types == "chain" else ""
        out.append(f"| `{config.name}`{chain} | {config_seed(options.seed, config.name)} | {cmds} |")
    out += ["", f"Parquet files are written by {writer} (zstd, row groups of 10,000 rows) and hold the columns of "
            "HuggingFace `CLUTRR/v1` followed by the generator's record (below); CSV files have the original CLUTRR "
            "columns and a leading index column, as `clutrr generate` writes them.", ""]
    return out


def verification_table(built: list[tuple[ReleaseConfig, list[SplitFile]]], figures: dict[str, dict]) -> list[str]:
    """Verification, leakage and audit figures per configuration."""
    out = ["## Verification", "",
           "Every row of every file is re-derived by `clutrr verify` (the closure of the row's typed facts under "
           "the KB) before the release is written; a build with one row that is not uniquely entailed fails. "
           "*in two splits*: stories that appear in two of train, validation and test; *held-out in training*: "
           "training or validation rows whose relation pattern is held out for test; *test templates in "
           "training*: templates of test stories that training stories also use. The artifact audit "
           "(`clutrr audit`) scores the test split with baselines that cannot reason: the training split's "
           "majority label, the split's own majority share, a query-only Naive Bayes (query names, genders and "
           "mention ranks), the gender-prior ceiling (the best rule on the two query genders) and a story-bag "
           "Naive Bayes (words without order); accuracies in %.", "",
           "| configuration | rows verified | uniquely entailed | in two splits | held-out in training | "
           "test templates in training | majority | own maj. | query-only | gender ceiling | story-bag |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for config, _ in built:
        f = figures[config.name]
        rows, leak, audit = sum(f["verify"].values()), f["leakage"], f["audit"]
        cells = ("— | " * 5)[:-3] if audit is None else " | ".join(_pct(audit[key]) for key in (
            "majority", "own_majority", "query_only", "gender_ceiling", "story_bag"))
        out.append(f"| `{config.name}` | {rows} | {f['verify']['entailed']} | {leak['stories_in_two_splits']} | "
                   f"{leak['heldout_patterns_in_training']} | {leak['test_templates_in_training']} of "
                   f"{leak['test_templates']} | {cells} |")
    if any(figures[c.name]["audit"] is None for c, _ in built):
        out += ["", "—: no training split to train the audit's baselines on (test only; the test files of "
                "`ctx_depth_k4_w4000` repeat each story at several depths, so cross-validating them would measure "
                "the repetition)."]
    return out + [""]


def sizes_table(built: list[tuple[ReleaseConfig, list[SplitFile]]], figures: dict[str, dict]) -> list[str]:
    """Files and bytes per configuration."""
    out = ["## Sizes", "", "| configuration | files | rows | Parquet | CSV |", "|---|---|---|---|---|"]
    total = {"rows": 0, "parquet": 0, "csv": 0}
    for config, _ in built:
        f = figures[config.name]
        rows = sum(f["rows"].values())
        total["rows"] += rows
        total["parquet"] += f["bytes"]["parquet"]
        total["csv"] += f["bytes"]["csv"]
        out.append(f"| `{config.name}` | {2 * f['files']} | {rows} | {_size(f['bytes']['parquet'])} | "
                   f"{_size(f['bytes']['csv'])} |")
    out.append(f"| all | | {total['rows']} | {_size(total['parquet'])} | {_size(total['csv'])} |")
    return out + [""]


DIFFERENCES = """## What differs from the original release, and why

- **Labels are entailed.** The original generator composed relations with rules that do not hold in every
  family: measured by `clutrr verify` against a sound KB, about 14% of its released targets are not the true
  relation in the family tree, and about 40% of its released test rows are uniquely entailed by their story.
  Here every row is uniquely entailed (table above), under a KB whose rules hold in every family of its world
  model.
- **Our own text.** Stories are rendered from the template bank written for this project (`paraphrases/`), not
  from the crowd-sourced templates of the original; test stories use templates that training stories never use.
- **Typed noise.** Every edge of a story, noise included, has its relation word (`edge_types`; the chain's
  alone in `v1_rob_train_clean_23_test_all_23`), and the records say which facts are noise and of which kind.
- **A validation split held out by story**, taken from the training file, with about the original sizes.
- **Balanced labels**: the generator asks each relation word once in every block of consecutive rows of a file
  (the validation cut keeps train and validation close to balanced).
- **Names in brackets** (`[Name]`), as in the original stories; the original's misspelled words (`neice`) are
  not used.
- **More configurations** (below the six originals in the table): long chains up to k=30, all noise types at
  once, the memory tasks 6 and 7, and long contexts. In the original generator tasks 6 and 7 exist only as
  options that change nothing; here task 6 asks for a relation the story states (the queried pair is one of its
  facts, and the story entails nothing else for it), and task 7 mixes task 6 and task 1 rows in pairs, each row's
  `task_name` saying which it is.
"""

LONG_CONTEXT = """## Long contexts

Configurations `ctx_*` hide a story among true facts about other families, rendered from the same templates,
until the text reaches about the asked number of words (counted by whitespace; no tokenizer is needed). Every
person of such a story has a full name whose surname is drawn at random (no two of the story's people share one);
padding people never share a first name or a surname with the story's people, and the closure of every stated
fact, the padding's included, still gives the query pair exactly its label. The record's
`context` field gives the text's length in words, the depth asked, the word offsets of the first and last word of
the chain's sentences, and the padding's size. Only the story's own facts are listed as edges (the padding is
text), so graph baselines see no difference from the unpadded stories.
"""

HARD = """## The hard tier

`hard_k20to100_d200to1000` is sized past where the other configurations stop: chains of 20, 50 and 100 facts,
each story also holding 200, 500 or 1,000 connected distractors (files `8.k_nN_test`): true facts about
people of the story's own family, each joined to someone already in the story, so the query's two people are
linked by many paths and the answer must be searched for, not read off the only path. Families are windows of
up to 600 people of genealogies of eight generations (about 1,000 people expected); a story names at most as many
people as the name lists hold. The distractors never join two chain people, so the chain stays the shortest account of its
own people; under the sound KB every fact is true and the query pair holds exactly one relation, so the label
is still the only relation the story entails (checked per story, and by `clutrr verify` on every row). Each
row's `difficulty` gives its facts, the distractors with an end on the chain, and the simple paths of at most
k + 2 facts between the query's people (counted up to 10,000 paths or 200,000 search steps;
`paths_capped` says the count stopped there). The grid (3 lengths x 3 distractor counts, 50 stories each) was
chosen to reach 1,000 distractors at k=100 while a full build stays within minutes on one machine.
"""

LIMITATIONS = """## Limitations

- **One world model.** Families follow the KB's world model (`kb_rules/kinship.yaml`): two parents of
  different genders, at most one spouse for life, no divorce, step-, half- or adoptive relations. Labels are
  right in that model, not in every family.
- **Two genders, one name list.** People are male or female, named from the package's first-name lists
  (`clutrr/core/data`).
- **Generated text.** Stories come from a template bank written for this project; they are more regular than
  crowd-written text, and a model may learn the templates. Test stories use templates training stories never
  use, which limits but does not remove this.
- **Kinship only.** The release measures composition of kinship relations; it says nothing of other domains.
- **Not comparable with published CLUTRR figures** without the care described above.
- **Parquet bytes depend on the writer.** Another pyarrow may write other bytes for the same rows; the CSV
  files and the data they hold do not change.
"""


def citation(source: dict, data_fingerprint: str) -> list[str]:
    """How to cite the release: its version, commit and data fingerprint, and the benchmark it follows."""
    commit = source.get("commit") or "none recorded"
    return ["## Licence and citation", "",
            "The stories, templates and labels were written by this project and are released under the MIT licence, "
            "as the generator is; no text of the original release is included. Cite this release by its version, "
            "commit and data fingerprint (the generator's `CITATION.cff` has the same version), and the "
            "benchmark it follows:", "",
            "```bibtex",
            "@misc{clutrr_sound_release,",
            "  title        = {{CLUTRR}, a sound release: kinship reasoning stories with verified labels},",
            "  author       = {{The clutrr maintainers}},",
            f"  note         = {{Built by clutrr {__version__}, commit {commit}; data fingerprint {data_fingerprint}}},",
            f"  version      = {{{__version__}}},",
            "}", "",
            "@inproceedings{sinha2019clutrr,",
            "  title     = {{CLUTRR}: A Diagnostic Benchmark for Inductive Reasoning from Text},",
            "  author    = {Sinha, Koustuv and Sodhani, Shagun and Dong, Jin and Pineau, Joelle and Hamilton, William L.},",
            "  booktitle = {Proceedings of EMNLP-IJCNLP},",
            "  year      = {2019}",
            "}",
            "```", ""]


def fingerprints(data: str, writer: str) -> list[str]:
    """How to check the bytes, and what they depend on."""
    return ["## Fingerprints", "",
            f"Data fingerprint: `{data}`.", "",
            "`release.json` lists the sha256 of every file and the fingerprints of the data, of each configuration "
            "and of the whole folder: the sha256 of `sha256sum`'s output over the files, sorted by path "
            "(`find . -type f ! -name release.json | sed 's|^\\./||' | LC_ALL=C sort | xargs sha256sum | "
            "sha256sum`). The fingerprint cannot cover `release.json`, which holds it; everything else "
            "`release.json` records (version, commit, seed, scale, configurations, figures) is stated in this card, "
            "which it covers. `clutrr release --check DIR --quick` compares every file with the sha256 "
            "`release.json` lists, in seconds; `clutrr release --check DIR` rebuilds the release and names every "
            "file whose bytes differ. The bytes depend on the clutrr version, the seed, the scale and the configurations, not on "
            f"the machine, the worker count or the engine. Parquet files also depend on the Parquet writer, which "
            f"stamps its version into each file: these were written by {writer} (pyarrow, pinned by "
            "`clutrr[parquet]`); the CSV files and this card depend on no library version.", ""]


def loading(first: str) -> list[str]:
    """How to load a configuration, as code written for ``CLUTRR/v1`` does."""
    return ["## Loading", "", "```python", "from datasets import load_dataset", "",
            f'ds = load_dataset("path/to/this/folder", "{first}")  # train, validation and test, with typed features',
            'row = ds["test"][0]',
            'row["query"], row["target"], row["target_text"]  # as in CLUTRR/v1: "(\'Head\', \'Tail\')", label, word',
            "```", "",
            "Every configuration loads by name, offline. Its Parquet files carry the 14 columns of HuggingFace "
            "`CLUTRR/v1` with v1's names, types and meanings, so code written for `load_dataset(\"CLUTRR/v1\", "
            "name)` runs on `load_dataset(DIR, name)`; the generator's own fields follow (below). The CSV twin of "
            "each Parquet file (same stem) has the original CLUTRR columns and reads with "
            "`clutrr.io.csv_format.read_csv`.", ""]


FORMS_NOTE = ("Configurations named for a question form (`person_…`, `people_…`, `count_…`, `yesno_…`) ask it "
              "instead of the relation: `form`, `question` and `answer` give it, `query_people` and `target_word` "
              "name the people and the relation word it asks about, and v1's columns (`query`, `target`, "
              "`target_text`, `proof_state`) keep the story's chain and its relation.")


def kinship_section(built: list[tuple[ReleaseConfig, list[SplitFile]]]) -> list[str]:
    """What each kinship system of the release is (none when it has no kinship configuration)."""
    from clutrr.core.kb import load_kb
    from clutrr.kinship.terminology import load_terminology
    from clutrr.story.systems import kinship_fields

    systems = [c.kinship for c, _ in built if c.kinship]
    if not systems:
        return []
    out = ["## Kinship systems", "",
           "Configurations `kin_*` tell every story in one kinship system's terms (`clutrr generate --kinship NAME`): "
           "its composition rules are derived from the world model and proved sound, each row's `kin_type` gives "
           "the answer person's shortest genealogical path from the person asked about (letters F M B Z S D H W), "
           "and `glossary` defines each term the story uses. In them `target` is the index of `target_text` among "
           "the system's terms, in the order listed here, not a v1 label.", ""]
    for system in systems:
        terminology = load_terminology(system)
        words = load_kb(kinship_fields(system)["kb"]).words
        out += [f"### {system}", "", " ".join(terminology.description.split()), "",
                f"Source: {' '.join(terminology.source.split())}", "",
                "Terms (`target` 0, 1, ...): " + ", ".join(f"`{w}`" for w in words) + ".", ""]
    return out


def fields_section(forms: bool = False, kinship: bool = False) -> list[str]:
    """Every Parquet column (with ``forms``, those of question-form configurations too; a kinship
    system's with ``kinship``), and v1's columns mapped onto them."""
    note = ["", FORMS_NOTE] if forms else []
    return ["## Fields", "", *field_table(forms, kinship), *note, "", "### From CLUTRR/v1", "", *v1_table(), ""]


def render_card(built: list[tuple[ReleaseConfig, list[SplitFile]]], figures: dict[str, dict], options: BuildOptions,
                command: str, writer: str, data_fingerprint: str, fingerprints_by_config: dict[str, str],
                source: dict) -> str:
    """The whole card."""
    lines = yaml_header(built, figures)
    lines += ["", "# CLUTRR, a sound release", "",
              "Stories about families, a question about two of their people, and the relation that answers it, "
              "as in CLUTRR (Sinha et al., 2019): the original benchmark's six named configurations rebuilt with "
              f"labels that are provably right, and configurations it lacks. Generated by clutrr {__version__}"
              f"{' at commit ' + source['commit'][:12] if source.get('commit') else ''}.", ""]
    lines += loading(built[0][0].name)
    lines += ["## Configurations", "", *configs_table(built, figures), "",
              "A file's name gives its task and chain length k: `1.4_test` holds task 1 (no noise) at k=4. Tasks: "
              "1 no noise, 2 supporting, 3 irrelevant, 4 disconnected facts, 5 all three, 6 memory, 7 memory and "
              "reasoning mixed, 8 connected distractors. Long-context files add the words asked (`_w4000`) or the depth "
              "(`_d0.5`), hard-tier files the distractors (`_n1000`).", ""]
    lines += kinship_section(built)
    lines += fields_section(any(c.question() != "relation" for c, _ in built), any(c.kinship for c, _ in built))
    lines += how_made(built, options, command, writer, source)
    lines += verification_table(built, figures)
    lines += sizes_table(built, figures)
    lines += reference_tables([c.name for c, _ in built], fingerprints_by_config)
    lines += comparability_section(figures)
    lines += [DIFFERENCES, LONG_CONTEXT, HARD, LIMITATIONS]
    lines += fingerprints(data_fingerprint, writer)
    lines += citation(source, data_fingerprint)
    return "\n".join(lines)


def write_card(root: Path, text: str) -> None:
    """Write the card to ``root/README.md``."""
    (root / "README.md").write_text(text, encoding="utf-8")
