"""Fault-localisation matrix of the Programming verifier, every backend (NetKet included).

Runs each backend's reference script (every obligation must hold), then each injected fault of
tests/verifiers/programming/faults.py, through one verification round and prints whether the fault was
localised to the right function (unit test and integration), with wall times.
The test suite runs two Qiskit faults; the rest of Qiskit's matrix and NetKet's, TeNPy's and PySCF's run here.

    python benchmarks/fault_localisation.py [backend ...]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from tests.verifiers.programming.faults import FAULTS, MISMATCHES, reference
from physvec.verifiers.certificate import Outcome
from physvec.verifiers.programming import verify_script
from physvec.verifiers.sandbox import SandboxLimits, SandboxPool


def _verify(source: str, backend: str):
    with tempfile.TemporaryDirectory(prefix="physvec-faults-") as folder:
        script = Path(folder) / "script.py"
        script.write_text(source)
        started = time.monotonic()
        pool = SandboxPool().warm_for(Path(folder) / "work", backend)
        try:
            certificate = verify_script(script, backend, Path(folder) / "work", pool, SandboxLimits(wall_s=300))
        finally:
            pool.close()
        return certificate, time.monotonic() - started


def _units_failed(certificate) -> list[str]:
    return sorted(o.name.removeprefix("unit:") for o in certificate.obligations
                  if o.category == "unit" and o.outcome is Outcome.FAILED)


def _integration(certificate):
    return next((o for o in certificate.obligations if o.category == "integration"), None)


def main(backends: list[str]) -> int:
    table = Table("backend", "case", "localised", "seconds", title="fault localisation in one round")
    correct = total = 0
    for backend in backends:
        certificate, seconds = _verify(reference(backend), backend)
        ok = all(o.outcome is Outcome.CERTIFIED for o in certificate.obligations)
        correct, total = correct + ok, total + 1
        table.add_row(backend, "reference script passes every obligation", "yes" if ok else "NO", f"{seconds:.1f}")
        for fault in FAULTS[backend]:
            certificate, seconds = _verify(fault.apply(reference(backend)), backend)
            integration = _integration(certificate)
            ok = _units_failed(certificate) == [fault.function] and (
                fault.integration_fails_at is None
                or (integration is not None and integration.evidence.get("failing_function") == fault.integration_fails_at))
            correct, total = correct + ok, total + 1
            table.add_row(backend, fault.kind, "yes" if ok else "NO", f"{seconds:.1f}")
        mismatch = MISMATCHES[backend]
        certificate, seconds = _verify(mismatch.apply(reference(backend)), backend)
        integration = _integration(certificate)
        ok = not _units_failed(certificate) and integration is not None and \
            integration.evidence.get("interface") == [mismatch.producer, mismatch.consumer]
        correct, total = correct + ok, total + 1
        table.add_row(backend, "interface mismatch", "yes" if ok else "NO", f"{seconds:.1f}")
    console = Console()
    console.print(table)
    console.print(f"localised {correct} of {total}")
    return 0 if correct == total else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or list(FAULTS)))
