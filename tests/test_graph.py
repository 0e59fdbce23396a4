"""Story graphs: typed records from every input, networkx round trips, the layered layout, pictures."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import networkx as nx
import pytest

from clutrr.cli import main
from clutrr import GeneratorConfig, make_example
from clutrr.errors import UsageError
from clutrr.eval.items import make_item
from clutrr.graph import from_networkx, to_networkx, typed_record
from clutrr.graph.convert import require_networkx
from clutrr.graph.draw import story_figure
from clutrr.graph.layout import GAP, generation_steps, layered_layout
from clutrr.graph.output import MARK, draw_story
from clutrr.graph.story import StoryGraphError
from clutrr.io.csv_format import CsvWriter, read_csv
from helpers import run_generate

SVG = "{http://www.w3.org/2000/svg}"
KINDS = ("supporting", "irrelevant", "disconnected", "all")


def examples(ks=(3, 8, 20), facts=(1, 2, 3), per=2):
    """Generated examples of every noise kind, for several chain lengths and noise-path lengths."""
    out = []
    for n in facts:
        config = GeneratorConfig(noise_facts=n)
        out += [make_example(config, k, noise, 5, i, "test") for k in ks for noise in KINDS for i in range(per)]
    return out


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A dataset folder with k=3 and k=20 test files, all noise kinds in every story."""
    out = tmp_path_factory.mktemp("graph") / "data"
    done = run_generate("--k", "2", "--test-k", "3,20", "--noise", "all", "--test-noise", "all", "--train-rows", "4",
                        "--test-rows", "4", "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out


def svg_texts(path) -> dict[str, str]:
    """gid -> text of every text element inside an element with an id (matplotlib writes a text's gid on its group)."""
    root = ET.parse(path).getroot()
    out = {}
    for group in root.iter(f"{SVG}g"):
        gid = group.get("id", "")
        text = "".join("".join(t.itertext()) for t in group.iter(f"{SVG}text"))
        if gid and text:
            out[gid] = text
    return out


def test_row_kinds_read_off_the_shape_equal_the_records_kinds():
    for ex in examples():
        from_row, from_record = to_networkx(ex.row), to_networkx(ex.record)
        assert from_row.graph["noise_inferred"] and not from_record.graph["noise_inferred"]
        row_edges = list(from_row.edges(keys=True, data=True))
        assert row_edges == list(from_record.edges(keys=True, data=True)), ex.record["id"]
        assert dict(from_row.nodes(data=True)) == dict(from_record.nodes(data=True))
        kinds = {d["noise"] for *_, d in row_edges} - {"none"}
        assert kinds == ({"supporting", "irrelevant", "disconnected"} if ex.record["noise"] == "all"
                         else {ex.record["noise"]})


def test_to_networkx_round_trips_a_row():
    for ex in examples(facts=(2,), per=1):
        row = ex.row
        graph = to_networkx(row)
        assert isinstance(graph, nx.MultiDiGraph)
        facts = sorted(graph.edges(keys=True, data=True), key=lambda e: e[2])
        assert [(a, b) for a, b, _, _ in facts] == [tuple(e) for e in row.story_edges]
        assert [d["relation"] for *_, d in facts] == list(row.edge_types)
        assert [d["position"] for *_, d in facts] == list(range(row.k)) + [None] * (len(facts) - row.k)
        assert [(graph.nodes[i]["name"], graph.nodes[i]["gender"]) for i in sorted(graph)] == list(row.genders)
        assert graph.graph["query"] == tuple(row.query_edge) and graph.graph["target"] == row.target
        head, tail = row.query_edge
        assert graph.nodes[head]["role"] == "head" and graph.nodes[tail]["role"] == "tail"
        back = from_networkx(graph)
        assert [(e["head"], e["tail"], e["relation"]) for e in back["edges"]] == \
            [(a, b, w) for (a, b), w in zip(row.story_edges, row.edge_types)]
        again = to_networkx(back)
        assert nx.utils.graphs_equal(graph, again) and graph.graph == again.graph
        assert from_networkx(to_networkx(ex.record)) == typed_record(ex.record)


def test_items_of_the_eval_loader_give_the_same_graph():
    ex = examples(ks=(5,), facts=(2,), per=1)[-1]
    item = make_item(ex.row, split="5.5_test", noise="all")
    assert list(to_networkx(item).edges(keys=True, data=True)) == list(to_networkx(ex.row).edges(keys=True, data=True))


def test_a_chain_that_is_not_a_path_is_refused():
    record = dict(examples(ks=(3,), facts=(1,), per=1)[0].record)
    record["edges"] = [record["edges"][1], record["edges"][0], *record["edges"][2:]]
    with pytest.raises(StoryGraphError, match="not a chain"):
        to_networkx(record)
    with pytest.raises(TypeError):
        to_networkx(42)


def test_released_files_noise_kinds_and_missing_words(release):
    folder = release / "data_7c5b0e70"
    for stem, kind in (("2.3_test", "supporting"), ("3.3_test", "irrelevant"), ("4.3_test", "disconnected")):
        rows = read_csv(folder / f"{stem}.csv")
        for row in rows:
            graph = to_networkx(row)
            noise = [d for *_, d in graph.edges(data=True) if d["position"] is None]
            assert noise and all(d["noise"] == kind and d["relation"] is None and d["predicate"] is None for d in noise)
            assert graph.graph["noise"] == kind
        assert {d["predicate"] for *_, d in to_networkx(rows[0]).edges(data=True) if d["position"] is not None} <= \
            set(generation_steps())


def test_layout_puts_elders_above_and_nobody_on_top_of_anyone():
    steps = generation_steps()
    assert (steps["parent"], steps["child"], steps["spouse"], steps["grandparent"], steps["pibling"]) == (1, -1, 0, 2, 1)
    for ex in examples(facts=(3,), per=2):
        graph = to_networkx(ex.record)
        pos = layered_layout(graph)
        assert set(pos) == set(graph)
        for a, b, d in graph.edges(data=True):
            rise = pos[b][1] - pos[a][1]
            assert (rise > 0) == (steps[d["predicate"]] > 0) and (rise < 0) == (steps[d["predicate"]] < 0)
        people = sorted(pos.values())
        for i, p in enumerate(people):
            for q in people[i + 1:]:
                assert p[1] != q[1] or abs(p[0] - q[0]) >= GAP - 1e-9
        chain = sorted((d["position"], a, b) for a, b, d in graph.edges(data=True) if d["position"] is not None)
        assert [pos[a][0] for _, a, _ in chain] == sorted(pos[a][0] for _, a, _ in chain)


def _check_svg_holds_every_fact(path, graph):
    texts = svg_texts(path)
    for a, b, key, d in graph.edges(keys=True, data=True):
        word = d["relation"] if d["relation"] is not None else "?"
        want = f"{d['position'] + 1}. {word}" if d["position"] is not None else word
        assert texts.get(f"fact-{key}-label") == want, (key, texts.get(f"fact-{key}-label"))
        assert f'id="fact-{key}"' in path.read_text()
    for p in graph:
        assert texts[f"person-{p}"] == graph.nodes[p]["name"]


def test_svg_of_a_k20_story_with_all_noise_holds_every_fact(tmp_path):
    ex = make_example(GeneratorConfig(noise_facts=3), 20, "all", 3, 0, "test")
    path = draw_story(ex.row, tmp_path / "story.svg")
    graph = to_networkx(ex.row)
    assert graph.number_of_edges() == 29
    _check_svg_holds_every_fact(path, graph)
    text = path.read_text()
    assert MARK in text and "gold answer: " + ex.row.target in text
    for kind in ("supporting noise", "irrelevant noise", "disconnected noise"):
        assert kind in text
    first = path.read_bytes()
    assert draw_story(ex.row, path).read_bytes() == first  # deterministic, and our own picture is replaced
    _check_svg_holds_every_fact(draw_story(ex.record, tmp_path / "record.svg"), graph)


def test_png_drawing_and_its_artists(tmp_path):
    ex = make_example(GeneratorConfig(), 6, "all", 1, 2, "test")
    path = draw_story(ex.row, tmp_path / "story.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and MARK.encode() in path.read_bytes()[:4096]
    fig = story_figure(ex.row)
    labels = {t.get_gid(): t.get_text() for ax in fig.axes for t in ax.texts if (t.get_gid() or "").endswith("-label")}
    arrows = {p.get_gid() for ax in fig.axes for p in ax.patches}
    n = len(ex.row.story_edges)
    assert set(labels) == {f"fact-{i}-label" for i in range(n)} and arrows == {f"fact-{i}" for i in range(n)}
    assert [labels[f"fact-{i}-label"] for i in range(6)] == [f"{i + 1}. {w}" for i, w in enumerate(ex.row.edge_types[:6])]


def test_released_row_draws_with_unknown_words(release, tmp_path):
    row = read_csv(release / "data_7c5b0e70" / "2.3_test.csv")[0]
    path = draw_story(row, tmp_path / "released.svg")
    _check_svg_holds_every_fact(path, to_networkx(row))
    text = path.read_text()
    assert "released CLUTRR files name chain facts only" in text and "read off the graph" in text


def test_show_draws_each_story_and_never_overwrites_a_foreign_file(folder, tmp_path, capsys):
    target = tmp_path / "pic.svg"
    assert main(["show", str(folder), "--file", "5.20_test", "-n", "2", "--draw", str(target)]) == 0
    out = capsys.readouterr().out
    drawn = [tmp_path / "pic-1.svg", tmp_path / "pic-2.svg"]
    assert all(f"picture: {p}" in out for p in drawn) and all(p.exists() for p in drawn)
    rows = {r.id: r for r in read_csv(folder / "5.20_test.csv")}
    for p in drawn:
        story_id = re.search(r"story ([0-9a-f-]{36})", p.read_text()).group(1)
        _check_svg_holds_every_fact(p, to_networkx(rows[story_id]))
    assert main(["show", str(folder), "--file", "5.20_test", "-n", "2", "--draw", str(target)]) == 0  # ours: replaced
    capsys.readouterr()
    drawn[1].write_text("my notes")
    assert main(["show", str(folder), "--file", "5.20_test", "-n", "2", "--draw", str(target)]) == 2
    assert "not a picture clutrr drew" in capsys.readouterr().err and drawn[1].read_text() == "my notes"
    assert main(["show", "--k", "3", "-n", "1", "--draw", str(tmp_path / "pic.pdf")]) == 2
    assert "must end in .svg or .png" in capsys.readouterr().err
    assert main(["show", "--k", "3", "-n", "1", "--draw", str(tmp_path / "no" / "pic.png")]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pic-1.svg", "pic-2.svg"]


def write_items(path, rows, models=("good", "bad")):
    """An items.jsonl as ``clutrr eval`` writes it: model "good" answers right, "bad" says "aunt" (wrong
    unless the gold is aunt) on every other story and right on the rest."""
    lines = []
    for model in models:
        for i, row in enumerate(rows):
            answer = row.target if model == "good" or i % 2 else ("uncle" if row.target == "aunt" else "aunt")
            lines.append({"model": model, "id": row.id, "file": "5.20_test", "k": row.k, "noise": "all",
                          "gold": row.target, "reply": f"The answer is {answer}.", "answer": answer,
                          "correct": answer == row.target, "finish_reason": "stop", "tokens": None, "sample": 0})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_show_items_with_the_models_answers(folder, tmp_path, capsys):
    rows = read_csv(folder / "5.20_test.csv")
    items = write_items(tmp_path / "items.jsonl", rows)
    assert main(["show", str(folder), "--items", str(items), "--wrong", "-n", "9", "--draw",
                 str(tmp_path / "item.svg")]) == 0
    out = capsys.readouterr().out
    stories = out.split("\n\n")
    assert len(stories) == 2  # stories 0 and 2 of 4: "bad" got them wrong
    for story in stories:
        assert "good answered: " in story and "(right)" in story and "bad answered: " in story and "(wrong)" in story
    svg = (tmp_path / "item-1.svg").read_text()
    assert "bad answered: " in svg and "(wrong)" in svg and "file 5.20_test" in svg
    assert main(["show", str(folder), "--items", str(items), "--model", "good", "--wrong"]) == 0
    assert capsys.readouterr().out.strip() == ""
    assert main(["show", str(folder), "--items", str(items), "--model", "nobody"]) == 2
    assert "models: bad, good" in capsys.readouterr().err
    assert main(["show", "--items", str(items)]) == 2
    assert "--items needs DATA" in capsys.readouterr().err
    bad = json.loads(items.read_text().splitlines()[0])
    (tmp_path / "other.jsonl").write_text(json.dumps({**bad, "gold": "nephew" if bad["gold"] != "nephew" else "niece"}))
    assert main(["show", str(folder), "--items", str(tmp_path / "other.jsonl")]) == 2
    assert "was the evaluation run on this folder?" in capsys.readouterr().err
    (tmp_path / "broken.jsonl").write_text('{"model": "m"}\n')
    assert main(["show", str(folder), "--items", str(tmp_path / "broken.jsonl")]) == 2
    assert "line 1 has no id, file, gold, answer, correct" in capsys.readouterr().err


def test_without_networkx_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "networkx", None)
    with pytest.raises(UsageError, match=r"clutrr\[graph\]"):
        require_networkx()


def test_import_clutrr_stays_light():
    code = ("import sys, clutrr, clutrr.graph, clutrr.commands.show; "
            "print(sorted(m for m in ('networkx', 'matplotlib', 'torch') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_row_without_a_chain_is_one_line_and_nothing_is_drawn(tmp_path, capsys):
    good, bad = (make_example(GeneratorConfig(), 4, "irrelevant", 2, i, "test").row for i in range(2))
    bad.story_edges = [bad.story_edges[1], bad.story_edges[0], *bad.story_edges[2:]]
    data = tmp_path / "data"
    data.mkdir()
    with open(data / "3.4_test.csv", "w", newline="", encoding="utf-8") as fh:
        writer = CsvWriter(fh)
        writer.write(good)
        writer.write(bad)
    assert main(["show", str(data), "-n", "2", "--draw", str(tmp_path / "pic.svg")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"story {bad.id}: the first 4 facts are not a chain" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]
    assert main(["show", "--wrong"]) == 2
    assert "--model and --wrong go with --items" in capsys.readouterr().err


def test_show_items_of_a_real_clutrr_eval_run(folder, tmp_path, capsys):
    rows = [r for stem in ("5.3_test", "5.20_test") for r in read_csv(folder / f"{stem}.csv")]
    predictions = tmp_path / "aunt.jsonl"
    predictions.write_text("".join(json.dumps({"id": r.id, "prediction": "aunt"}) + "\n" for r in rows))
    assert main(["eval", str(folder), "--predictions", str(predictions), "--out", str(tmp_path / "eval")]) == 0
    capsys.readouterr()
    items = tmp_path / "eval" / "items.jsonl"
    wrong = sum(r.target != "aunt" for r in rows)
    assert main(["show", str(folder), "--items", str(items), "--wrong", "-n", "100"]) == 0
    stories = capsys.readouterr().out.strip().split("\n\n")
    assert len(stories) == wrong and all("aunt answered: aunt   (wrong)" in s for s in stories)
    assert main(["show", str(folder), "--items", str(items), "--file", "5.3_test", "-n", "1",
                 "--draw", str(tmp_path / "one.svg")]) == 0
    svg = (tmp_path / "one.svg").read_text()
    assert "aunt answered: aunt" in svg and "file 5.3_test" in svg
