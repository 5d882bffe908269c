"""One live process per run: a second holder is refused by name, and a dead holder leaves no stale lock."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from physvec.runstore.lock import RunBusy, RunLock, is_held

HOLD = "import sys, time\nfrom physvec.runstore.lock import RunLock\nRunLock(sys.argv[1]).acquire()\nprint('held', flush=True)\ntime.sleep(60)\n"


def test_a_second_holder_is_refused_naming_the_first(tmp_path):
    with RunLock(tmp_path):
        assert is_held(tmp_path)
        with pytest.raises(RunBusy, match=f"process {os.getpid()} on "):
            RunLock(tmp_path).acquire()
    assert not is_held(tmp_path)
    RunLock(tmp_path).acquire().release()


def test_a_holder_killed_with_sigkill_leaves_the_run_free(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    with pytest.raises(RunBusy, match=f"process {holder.pid} "):
        RunLock(tmp_path).acquire()
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    assert not is_held(tmp_path)
    with RunLock(tmp_path):
        assert json.loads((tmp_path / "run.lock").read_text())["pid"] == os.getpid()


def test_a_run_no_process_holds_reads_as_interrupted_not_running(tmp_path):
    from physvec.runstore.store import RunDirectory

    (tmp_path / "run.json").write_text(json.dumps({"status": "running", "verdict": None}))
    run = RunDirectory(tmp_path)
    assert run.status() == "interrupted"
    with RunLock(tmp_path):
        assert run.status() == "running"
    (tmp_path / "run.json").write_text(json.dumps({"status": "finished", "verdict": "certified"}))
    assert run.status() == "finished"
