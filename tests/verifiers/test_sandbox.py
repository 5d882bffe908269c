"""The sandbox: secrets stay out, limits hold, whole process trees die, the pool runs in parallel."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from physvec.verifiers.sandbox import GiB, SandboxJob, SandboxLimits, SandboxPool, run_program, scrubbed_environment


def python_job(tmp_path: Path, code: str, name: str = "job", **limits) -> SandboxJob:
    return SandboxJob(argv=[sys.executable, "-c", code], workdir=tmp_path / name, limits=SandboxLimits(**limits))


def test_generated_code_sees_no_secret(tmp_path, monkeypatch):
    secrets = {"OPENAI_API_KEY": "sk-1", "MY_SERVICE_TOKEN": "t", "DB_PASSWORD": "p", "HF_SECRET": "s",
               "ANTHROPIC_BASE_URL": "u", "aws_access_key_id": "k"}
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PHYSVEC_VISIBLE", "yes")
    result = run_program(python_job(tmp_path, "import os, json; print(json.dumps(dict(os.environ)))"))
    seen = json.loads(result.stdout)
    assert not set(secrets) & set(seen)
    assert not any(value in seen.values() for value in ("sk-1", "t", "p"))
    assert seen["PHYSVEC_VISIBLE"] == "yes"


def test_scrubbed_environment_sets_the_thread_share():
    env = scrubbed_environment({"PATH": "/bin", "OMP_NUM_THREADS": "8"}, threads=3)
    assert env["OMP_NUM_THREADS"] == env["OPENBLAS_NUM_THREADS"] == env["MKL_NUM_THREADS"] == "3"
    assert env["PATH"] == "/bin" and env["MPLBACKEND"] == "Agg"


def test_an_8_gib_allocation_is_stopped_by_the_memory_limit(tmp_path):
    result = run_program(python_job(tmp_path, "import numpy; a = numpy.ones(2**30); print('allocated')",
                                    memory_bytes=2 * GiB))
    assert not result.ok
    assert result.memory_exceeded
    assert "allocated" not in result.stdout


def test_default_limits_also_stop_8_gib(tmp_path):
    result = run_program(python_job(tmp_path, "b = bytearray(8 * 1024**3); print('allocated')"))
    assert result.memory_exceeded and "allocated" not in result.stdout


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs, allowing SIGKILL a moment to land."""
    deadline = time.monotonic() + 3
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return _running(pid)


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")


def test_infinite_loop_spawning_children_is_killed_with_all_children(tmp_path):
    code = (
        "import subprocess, sys\n"
        "children = [subprocess.Popen([sys.executable, '-c', 'while True: pass']) for _ in range(3)]\n"
        "open('pids.txt', 'w').write(' '.join(str(c.pid) for c in children))\n"
        "while True: pass\n"
    )
    result = run_program(python_job(tmp_path, code, wall_s=3))
    assert result.timed_out and not result.ok
    pids = [int(pid) for pid in (tmp_path / "job" / "pids.txt").read_text().split()]
    assert len(pids) == 3
    assert not any(_alive(pid) for pid in pids)


def test_cpu_limit_stops_a_busy_loop(tmp_path):
    result = run_program(python_job(tmp_path, "while True: pass", wall_s=30, cpu_s=1))
    assert result.cpu_exceeded and not result.timed_out


def test_output_is_truncated_to_its_tail(tmp_path):
    result = run_program(python_job(tmp_path, "print('x' * 100000); print('END')", output_tail_bytes=1000))
    assert result.stdout_truncated and len(result.stdout) <= 1000 and result.stdout.rstrip().endswith("END")
    assert (tmp_path / "job" / "stdout.txt").stat().st_size > 100000


def test_program_runs_in_its_own_working_directory(tmp_path):
    result = run_program(python_job(tmp_path, "import os; print(os.getcwd())", name="here"))
    assert Path(result.stdout.strip()) == (tmp_path / "here").resolve()


def test_pool_runs_two_programs_concurrently(tmp_path):
    code = "import time, json; s = time.time(); time.sleep(1.5); print(json.dumps([s, time.time()]))"
    pool = SandboxPool(cores=2)
    results = pool.run_all([python_job(tmp_path, code, "a"), python_job(tmp_path, code, "b")])
    (start_a, end_a), (start_b, end_b) = (json.loads(r.stdout) for r in results)
    assert start_b < end_a and start_a < end_b, "the two programs did not overlap in time"


def test_pool_shares_threads_among_concurrent_programs(tmp_path):
    code = "import os; print(os.environ['OMP_NUM_THREADS'])"
    pool = SandboxPool(cores=2)
    assert [r.stdout.strip() for r in pool.run_all([python_job(tmp_path, code)])] == ["2"]
    assert [r.stdout.strip() for r in pool.run_all([python_job(tmp_path, code, "a"),
                                                     python_job(tmp_path, code, "b")])] == ["1", "1"]


def test_limits_must_be_positive():
    import pytest

    with pytest.raises(ValueError):
        SandboxLimits(wall_s=-1)
    with pytest.raises(ValueError):
        SandboxLimits(memory_bytes=0)


def test_leftover_background_processes_are_killed_after_exit(tmp_path):
    code = ("import subprocess, sys\n"
            "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
            "open('pid.txt', 'w').write(str(c.pid))\n")
    result = run_program(python_job(tmp_path, code))
    assert result.ok
    assert not _alive(int((tmp_path / "job" / "pid.txt").read_text()))
