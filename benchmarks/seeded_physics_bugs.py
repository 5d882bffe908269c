"""Seeded physics bugs: is each caught by its named check?

TeNPy trapped-Hubbard fixture: runs the correct script through the Scientific and Convergence
verifiers, then every seed of tests/verifiers/scientific/seeded_tenpy.py through the verifier that
must catch it.  Qiskit quench fixture: runs every seed of test_seeded_bugs_qiskit.py through the
whole `reproduce` pipeline.  One row each with wall times.  These are the heavy tests of
test_seeded_bugs_tenpy.py and test_seeded_bugs_qiskit.py.  Exit status 1 if a correct script is not
certified or a seed escapes.

    python benchmarks/seeded_physics_bugs.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from tests.verifiers.scientific.seeded_tenpy import SCRIPT, SEEDS, seeded, verify
from tests.verifiers.scientific.test_seeded_bugs_qiskit import SEEDS as QISKIT_SEEDS
from tests.verifiers.scientific.test_seeded_bugs_qiskit import caught_by_its_check
from physvec.verifiers.scientific import ConvergenceVerifier, ScientificVerifier


def _timed(source: str, verifiers: tuple) -> tuple[dict[str, str], float]:
    with tempfile.TemporaryDirectory(prefix="physvec-seeds-") as folder:
        started = time.monotonic()
        outcomes = verify(Path(folder), source, verifiers)
        return outcomes, time.monotonic() - started


def main() -> int:
    table = Table(title="TeNPy trapped attractive Hubbard, L = 8: seeded physics bugs")
    for column in ("script", "named check", "outcome", "as required", "seconds"):
        table.add_column(column)
    outcomes, seconds = _timed(SCRIPT, (ScientificVerifier(), ConvergenceVerifier()))
    failed = sorted(name for name, outcome in outcomes.items() if outcome == "failed")
    correct_ok = not failed
    table.add_row("correct script", "every check", "failed: " + ", ".join(failed) if failed else "none failed",
                  "yes" if correct_ok else "NO", f"{seconds:.1f}")
    caught = 0
    for seed, (_, verifier, check) in SEEDS.items():
        outcomes, seconds = _timed(seeded(seed), (verifier(),))
        outcome = outcomes.get(check, "missing")
        caught += outcome == "failed"
        table.add_row(seed, check, outcome, "yes" if outcome == "failed" else "NO", f"{seconds:.1f}")
    Console().print(table)
    print(f"correct script passes: {correct_ok}; seeds caught by their named check: {caught}/{len(SEEDS)}")
    qiskit_ok = _qiskit_seeds()
    return 0 if correct_ok and caught == len(SEEDS) and qiskit_ok else 1


def _qiskit_seeds() -> bool:
    table = Table(title="Qiskit four-qubit quench ring: seeded physics bugs through reproduce")
    for column in ("script", "as required", "seconds"):
        table.add_column(column)
    all_ok = True
    for seed in QISKIT_SEEDS:
        with tempfile.TemporaryDirectory(prefix="physvec-seeds-") as folder:
            started = time.monotonic()
            ok, _ = caught_by_its_check(Path(folder), seed)
            table.add_row(seed, "yes" if ok else "NO", f"{time.monotonic() - started:.1f}")
        all_ok &= ok
    Console().print(table)
    return all_ok


if __name__ == "__main__":
    sys.exit(main())
