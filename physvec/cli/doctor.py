"""`physvec doctor`: what this machine can do for physvec, and what the model endpoint says, before a run.

Each line is a check with its finding; exit 0 when everything a run needs is here, 1 when something is
missing (the line says how to get it), 2 when the model cannot be asked (the preflight's cause).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil

from rich.console import Console

BACKENDS = {"tenpy": "tenpy", "qiskit": "qiskit", "netket": "netket", "pyscf": "pyscf"}
"""Backend name -> the module a script imports."""


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
