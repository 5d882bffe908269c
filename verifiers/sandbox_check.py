"""Does the sandbox work here, for this backend?  One real program through it, and the cause when it does not.

A sandbox that hides what programs need (a venv under /tmp that a fresh /tmp covers, a library installed
outside every bound folder) makes every program fail, and each failure looks like the script's fault: the
report blamed a plot function for a missing ``matplotlib.backends.backend_agg``.  So before a run's first
verification, and in ``physvec doctor``, a probe program goes through the same pool the run uses: it checks
that every folder the sandbox binds for the interpreter and for physvec is there, imports what verification
programs import (the backend, pyplot's Agg backend, the harness, the background library), and saves a
figure.  When it fails, the check names the cause in words a person can act on, and the run ends ``error``
with that cause instead of blaming a script.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from physvec.verifiers.library import BACKEND_MODULES
from physvec.verifiers.sandbox import SandboxJob, SandboxLimits, SandboxPool

BACKEND_IMPORTS = {"tenpy": ("tenpy",), "qiskit": ("qiskit", "qiskit_aer"), "pyscf": ("pyscf", "pyscf.scf"),
                   "netket": ("netket",), "numpy": ("numpy",), "itensors": ()}
"""What a backend's scripts import, besides what every verification program imports."""
PROBE_FILE = "sandbox_probe.py"
REPORT_FILE = "sandbox_probe.json"
PROBE_LIMITS = SandboxLimits(wall_s=300)

PROBE = '''import importlib, json, os, traceback
report = {{"missing": [path for path in {folders!r} if not os.path.exists(path)], "imports": {{}}}}
for module in {modules!r}:
    try:
        importlib.import_module(module)
    except BaseException as error:
        report["imports"][module] = "".join(traceback.format_exception_only(type(error), error)).strip()
try:
    import matplotlib.pyplot as plt
    plt.plot([0, 1], [0, 1])
    plt.savefig("probe.png")
except BaseException as error:
    report["figure"] = "".join(traceback.format_exception_only(type(error), error)).strip()
json.dump(report, open({report!r}, "w"))
'''


@dataclass(frozen=True)
class SandboxCheck:
    """What one probe program found: ``cause`` is empty when the sandbox works."""

    backend: str
    warm: bool
    seconds: float
    cause: str = ""
    note: str = ""
    """why the program ran cold where a warm worker was asked for (the run goes on, cold)"""

    @property
    def ok(self) -> bool:
        return not self.cause

    def describe(self) -> str:
        path = "warm" if self.warm else "cold"
        note = f" ({self.note})" if self.note else ""
        return f"{self.backend} {path} {self.seconds:.1f} s{note}" + (f": {self.cause}" if self.cause else "")


def needed_folders() -> list[str]:
    """The folders a verification program needs to see, as this interpreter knows them (not as the sandbox's
    binds say: a bind list that misses one is what the probe must catch)."""
    import site

    import physvec
    import physvec.verifiers

    folders = {sys.prefix, sys.base_prefix, *site.getsitepackages(), *physvec.__path__, *physvec.verifiers.__path__}
    return sorted(folder for folder in folders if os.path.isdir(folder))


def _modules(backend: str) -> list[str]:
    background = BACKEND_MODULES.get(backend)
    return [*BACKEND_IMPORTS.get(backend, (backend,)), "matplotlib.backends.backend_agg",
            "physvec.verifiers.programming.harness", "physvec.verifiers.library.plots",
            *([f"physvec.verifiers.library.{background}"] if background else [])]


def _role(path: str) -> str:
    """What a bound folder is, for a person reading the cause."""
    prefixes = {sys.prefix: "the interpreter's environment", sys.base_prefix: "the base interpreter"}
    role = prefixes.get(path) or ("the site-packages" if "site-packages" in path else
                                  "physvec's source" if Path(path, "__init__.py").exists() else "the folder")
    return f"{role} {path}" + (" (under /tmp)" if path.startswith("/tmp/") else "")


def _cause(report: dict | None, stderr: str, summary: str) -> str:
    """The cause, in words, of a probe's failure ("" when it found nothing wrong)."""
    if report is None:
        return f"the probe program did not finish ({summary}): {stderr.strip()[-300:] or 'no output'}"
    if report["missing"]:
        return "; ".join(f"{_role(path)} is hidden inside the sandbox" for path in report["missing"])
    failed = report["imports"]
    if failed:
        outside = [module for module in failed if _importable_here(module)]
        note = (f" ({', '.join(outside)} imports outside the sandbox: the sandbox hides part of the installation)"
                if outside else "")
        return "; ".join(f"{module} cannot be imported inside the sandbox: {error}"
                         for module, error in failed.items()) + note
    return f"a figure cannot be saved inside the sandbox: {report['figure']}" if report.get("figure") else ""


def _importable_here(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def check_sandbox(backend: str, pool: SandboxPool, folder: Path) -> SandboxCheck:
    """Send one probe program of ``backend`` through ``pool`` (warm when the pool's warm root holds
    ``folder``, which is removed afterwards); what it found."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / PROBE_FILE).write_text(PROBE.format(folders=needed_folders(), modules=_modules(backend),
                                                  report=REPORT_FILE))
    started = time.monotonic()
    (result,) = pool.run_all([SandboxJob([sys.executable, PROBE_FILE], folder, PROBE_LIMITS)])
    warm = pool.warm is not None and Path(os.path.abspath(folder)).is_relative_to(pool.warm.root)
    try:
        report = json.loads((folder / REPORT_FILE).read_text())
    except (OSError, ValueError):
        report = None
    shutil.rmtree(folder, ignore_errors=True)  # it names this machine's folders; the check's finding is returned
    return SandboxCheck(backend, warm, time.monotonic() - started, _cause(report, result.stderr, result.summary()),
                        pool.warm_unavailable)
