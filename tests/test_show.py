"""``clutrr show``: stories with query and answer, generated or read from a folder."""
from __future__ import annotations

from clutrr.cli import main
from helpers import run_generate


def test_generated_stories_are_deterministic_and_show_their_answer(capsys):
    assert main(["show", "--k", "3", "--noise", "irrelevant", "-n", "2", "--seed", "4"]) == 0
    first = capsys.readouterr().out
    assert main(["show", "--k", "3", "--noise", "irrelevant", "-n", "2", "--seed", "4"]) == 0
    assert capsys.readouterr().out == first
    stories = first.split("\n\n")
    assert len(stories) == 2
    assert all("how is " in s and "(pattern " in s for s in stories)


def test_stories_from_a_folder_file_and_bad_input(tmp_path, capsys):
    out = tmp_path / "d"
    assert run_generate("--k", "2", "--test-k", "3", "--train-rows", "22", "--test-rows", "22",
                        "--out", str(out)).returncode == 0
    assert main(["show", str(out), "--file", "1.3_test", "-n", "3"]) == 0
    printed = capsys.readouterr().out
    assert printed.count("(pattern ") == 3 and all(p.count("-") >= 2 for p in printed.split("(pattern ")[1:])
    assert main(["show", str(out), "--file", "nope"]) == 2
    assert "no file 'nope'" in capsys.readouterr().err
    assert main(["show", "-n", "0"]) == 2


def test_memory_queries_and_padded_stories_as_generate_writes_them(tmp_path, capsys):
    """show --query/--context-words/--depth prints the stories clutrr generate writes with the same options."""
    from clutrr.story.generator import GeneratorConfig, make_example

    for options, config in ((["--query", "memory"], GeneratorConfig(query="memory")),
                            (["--context-words", "400", "--depth", "0.25"],
                             GeneratorConfig(context_words=400, depth="0.25"))):
        assert main(["show", "--k", "3", "-n", "2", "--seed", "5", *options]) == 0
        printed = capsys.readouterr().out
        for i in range(2):
            assert make_example(config, 3, "none", 5, i, "test").row.story in printed
    assert len(printed.split()) > 2 * 300  # padded to about 400 words each
    assert main(["show", "--k", "2", "--context-words", "-5"]) == 2
    assert "context words must be in 0.." in capsys.readouterr().err
    assert main(["show", "--k", "2", "--depth", "2"]) == 2
    assert "--depth" in capsys.readouterr().err
    out = tmp_path / "d"
    assert run_generate("--k", "2", "--test-k", "3", "--train-rows", "22", "--test-rows", "22",
                        "--out", str(out)).returncode == 0
    assert main(["show", str(out), "--query", "memory"]) == 2
    assert "without DATA" in capsys.readouterr().err
