"""The sandbox check: one probe program through the real sandbox says whether this machine can verify a
backend, and when it cannot, names the cause; a run then ends `error` with that cause and blames no script."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from physvec.verifiers import isolation, sandbox_check
from physvec.verifiers.sandbox import SandboxPool
from physvec.verifiers.sandbox_check import check_sandbox

pytestmark = pytest.mark.skipif(not isolation.probe().full, reason="the check is of the real sandbox")


@pytest.fixture
def unbound(tmp_path_factory) -> Path:
    """A folder of the host under /tmp that the sandbox does not bind."""
    folder = Path("/tmp") / f"physvec-unbound-{tmp_path_factory.getbasetemp().name}"
    folder.mkdir(exist_ok=True)
    (folder / "hidden_helper.py").write_text("VALUE = 1\n")
    yield folder
    shutil.rmtree(folder)


def test_the_probe_passes_warm_and_cold_where_the_sandbox_works(tmp_path):
    warm = SandboxPool(cores=1).warm_for(tmp_path / "work", "numpy")
    try:
        checked = check_sandbox("numpy", warm, tmp_path / "work" / "probe")
    finally:
        warm.close()
    assert checked.ok and checked.warm, checked.describe()
    cold = check_sandbox("numpy", SandboxPool(cores=1), tmp_path / "cold")
    assert cold.ok and not cold.warm, cold.describe()


def test_a_folder_the_sandbox_hides_is_named_as_the_cause(tmp_path, monkeypatch, unbound):
    needed = sandbox_check.needed_folders
    monkeypatch.setattr(sandbox_check, "needed_folders", lambda: [*needed(), str(unbound)])
    checked = check_sandbox("numpy", SandboxPool(cores=1), tmp_path / "cold")
    assert not checked.ok
    assert checked.cause == f"the folder {unbound} (under /tmp) is hidden inside the sandbox"


def test_a_module_importable_outside_but_not_inside_is_named(tmp_path, monkeypatch, unbound):
    monkeypatch.syspath_prepend(str(unbound))
    monkeypatch.setitem(sandbox_check.BACKEND_IMPORTS, "numpy", ("numpy", "hidden_helper"))
    monkeypatch.setattr(sandbox_check, "needed_folders", lambda: [])
    checked = check_sandbox("numpy", SandboxPool(cores=1), tmp_path / "cold")
    assert "hidden_helper cannot be imported inside the sandbox" in checked.cause
    assert "hidden_helper imports outside the sandbox" in checked.cause


def test_a_run_on_a_machine_whose_sandbox_hides_the_installation_ends_error_and_blames_no_script(
        tiny_task, runs_dir, tmp_path, monkeypatch, unbound):
    from physvec.cli.main import reproduce_main
    from physvec.runstore.store import list_runs
    from tests.support.scripted import GOOD_SCRIPT, write_replies

    needed = sandbox_check.needed_folders
    monkeypatch.setattr(sandbox_check, "needed_folders", lambda: [*needed(), str(unbound)])
    replies = write_replies(tmp_path / "r.json", GOOD_SCRIPT)
    code = reproduce_main([str(tiny_task), "--model", f"scripted:{replies}", "--runs-dir", str(runs_dir)])
    run = list_runs(runs_dir)[-1]
    meta = run.metadata()
    assert code != 0 and meta["status"] == "error" and meta["verdict"] == "unknown"
    assert "is hidden inside the sandbox" in meta["error"] and str(unbound) in meta["error"]
    assert not [name for name in run.certificates() if name.startswith("programming")], "no script was judged"
