"""The 20 QMP-Bench reference scripts (the library proposer's, as the fault benchmark verifies them) take no
look at their surroundings: each one's execution, watched by its provenance hook in a warm worker of its
backend, leaves a record with no breach, and the contract finds none in its source.

The DFT, Qiskit and TeNPy references run in the default suite (2-5 s each); the NetKet ones (12-21 s each) are
heavy, and the fault benchmark (`qmp-bench faults`) covers them too: an unmutated reference with a breach would
fail its provenance obligation and count as a false alarm.
"""

from __future__ import annotations

import shutil
import sys
from contextlib import closing

import pytest

from physvec.verifiers.library.composer import compose_script
from physvec.qmp_bench.catalogue import bench_tasks
from physvec.taskfiles.loading import load_task
from physvec.verifiers.programming.contract import analyse_script
from physvec.verifiers.sandbox import SandboxJob, SandboxLimits, SandboxPool

HEAVY_TOPICS = ("nqs",)


@pytest.mark.parametrize("task", [pytest.param(task, marks=[pytest.mark.heavy] if task.topic in HEAVY_TOPICS else [])
                                  for task in bench_tasks()], ids=lambda task: task.name)
def test_a_reference_script_s_execution_takes_no_look_at_its_surroundings(task, tmp_path):
    loaded = load_task(task.task_file)
    script = compose_script(loaded.task.spec, loaded.task.backend).script
    assert not [b.name for b in analyse_script(script).breaches], "the contract finds no breach"
    folder = tmp_path / "work" / "main"
    folder.mkdir(parents=True)
    (folder / "script.py").write_text(script)
    with closing(SandboxPool(cores=1).warm_for(tmp_path / "work", loaded.task.backend)) as pool:
        (result,) = pool.run_all([SandboxJob([sys.executable, "script.py"], folder,
                                             SandboxLimits(wall_s=float(loaded.task.limits.sandbox_wall_s)))])
    assert result.ok, result.stderr[-2000:]
    assert result.watched and result.breaches == (), [b.describe() for b in result.breaches]
    shutil.rmtree(tmp_path / "work")
