"""Where Julia scripts can run: a Julia executable, juliacall, and a project in which ITensors loads.

Julia programs run in the sandbox like Python ones: a Python process imports juliacall and includes
the Julia file.  juliacall is pointed at an existing Julia and project (``PYTHON_JULIACALL_EXE`` and
``PYTHON_JULIACALL_PROJECT``, with juliapkg offline) so that it never downloads Julia or packages.
When anything is missing, ``missing`` says what, and the Julia obligations are unknown with that reason.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from physvec.verifiers.sandbox import SandboxJob, SandboxLimits, SandboxPool

LAUNCHER = "import sys\nfrom juliacall import Main\nMain.include(sys.argv[1])\n"
"""Runs one Julia file (the argument) through juliacall, in the sandbox's working directory."""
PROBE = "using ITensors, ITensorMPS\n"
HOW_TO_ENABLE = ("install Julia with ITensors and ITensorMPS in a project, pip install 'physvec[julia]', and set "
                 "PYTHON_JULIACALL_EXE and PYTHON_JULIACALL_PROJECT (see docs/julia.md)")


@dataclass(frozen=True)
class JuliaRuntime:
    """A Julia installation the sandbox can run ITensors scripts with, or why there is none."""

    executable: str | None
    project: str | None
    missing: str | None
    """why Julia scripts cannot run here; None when they can"""

    @property
    def available(self) -> bool:
        return self.missing is None

    def environment(self) -> dict[str, str]:
        """What juliacall needs to use this Julia and project without touching the network."""
        return {"PYTHON_JULIACALL_EXE": self.executable or "", "PYTHON_JULIACALL_PROJECT": self.project or "",
                "PYTHON_JULIAPKG_OFFLINE": "yes", "JULIA_NUM_THREADS": "1"}

    def job(self, program: Path, limits: SandboxLimits) -> SandboxJob:
        """The sandbox job that runs the Julia file ``program`` in its own folder."""
        return SandboxJob(argv=[sys.executable, "-c", LAUNCHER, program.name], workdir=program.parent,
                          limits=limits, extra_env=self.environment())


def _executable() -> str | None:
    return os.environ.get("PYTHON_JULIACALL_EXE") or shutil.which("julia")


def _project(executable: str) -> str | None:
    """The project juliacall should use: the configured one, else Julia's own active project."""
    return os.environ.get("PYTHON_JULIACALL_PROJECT") or os.environ.get("JULIA_PROJECT") or _active_project(executable)


@functools.cache
def _active_project(executable: str) -> str | None:
    """The folder of Julia's active project, asked once per executable (starting Julia takes seconds)."""
    try:
        answer = subprocess.run([executable, "--startup-file=no", "-e", "print(dirname(Base.active_project()))"],
                                capture_output=True, text=True, timeout=120, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return answer.stdout.strip() or None


def locate_julia() -> JuliaRuntime:
    """The Julia executable, juliacall and the project, before anything is run in them."""
    executable = _executable()
    if executable is None:
        return JuliaRuntime(None, None, "Julia is not installed here (no julia on PATH, PYTHON_JULIACALL_EXE unset): "
                                        + HOW_TO_ENABLE)
    if importlib.util.find_spec("juliacall") is None:
        return JuliaRuntime(executable, None, "juliacall is not installed: " + HOW_TO_ENABLE)
    project = _project(executable)
    if project is None:
        return JuliaRuntime(executable, None, f"no Julia project found for {executable}: " + HOW_TO_ENABLE)
    return JuliaRuntime(executable, project, None)


_PROBED: dict[tuple[str | None, str | None], JuliaRuntime] = {}


def julia_runtime(pool: SandboxPool, limits: SandboxLimits, workdir: Path) -> JuliaRuntime:
    """The located runtime, checked once per process by loading ITensors and ITensorMPS in the sandbox."""
    located = locate_julia()
    if not located.available:
        return located
    key = (located.executable, located.project)
    if key not in _PROBED:
        probe = workdir / "julia-probe" / "probe.jl"
        probe.parent.mkdir(parents=True, exist_ok=True)
        probe.write_text(PROBE)
        (result,) = pool.run_all([located.job(probe, limits)])
        _PROBED[key] = located if result.ok else JuliaRuntime(
            located.executable, located.project,
            f"ITensors and ITensorMPS do not load in the Julia project {located.project}: {result.summary()} "
            f"{result.stderr[-1500:]}")
    return _PROBED[key]
