"""Warm sandbox workers keep every promise of the cold sandbox, program by program.

Each program sent to a warm worker is a forked copy of an interpreter that imported the backend once; these
tests repeat the cold sandbox's isolation checks (tests/verifiers/test_sandbox.py, test_isolation.py) through
the pool, and add what forking from one worker could break: one program seeing another's folder, /tmp or
random stream, a program regaining the worker's capabilities, a crash or a dead worker costing more than
the one program.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from physvec.verifiers import isolation
from physvec.verifiers.sandbox import GiB, SandboxJob, SandboxLimits, SandboxPool, run_program, warm_slot
from physvec.verifiers.warm_pool import BACKEND_PRELOAD
from tests.verifiers.test_sandbox import HEARTBEAT, _stopped_growing

pytestmark = pytest.mark.skipif(not isolation.probe().full,
                                reason=f"warm workers need full isolation: {isolation.probe().describe()}")


@pytest.fixture
def pool(tmp_path):
    pool = SandboxPool(cores=2).warm_for(tmp_path / "work", "numpy")
    yield pool
    pool.close()


def tmp_of_a_fresh_program() -> list[str]:
    """What a program's fresh /tmp holds: matplotlib's config folder, which the worker (having imported pyplot)
    makes as a cold import would, and the folders leading to an interpreter or physvec installed under /tmp."""
    installed = {Path(path).relative_to("/tmp").parts[0] for path in isolation.read_only_binds()
                 if path.startswith("/tmp/")}
    return sorted({"matplotlib", *installed})


def program(pool: SandboxPool, code: str, name: str = "job", **limits) -> SandboxJob:
    """``python prog.py`` in its own folder under the warm root: the shape of every unit-test program."""
    folder = pool.warm.root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "prog.py").write_text(code)
    job = SandboxJob([sys.executable, "prog.py"], folder, SandboxLimits(**limits))
    assert warm_slot(job, pool.warm) == name, "the job would not go to a warm worker"
    return job


def run(pool: SandboxPool, code: str, name: str = "job", *, expect_warm: bool = True, **limits):
    (result,) = pool.run_all([program(pool, code, name, **limits)])
    assert (pool.warm is not None) is expect_warm, pool.warm_unavailable or "a warm worker served it"
    return result


def test_programs_outside_the_root_or_not_python_files_run_cold(pool, tmp_path):
    outside = SandboxJob([sys.executable, "prog.py"], tmp_path / "elsewhere")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "prog.py").write_text("print(1)")
    inline = SandboxJob([sys.executable, "-c", "print(1)"], pool.warm.root / "inline")
    (pool.warm.root / "inline").mkdir(parents=True)
    assert warm_slot(outside, pool.warm) is None and warm_slot(inline, pool.warm) is None


def test_a_program_sees_no_secret_and_only_the_allowlisted_environment(pool, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-1")
    monkeypatch.setenv("DATABASE_URL", "postgres://u:pw@h/db")
    seen = json.loads(run(pool, "import os, json; print(json.dumps(dict(os.environ)))").stdout)
    assert set(seen) <= set(isolation.ENVIRONMENT_ALLOWLIST) | {
        "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS", "MPLBACKEND",
        "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "HOME", "MPLCONFIGDIR", "XDG_CACHE_HOME"}
    assert "sk-1" not in json.dumps(seen) and "pw@h" not in json.dumps(seen)


def test_an_8_gib_allocation_is_stopped_by_the_memory_limit(pool):
    result = run(pool, "b = bytearray(8 * 1024**3); print('allocated')", memory_bytes=2 * GiB)
    assert result.memory_exceeded and "allocated" not in result.stdout


def test_a_looping_program_is_killed_with_all_its_children(pool):
    code = HEARTBEAT + ("children = [subprocess.Popen([sys.executable, '-c', beat]) for _ in range(3)]\n"
                        "while True: pass\n")
    result = run(pool, code, wall_s=3)
    assert result.timed_out and not result.ok
    assert _stopped_growing(pool.warm.root / "job" / "beat.txt")


def test_a_daemon_left_behind_dies_with_its_program(pool):
    code = HEARTBEAT + ("subprocess.Popen([sys.executable, '-c', beat], start_new_session=True)\n"
                        "import time\nwhile not os.path.exists('beat.txt'):\n    time.sleep(0.01)\n")
    assert run(pool, code).ok
    assert _stopped_growing(pool.warm.root / "job" / "beat.txt")


def test_the_cpu_and_disk_limits_hold(pool):
    assert run(pool, "while True: pass", "busy", wall_s=30, cpu_s=1).cpu_exceeded
    writer = ("import os, time\nfor i in range(100):\n"
              "    with open(f'chunk{i}', 'wb') as f: f.write(os.urandom(5 * 2**20))\n    time.sleep(0.05)\n")
    assert run(pool, writer, "writer", disk_bytes=40 * 2**20, wall_s=60).disk_exceeded


PEEK = """import glob, json, os, subprocess
print(json.dumps({
    "cwd": os.getcwd(),
    "slots": os.path.exists("/sandbox/slots"),
    "neighbour": os.path.exists("/sandbox/slots/other/secret.txt"),
    "processes": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
    "capabilities": [line.split()[1] for line in open("/proc/self/status") if line.startswith("Cap")],
    "umount": subprocess.run(["umount", "/sandbox/slots"], capture_output=True).returncode,
    "tmp": os.listdir("/tmp"),
}))
open("/tmp/left-by-" + os.path.basename(os.getcwd()), "w").write("x")
"""


def test_a_program_sees_its_own_folder_and_nothing_of_the_worker_or_another_program(pool):
    (pool.warm.root / "other").mkdir(parents=True)
    (pool.warm.root / "other" / "secret.txt").write_text("-25.1077971116")
    first, second = (json.loads(run(pool, PEEK, name).stdout) for name in ("a", "b"))
    for seen in (first, second):
        assert seen["cwd"] == isolation.SANDBOX_WORKDIR
        assert not seen["slots"] and not seen["neighbour"], "the worker's folder of slots is not in the program's root"
        assert seen["processes"] == [1], "only its own PID namespace, in which it is PID 1"
        assert set(seen["capabilities"]) == {"0000000000000000"}, "no capability in any set, bounding included"
        assert seen["umount"] != 0
    assert sorted(second["tmp"]) == tmp_of_a_fresh_program(), "the first program's /tmp file is not visible"


LEAVE = """import json, os
written = []
for path in ("/planted", "/dev/planted", "/sandbox/planted", "/tmp/planted", "/dev/shm/planted", "here.txt"):
    try:
        open(path, "w").write("the task point's value: -25.1077971116")
        written.append(path)
    except OSError:
        pass
print(json.dumps(written))
"""
LOOK = """import json, os
found = {}
for folder in ("/", "/dev", "/sandbox", "/sandbox/work", "/tmp", "/dev/shm"):
    found[folder] = sorted(os.listdir(folder))
print(json.dumps(found))
"""


def test_nothing_one_program_writes_anywhere_is_seen_by_the_next(tmp_path):
    pool = SandboxPool(cores=1).warm_for(tmp_path / "work", "numpy")  # one worker: the two programs share it
    try:
        written = json.loads(run(pool, LEAVE, "first").stdout)
        assert written == ["/tmp/planted", "/dev/shm/planted", "here.txt"], "/, /dev and /sandbox are read-only"
        for name in ("second", "first"):  # another program's folder, and the writer's own folder name again
            if name == "first":
                (pool.warm.root / "first" / "here.txt").unlink()
            seen = json.loads(run(pool, LOOK, name).stdout)
            assert not any("planted" in entry for entries in seen.values() for entry in entries), seen
            assert seen["/sandbox"] == ["work"] and seen["/tmp"] == tmp_of_a_fresh_program() and seen["/dev/shm"] == []
    finally:
        pool.close()


def test_an_interpreter_folder_under_tmp_stays_visible_in_a_warm_program(tmp_path, monkeypatch):
    """A venv under /tmp is bound inside the program's own /tmp: a module a program imports late from it is
    found (a fresh /tmp mounted over it hid it, and imports after the worker's failed)."""
    site = Path("/tmp") / f"physvec-site-{os.getpid()}-{tmp_path.name}"
    site.mkdir()
    (site / "late_module.py").write_text("VALUE = 42\n")
    roots = isolation._readable_roots
    monkeypatch.setattr(isolation, "_readable_roots", lambda: [*roots(), site])
    pool = SandboxPool(cores=1).warm_for(tmp_path / "work", "numpy")
    try:
        code = f"import sys\nsys.path.append({str(site)!r})\nimport late_module\nprint(late_module.VALUE)\n"
        result = run(pool, code)
        assert result.ok and result.stdout.strip() == "42", result.stderr
    finally:
        pool.close()
        shutil.rmtree(site)


def test_no_socket_reaches_a_listener_on_the_host(pool):
    import socket

    listener = socket.create_server(("127.0.0.1", 0))
    code = ("import json, socket\ntry:\n"
            f"    socket.create_connection(('127.0.0.1', {listener.getsockname()[1]}), timeout=2)\n"
            "    print(json.dumps('connected'))\nexcept OSError as error:\n    print(json.dumps('refused'))\n")
    assert json.loads(run(pool, code).stdout) == "refused"
    listener.close()


def test_two_programs_draw_different_random_numbers(pool):
    # a forked interpreter would repeat the worker's numpy stream; a cold one draws fresh entropy
    code = "import numpy, random; print(numpy.random.rand(), random.random())"
    draws = [run(pool, code, name).stdout for name in ("a", "b")]
    assert draws[0] != draws[1]


def test_a_failing_program_reports_what_a_cold_interpreter_reports(pool):
    code = "import sys\n\n\ndef f():\n    raise ValueError('boom')\n\n\nif sys.argv[0] == 'prog.py':\n    f()\n"
    warm = run(pool, code)
    cold_job = program(pool, code, "cold")
    cold = run_program(cold_job)
    assert warm.returncode == cold.returncode == 1
    assert warm.stderr == cold.stderr, "same traceback, same line numbers, same file name"
    assert run(pool, "import sys; sys.exit(3)", "three").returncode == 3


def test_a_program_finds_pyplot_preloaded_and_its_config_folder_in_place(pool):
    # the worker imported pyplot (its config folder was made in the worker's /tmp); the program's fresh /tmp must
    # hold it again, as a cold import would have made it, and a figure must save
    code = ("import sys, os, matplotlib\n"
            "preloaded = 'matplotlib.pyplot' in sys.modules\n"
            "import matplotlib.pyplot as plt\n"
            "plt.plot([0, 1]); plt.savefig('figure.png')\n"
            "print(preloaded, os.path.isdir(matplotlib.get_configdir()), matplotlib.get_backend())\n")
    result = run(pool, code, "plot")
    assert result.ok, result.stderr
    assert result.stdout.split() == ["True", "True", "Agg"]
    assert (pool.warm.root / "plot" / "figure.png").read_bytes()[:4] == b"\x89PNG"


def test_a_segfault_costs_that_program_only(pool):
    crashed = run(pool, "import ctypes; ctypes.string_at(0)", "crash")
    assert not crashed.ok and crashed.returncode == 128 + signal.SIGSEGV
    assert run(pool, "print('next')", "next").stdout.strip() == "next"


def test_a_worker_killed_under_a_program_costs_that_program_and_is_replaced(pool):
    code = "import time; open('started', 'w').write('1'); time.sleep(30)"
    job = program(pool, code, "victim", wall_s=60)

    def kill_the_worker_once_started() -> None:
        while not (job.workdir / "started").exists():
            time.sleep(0.05)
        for pid in pool.busy_worker_pids():
            os.killpg(pid, signal.SIGKILL)

    import threading

    threading.Thread(target=kill_the_worker_once_started, daemon=True).start()
    (lost,) = pool.run_all([job])
    assert not lost.ok and "warm worker" in lost.stderr
    assert run(pool, "print('after')", "after").stdout.strip() == "after"


VERIFIER = """import sys, time
from pathlib import Path
from physvec.verifiers.sandbox import SandboxJob, SandboxLimits, SandboxPool
root = Path(sys.argv[1])
pool = SandboxPool(cores=1).warm_for(root, "numpy")
(root / "job").mkdir(parents=True, exist_ok=True)
(root / "job" / "prog.py").write_text(sys.argv[2])
pool.run_all([SandboxJob([sys.executable, "prog.py"], root / "job", SandboxLimits(wall_s=120))])
"""


def test_a_verifier_killed_with_sigkill_takes_its_programs_with_it(tmp_path):
    code = HEARTBEAT + "children = [subprocess.Popen([sys.executable, '-c', beat]) for _ in range(2)]\nexec(beat)\n"
    verifier = subprocess.Popen([sys.executable, "-c", VERIFIER, str(tmp_path / "work"), code])
    beat = tmp_path / "work" / "job" / "beat.txt"
    deadline = time.monotonic() + 120
    while not beat.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert beat.exists(), "the program never started"
    verifier.kill()
    verifier.wait()
    assert _stopped_growing(beat), "a program outlived the verifier that started it"


@pytest.mark.parametrize("backend", sorted(BACKEND_PRELOAD))
def test_a_worker_s_preloaded_libraries_start_no_thread(backend):
    # fork copies only the calling thread: what a worker imports must not have started any (measured: netket's
    # own import starts sixteen, which is why netket itself is not preloaded)
    modules = BACKEND_PRELOAD[backend]
    probe = ("import importlib, os, sys\n"
             "for name in sys.argv[1].split(','):\n"
             "    try:\n        importlib.import_module(name)\n    except ImportError:\n        pass\n"
             "print(len(os.listdir('/proc/self/task')))\n")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    threads = subprocess.run([sys.executable, "-c", probe, ",".join(modules)], capture_output=True, text=True,
                             env=env, check=True).stdout
    assert int(threads) == 1


def test_the_folder_a_program_runs_in_must_be_a_plain_folder_under_the_root(pool, tmp_path):
    # a symlink planted where a program's folder should be would bind another folder into its view
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "prog.py").write_text("print('escaped')")
    pool.warm.root.mkdir(parents=True, exist_ok=True)
    (pool.warm.root / "link").symlink_to(tmp_path / "elsewhere")
    job = SandboxJob([sys.executable, "prog.py"], pool.warm.root / "link")
    assert warm_slot(job, pool.warm) is None


def test_the_worker_and_the_host_agree_on_the_sandbox_paths():
    from physvec.verifiers import warm_zygote

    assert (warm_zygote.SLOTS, warm_zygote.WORKDIR) == (isolation.SANDBOX_SLOTS, isolation.SANDBOX_WORKDIR)


def test_where_no_worker_can_start_programs_run_cold_and_the_pool_says_why(tmp_path, monkeypatch):
    from physvec.verifiers import warm_pool

    monkeypatch.setattr(warm_pool, "warm_worker_argv", lambda argv, root, environment: ["false"])
    pool = SandboxPool(cores=1).warm_for(tmp_path / "work", "numpy")
    try:
        assert run(pool, "print('cold')", expect_warm=False).stdout.strip() == "cold"
        assert pool.warm is None and "no warm worker" in pool.warm_unavailable
    finally:
        pool.close()


def test_a_planted_link_inside_the_run_s_work_folder_stops_the_program_even_cold(tmp_path):
    # the main run may write only in its own folder, work/v01; a unit test's folder work/v01/unit/f lies inside
    # it, so a link planted there would bind the run's sealed inputs (../../../inputs) as the test's folder
    root = tmp_path / "run" / "work"
    (root / "v01").mkdir(parents=True)
    (tmp_path / "run" / "inputs").mkdir()
    (root / "v01" / "unit").symlink_to("../../inputs")
    pool = SandboxPool(cores=1).warm_for(root, "numpy")
    pool.warm = None  # the check holds for cold programs as well
    try:
        job = SandboxJob([sys.executable, "-c", "print('ran')"], root / "v01" / "unit" / "f")
        (result,) = pool.run_all([job])
        assert result.returncode == 126 and "symbolic link" in result.stderr and "ran" not in result.stdout
        assert not (tmp_path / "run" / "inputs" / "f").exists(), "nothing was created through the link"
    finally:
        pool.close()


@pytest.mark.parametrize("threads", [1, 2])
def test_a_worker_serves_at_every_thread_share(tmp_path, threads):
    # OpenBLAS's pools (numpy's and scipy's own copy) grow with the share; they are the worker's baseline, not a
    # reason to refuse it (TeNPy's programs are held to one thread, so the numpy preload shows the pools)
    pool = SandboxPool(cores=threads).warm_for(tmp_path / "work", "numpy")
    try:
        assert run(pool, "import os; print(os.environ['OMP_NUM_THREADS'])").stdout.strip() == str(threads)
        assert pool.warm is not None, pool.warm_unavailable
    finally:
        pool.close()


def test_prestarted_workers_serve_the_next_parallel_batch(pool):
    # A run starts them before the Author writes, so the first programming round waits for no import.
    pool.prestart()
    started = {worker.process.pid for shelf in pool._workers._idle.values() for worker in shelf}
    assert len(started) == pool.cores
    code = "import os, time; time.sleep(0.5); print(os.getpid())"
    results = pool.run_all([program(pool, code, f"job-{i}") for i in range(pool.cores)])
    assert all(result.returncode == 0 for result in results) and pool.warm is not None
    served = {worker.process.pid for shelf in pool._workers._idle.values() for worker in shelf}
    assert served == started, "the batch borrowed the prestarted workers and started none of its own"
