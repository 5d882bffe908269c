"""Every bad input is an exit 2 that names the file and what is wrong, for every command that reads one:
special files (also behind links), folders, huge files, non-UTF-8, deep nesting, non-finite numbers,
random bytes (hypothesis), folder arguments that are files and run ids that are paths."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from physvec.cli.dualitycert import main as dualitycert_main
from physvec.cli.main import physvec_main, reproduce_main
from physvec.cli.phact import main as phact_main
from physvec.cli.qmp_bench import main as qmp_bench_main

TINY_TASK = Path(__file__).resolve().parents[1] / "fixtures" / "tiny_task"


def _commands(scratch: Path) -> dict[str, Callable[[Path], int]]:
    runs = str(scratch / "runs")
    return {
        "physvec validate": lambda file: physvec_main(["validate", str(file)]),
        "reproduce TASK": lambda file: reproduce_main([str(file), "--model", "library", "--runs-dir", runs]),
        "reproduce scripted replies": lambda file: reproduce_main(
            [str(TINY_TASK / "task.json"), "--model", f"scripted:{file}", "--runs-dir", runs]),
        "dualitycert verify": lambda file: dualitycert_main(["verify", str(file)]),
        "dualitycert dualize": lambda file: dualitycert_main(["dualize", str(file), "--node", "0"]),
        "phact certify": lambda file: phact_main(["certify", str(file), str(file)]),
    }


def _exit_code(command: Callable[[Path], int], file: Path) -> int:
    try:
        return command(file)
    except SystemExit as exit_:  # argparse refusals
        return int(exit_.code)


BAD_FILES: dict[str, tuple[Callable[[Path], None], str]] = {
    "a folder": (lambda path: path.mkdir(), "a folder, not a file"),
    "a link to /dev/zero": (lambda path: path.symlink_to("/dev/zero"), "a special file"),
    "a link to /proc/self/environ": (lambda path: path.symlink_to("/proc/self/environ"), "a special file"),
    "a broken link": (lambda path: path.symlink_to(path.with_name("nowhere")), "a broken link|no such file"),
    "a 17 MiB file": (lambda path: os.truncate(path.open("w").name, 17 * 1024 * 1024), "more than the 16 MiB"),
    "latin-1 text": (lambda path: path.write_bytes('{"id": "caf\xe9"}'.encode("latin-1")), "not UTF-8 text"),
    "nested 100000 deep": (lambda path: path.write_text("[" * 100_000 + "]" * 100_000), "nested too deeply"),
    "Infinity": (lambda path: path.write_text('{"limits": {"sandbox_wall_s": Infinity}}'), "non-finite number"),
    "NaN": (lambda path: path.write_text('{"tolerance": NaN}'), "non-finite number"),
    "1e999": (lambda path: path.write_text('{"tolerance": 1e999}'), "non-finite number"),
    "a lone surrogate": (lambda path: path.write_text('{"id": "\\ud800\\udfff\\udbff(1)"}'), "lone surrogate"),
}


OWN_WORDS = {("reproduce scripted replies", "a folder"): "holds no tiny-heisenberg.json for task tiny-heisenberg"}
"""Where a command reads a bad file its own way: a scripted folder is a valid target, one file per task."""


@pytest.mark.parametrize("kind", BAD_FILES)
def test_every_command_refuses_a_bad_file_with_exit_2_naming_it(kind, tmp_path, capsys):
    make, default_words = BAD_FILES[kind]
    for index, (name, command) in enumerate(_commands(tmp_path).items()):
        words = OWN_WORDS.get((name, kind), default_words)
        (tmp_path / str(index)).mkdir()
        file = tmp_path / str(index) / "input.json"
        make(file)
        assert _exit_code(command, file) == 2, (name, kind)
        said = capsys.readouterr()
        text = said.err + said.out
        assert any(alternative in text for alternative in words.split("|")), (name, kind, text[-400:])
        assert "Traceback" not in text
        assert not (tmp_path / "runs").exists(), f"{name}: a run was started on a bad input"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.one_of(st.binary(max_size=300),
                         st.recursive(st.none() | st.booleans() | st.floats(allow_nan=False) | st.text(max_size=8),
                                      lambda inner: st.lists(inner, max_size=4)
                                      | st.dictionaries(st.sampled_from(["id", "request", "paper", "theory_a",
                                                                         "goal", "replies", "limits", "arrows"]),
                                                        inner, max_size=4),
                                      max_leaves=12).map(lambda value: json.dumps(value).encode())))
def test_random_bytes_and_random_json_never_give_a_traceback(content, tmp_path_factory):
    scratch = tmp_path_factory.mktemp("fuzz")
    file = scratch / "input.json"
    file.write_bytes(content)
    replies = _is_a_replies_fixture(content)
    for name, command in _commands(scratch).items():
        if name == "reproduce scripted replies" and replies:
            continue  # a list of replies is a valid fixture: the run starts
        named = replies and content.lstrip().startswith(b"{")  # validate tells a file's kind by its keys
        expected = 0 if name == "physvec validate" and named else 2
        assert _exit_code(command, file) == expected, (name, content[:120])


def _is_a_replies_fixture(content: bytes) -> bool:
    """A list of replies, each a string or {"content": string}: what a scripted model serves (none at all
    is valid too: a resumed run whose every answer is recorded asks nothing)."""
    try:
        data = json.loads(content)
    except ValueError:
        return False
    entries = data.get("replies") if isinstance(data, dict) else data
    return isinstance(entries, list) and all(
        isinstance(entry, str) or (isinstance(entry, dict) and set(entry) == {"content"}
                                   and isinstance(entry["content"], str)) for entry in entries)


def test_folder_arguments_that_are_files_and_run_ids_that_are_paths_are_refused(tmp_path, capsys):
    a_file = tmp_path / "plain.txt"
    a_file.write_text("x")
    refusals = [
        lambda: reproduce_main([str(TINY_TASK / "task.json"), "--model", "library", "--runs-dir", str(a_file)]),
        lambda: physvec_main(["runs", "--runs-dir", str(a_file), "list"]),
        lambda: physvec_main(["redteam", "--out", str(a_file)]),
        lambda: qmp_bench_main(["report", str(a_file)]),
        lambda: phact_main(["run", "--model", "scripted:x.json", "--run-id", "../outside", "--runs-dir", str(tmp_path)]),
        lambda: dualitycert_main(["run-repair-loop", "--policy", "portfolio", "--run-id", "../outside",
                                  "--runs-dir", str(tmp_path)]),
        lambda: dualitycert_main(["run-repair-loop", "--policy", "portfolio", "--run-id", "x" * 300,
                                  "--runs-dir", str(tmp_path)]),
    ]
    for index, refused in enumerate(refusals):
        with pytest.raises(SystemExit) as exit_:
            refused()
        assert exit_.value.code == 2, index
        said = capsys.readouterr().err
        assert ("is a file, not a folder" in said or "is not a run id" in said) and "Traceback" not in said, said
    assert not (tmp_path.parent / "outside").exists()


def test_a_task_whose_paper_is_a_link_to_the_environment_is_refused_before_any_run(tmp_path, capsys):
    task = tmp_path / "task"
    shutil.copytree(TINY_TASK, task)
    (task / "paper.tex").unlink()
    (task / "paper.tex").symlink_to("/proc/self/environ")
    assert reproduce_main([str(task / "task.json"), "--model", "library", "--runs-dir", str(tmp_path / "runs")]) == 2
    said = capsys.readouterr().err
    assert "paper" in said and "a special file" in said
    assert not (tmp_path / "runs").exists()


def test_an_over_long_task_id_is_named(tmp_path, capsys):
    task = tmp_path / "task"
    shutil.copytree(TINY_TASK, task)
    data = json.loads((task / "task.json").read_text())
    data["id"] = "t" * 300
    (task / "task.json").write_text(json.dumps(data))
    assert physvec_main(["validate", str(task / "task.json")]) == 2
    assert "id" in capsys.readouterr().out


@pytest.mark.parametrize("given", ["missing.json", "."])
def test_a_task_that_is_not_a_file_is_refused_before_reproduce_imports_the_pipeline(given, tmp_path):
    """The refusal comes before the seconds of importing the graph, its verifiers and the physics libraries."""
    probe = ("import sys\nfrom physvec.cli.main import reproduce_main\ncode = reproduce_main([sys.argv[1]])\n"
             "heavy = sorted(m for m in ('physvec.agents.pipeline', 'physvec.taskfiles.loading', 'numpy') "
             "if m in sys.modules)\nprint(code, heavy)\n")
    done = subprocess.run([sys.executable, "-c", probe, given], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "2 []", done.stderr
    assert given in done.stderr and ("no such file" in done.stderr or "a folder, not a file" in done.stderr)
