"""`physvec doctor`: what this machine can do for physvec, and what the model endpoint says, before a run.

Each line is a check with its finding; exit 0 when everything a run needs is here, 1 when something is
missing or broken (the line says how to get it, or what is wrong), 2 when the model cannot be asked (the
preflight's cause).  Besides finding the backends, it sends one warm and one cold probe program of each
installed backend through the real sandbox (verifiers/sandbox_check.py), so that a sandbox that hides part
of the installation is named here rather than blamed on a script in a run.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil

from rich.console import Console

BACKENDS = {"tenpy": "tenpy", "qiskit": "qiskit", "netket": "netket", "pyscf": "pyscf"}
"""Backend name -> the module a script imports."""


def _sandbox_checks(backend: str) -> list:
    """One warm and one cold probe program of ``backend`` through the real sandbox, in a scratch folder."""
    import tempfile
    from pathlib import Path

    from physvec.verifiers.sandbox import SandboxPool
    from physvec.verifiers.sandbox_check import check_sandbox

    with tempfile.TemporaryDirectory(prefix="physvec-doctor-") as scratch:
        warm = SandboxPool(cores=1).warm_for(Path(scratch) / "warm", backend)
        try:
            checks = [check_sandbox(backend, warm, Path(scratch) / "warm" / "probe")]
        finally:
            warm.close()
        checks.append(check_sandbox(backend, SandboxPool(cores=1), Path(scratch) / "cold" / "probe"))
    return checks


def run(arguments: argparse.Namespace) -> int:
    from physvec.agents.preflight import ProviderUnreachable, preflight
    from physvec.agents.providers import ProviderSettings
    from physvec.verifiers.isolation import probe

    console = Console(highlight=False)
    isolation = probe()
    console.print(f"isolation   {'ok' if isolation.full else 'MISSING'}  {isolation.describe()}")
    missing = [] if isolation.full else ["isolation"]
    for backend, module in BACKENDS.items():
        found = importlib.util.find_spec(module) is not None
        console.print(f"{backend:<11} {'ok' if found else 'MISSING'}  "
                      + ("importable" if found else f"pip install -e . installs it (module {module} not found)"))
        missing += [] if found else [backend]
        if found:
            checks = _sandbox_checks(backend)
            broken = [check for check in checks if not check.ok]
            console.print(f"{'':<11} {'ok' if not broken else 'FAILED'}  sandbox: "
                          + "; ".join(check.describe() for check in checks))
            missing += [f"{backend} sandbox"] if broken else []
    julia = shutil.which("julia")
    console.print(f"{'itensors':<11} {'ok' if julia else 'absent'}  "
                  + (f"julia at {julia}" if julia else "no julia: ITensors tasks end unknown (docs/julia.md)"))
    spec = arguments.model or os.environ.get("PHYSVEC_MODEL")
    if not spec:
        console.print("model       none   no --model or PHYSVEC_MODEL: runs use --model library or scripted replies")
        return 1 if missing else 0
    try:
        endpoint = preflight(spec, ProviderSettings(base_url=arguments.base_url, timeout_s=arguments.timeout))
    except ProviderUnreachable as error:
        console.print(f"model       FAILED {spec}: {error}")
        return 2
    console.print(f"model       ok     {spec}" + (f": {endpoint}" if endpoint else " (asks no server)"))
    return 1 if missing else 0
