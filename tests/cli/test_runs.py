"""`physvec runs list/show` and `physvec schemas` summarise in the terminal."""

from __future__ import annotations

from physvec.cli.main import physvec_main, reproduce_main
from physvec.runstore.store import list_runs
from tests.support.scripted import GOOD_SCRIPT, write_replies


def test_runs_list_and_show_summarise_a_run(tiny_task, runs_dir, tmp_path, capsys):
    reproduce_main([str(tiny_task), "--model", f"scripted:{write_replies(tmp_path / 'r.json', GOOD_SCRIPT)}",
                    "--runs-dir", str(runs_dir)])
    (run,) = list_runs(runs_dir)
    capsys.readouterr()
    assert physvec_main(["runs", "--runs-dir", str(runs_dir), "list"]) == 0
    listing = capsys.readouterr().out
    assert "tiny-heisenberg" in listing and "finished" in listing
    assert physvec_main(["runs", "--runs-dir", str(runs_dir), "show", run.run_id]) == 0
    shown = capsys.readouterr().out
    for words in ("programming_verify", "script_executes", "reference:energy", "rubric:coupling", "report.html"):
        assert words in shown


def test_runs_dir_may_stand_before_or_after_the_subcommand_or_come_from_the_environment(
        tiny_task, runs_dir, tmp_path, capsys, monkeypatch):
    reproduce_main([str(tiny_task), "--model", f"scripted:{write_replies(tmp_path / 'r.json', GOOD_SCRIPT)}",
                    "--runs-dir", str(runs_dir)])
    (run,) = list_runs(runs_dir)
    capsys.readouterr()
    for arguments in (["runs", "--runs-dir", str(runs_dir), "list"], ["runs", "list", "--runs-dir", str(runs_dir)]):
        assert physvec_main(arguments) == 0 and run.run_id in capsys.readouterr().out
    monkeypatch.setenv("PHYSVEC_RUNS_DIR", str(runs_dir))
    assert physvec_main(["runs", "show", run.run_id]) == 0 and "programming_verify" in capsys.readouterr().out
    assert physvec_main(["runs", "list", "--runs-dir", str(tmp_path / "elsewhere")]) == 0
    assert run.run_id not in capsys.readouterr().out, "the flag after the subcommand wins over the environment"


def test_runs_show_of_an_unknown_run_exits_2(runs_dir, capsys):
    assert physvec_main(["runs", "--runs-dir", str(runs_dir), "show", "nope"]) == 2
    assert "no run" in capsys.readouterr().err


def test_schemas_are_exported(tmp_path, capsys):
    assert physvec_main(["schemas", "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "assertions.schema.json", "library.schema.json", "rubric.schema.json", "task.schema.json"]


def test_verify_script_prints_a_json_certificate(tmp_path, capsys):
    import json

    from tests.verifiers.programming.test_contract import SIX_CALLS

    script = tmp_path / "chain.py"
    script.write_text(SIX_CALLS)
    code = physvec_main(["verify-script", str(script), "--backend", "pyscf", "--json", "--workdir", str(tmp_path / "w")])
    certificate = json.loads(capsys.readouterr().out)
    outcomes = {o["name"]: o["outcome"] for o in certificate["obligations"]}
    assert outcomes["script_executes"] == "certified" and outcomes["integration:run_chain"] == "certified"
    assert outcomes["figure_written"] == "failed", "this script writes no figure"
    assert code == 1


def test_verify_script_of_a_missing_file_exits_2(tmp_path, capsys):
    assert physvec_main(["verify-script", str(tmp_path / "absent.py"), "--backend", "tenpy"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_new_task_scaffolds_valid_files_that_say_what_to_fill_in(tmp_path, capsys):
    assert physvec_main(["new-task", "my-figure", "--dir", str(tmp_path), "--backend", "qiskit"]) == 0
    folder = tmp_path / "my-figure"
    files = [folder / name for name in ("task.json", "rubric.json", "assertions.json")]
    assert physvec_main(["validate", *map(str, files)]) == 0
    assert all("TODO" in path.read_text() for path in files + [folder / "paper.md"])
    assert physvec_main(["new-task", "my-figure", "--dir", str(tmp_path)]) == 2
    assert "not empty" in capsys.readouterr().err


def test_physvec_reproduce_is_the_reproduce_command(tiny_task, runs_dir, tmp_path, capsys):
    replies = write_replies(tmp_path / "r.json", GOOD_SCRIPT)
    assert physvec_main(["reproduce", str(tiny_task), "--model", f"scripted:{replies}", "--runs-dir", str(runs_dir)]) == 0
    (run,) = list_runs(runs_dir)
    assert run.metadata()["model"] == f"scripted:{replies}"
    assert physvec_main(["reproduce", str(tmp_path / "absent.json")]) == 2
    assert "absent.json: no such file" in capsys.readouterr().err
