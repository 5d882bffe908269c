"""The sandbox: secrets stay out, limits hold, whole process trees die, the pool runs in parallel."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from physvec.verifiers.isolation import SANDBOX_WORKDIR
from physvec.verifiers.sandbox import GiB, SandboxJob, SandboxLimits, SandboxPool, run_program, scrubbed_environment


def python_job(tmp_path: Path, code: str, name: str = "job", **limits) -> SandboxJob:
    return SandboxJob(argv=[sys.executable, "-c", code], workdir=tmp_path / name, limits=SandboxLimits(**limits))


def test_generated_code_sees_no_secret(tmp_path, monkeypatch):
    secrets = {"OPENAI_API_KEY": "sk-1", "MY_SERVICE_TOKEN": "t", "DB_PASSWORD": "p", "HF_SECRET": "s",
               "ANTHROPIC_BASE_URL": "u", "aws_access_key_id": "k", "DATABASE_URL": "postgres://u:pw@h/db",
               "GITHUB_PAT": "ghp_x", "DB_PASS": "pw2", "SOME_SETTING": "sk-hidden-under-another-name"}
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    result = run_program(python_job(tmp_path, "import os, json; print(json.dumps(dict(os.environ)))"))
    seen = json.loads(result.stdout)
    assert not set(secrets) & set(seen)
    assert not any(value in seen.values() for value in secrets.values())
    assert "PATH" in seen and seen["MPLBACKEND"] == "Agg"


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


HEARTBEAT = ("import os, subprocess, sys\n"
             "beat = 'import time\\nwhile True:\\n    open(\\'beat.txt\\', \\'a\\').write(\\'.\\')\\n    time.sleep(0.05)\\n'\n")
"""A program that starts children appending to beat.txt forever: they are gone when the file stops growing."""


def _stopped_growing(path: Path) -> bool:
    """Whether ``path`` stops growing (its writers are dead), allowing a kill a moment to land."""
    time.sleep(0.3)
    size = path.stat().st_size
    time.sleep(0.5)
    return path.stat().st_size == size


def test_infinite_loop_spawning_children_is_killed_with_all_children(tmp_path):
    code = HEARTBEAT + ("children = [subprocess.Popen([sys.executable, '-c', beat]) for _ in range(3)]\n"
                        "while True: pass\n")
    result = run_program(python_job(tmp_path, code, wall_s=3))
    assert result.timed_out and not result.ok
    assert _stopped_growing(tmp_path / "job" / "beat.txt")


def test_cpu_limit_stops_a_busy_loop(tmp_path):
    result = run_program(python_job(tmp_path, "while True: pass", wall_s=30, cpu_s=1))
    assert result.cpu_exceeded and not result.timed_out


def test_output_is_truncated_to_its_tail(tmp_path):
    result = run_program(python_job(tmp_path, "print('x' * 100000); print('END')", output_tail_bytes=1000))
    assert result.stdout_truncated and len(result.stdout) <= 1000 and result.stdout.rstrip().endswith("END")
    assert (tmp_path / "job" / "stdout.txt").stat().st_size > 100000


def test_program_runs_in_its_own_working_directory(tmp_path):
    result = run_program(python_job(tmp_path, "import os; open('here.txt', 'w').write(os.getcwd())", name="here"))
    assert result.ok and (tmp_path / "here" / "here.txt").is_file()
    if result.isolated:
        assert (tmp_path / "here" / "here.txt").read_text() == SANDBOX_WORKDIR, "the folder's name is not shown"


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


def test_a_dmrg_program_gets_one_thread_even_alone_and_a_dense_one_the_whole_share(tmp_path):
    # ../BACKENDS.md: a second BLAS thread made TeNPy's DMRG slower; PySCF's dense products gain from it.
    code = "import os; print(os.environ['OPENBLAS_NUM_THREADS'])"
    for backend, threads in (("tenpy", "1"), ("pyscf", "2")):
        pool = SandboxPool(cores=2).warm_for(tmp_path / backend, backend)
        try:
            (result,) = pool.run_all([python_job(tmp_path / backend, code)])
        finally:
            pool.close()
        assert result.stdout.strip() == threads, backend


def test_limits_must_be_positive():
    import pytest

    with pytest.raises(ValueError):
        SandboxLimits(wall_s=-1)
    with pytest.raises(ValueError):
        SandboxLimits(memory_bytes=0)


def test_leftover_background_processes_are_killed_after_exit(tmp_path):
    code = HEARTBEAT + ("subprocess.Popen([sys.executable, '-c', beat], start_new_session=True)\n"
                        "import time\nwhile not os.path.exists('beat.txt'):\n    time.sleep(0.01)\n")
    result = run_program(python_job(tmp_path, code))
    assert result.ok
    assert _stopped_growing(tmp_path / "job" / "beat.txt"), "a daemon in its own session outlived the program"


def test_a_program_filling_its_folder_past_the_disk_quota_is_killed(tmp_path):
    writer = ("import os, time\nfor i in range(100):\n"
              "    with open(f'chunk{i}', 'wb') as f: f.write(os.urandom(5 * 2**20))\n    time.sleep(0.05)\n"
              "print('wrote 500 MiB')\n")
    result = run_program(python_job(tmp_path, writer, disk_bytes=40 * 2**20, wall_s=60))
    assert result.disk_exceeded and not result.ok and "disk quota" in result.summary()
    assert "wrote 500 MiB" not in result.stdout
    small = run_program(python_job(tmp_path, "open('x', 'w').write('ok'); print('fine')", name="small",
                                   disk_bytes=40 * 2**20))
    assert small.ok and not small.disk_exceeded


def test_the_private_tmp_is_bounded(tmp_path):
    from physvec.verifiers.isolation import TMP_BYTES, probe

    if not probe().full:
        import pytest

        pytest.skip("bubblewrap is not available: /tmp is not private here")
    filler = ("import os\ntry:\n    with open('/tmp/fill', 'wb') as f:\n"
              f"        for _ in range({TMP_BYTES // 2**20 + 16}): f.write(b'0' * 2**20)\n"
              "    print('filled')\nexcept OSError as error:\n    print('refused', error.errno)\n")
    result = run_program(python_job(tmp_path, filler))
    assert "refused 28" in result.stdout  # ENOSPC
