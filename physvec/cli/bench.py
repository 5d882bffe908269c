"""`physvec bench programming`: what the Programming verifier costs, measured against plain runs.

For each reference script: the wall time of one plain sandboxed execution (a cold interpreter, as a user
runs the script), of the whole programming verification (contract, one instrumented execution, every unit
test, in parallel, in warm workers that import the backend once: verifiers/warm_pool.py; the workers'
start-up is counted), the same verification with the workers already started (as in a run, where they
import while the Author writes: SandboxPool.prestart), the same verification with every program in a cold
interpreter, and a naive integration strategy that runs the script once per level.  Ratios are to the
plain execution.
"""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from physvec.verifiers.certificate import Certificate
from physvec.verifiers.programming import programming_metrics, verify_script
from physvec.verifiers.programming.contract import analyse_script
from physvec.verifiers.sandbox import SandboxJob, SandboxLimits, SandboxPool

DEFAULT_SCRIPTS = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "scripts"
LIMITS = SandboxLimits(wall_s=600)


@dataclass(frozen=True)
class ProgrammingCost:
    backend: str
    levels: int
    plain_s: float
    verification_s: float
    prestarted_s: float
    cold_verification_s: float
    naive_levels_s: float
    unit_accuracy: float | None

    @property
    def verification_ratio(self) -> float:
        return self.verification_s / self.plain_s

    @property
    def prestarted_ratio(self) -> float:
        return self.prestarted_s / self.plain_s

    @property
    def cold_ratio(self) -> float:
        return self.cold_verification_s / self.plain_s

    @property
    def naive_ratio(self) -> float:
        return self.naive_levels_s / self.plain_s


def _timed(action) -> float:
    started = time.monotonic()
    action()
    return time.monotonic() - started


def _naive_program(run: str, level: int) -> str:
    return ("from physvec.verifiers.programming.harness import run_until_level\n"
            f"run_until_level('script.py', {run!r}, {level})\n")


def _warm_verification(script: Path, backend: str, folder: Path, cores: int, prestarted: bool
                       ) -> tuple[float, Certificate]:
    """Seconds of one verification in warm workers of its own, their start-up counted, or with ``prestarted``
    not: started and ready before the clock starts, as in a run, where they import while the Author writes."""
    warm = SandboxPool(cores).warm_for(folder, backend)
    try:
        if prestarted:
            warm.prestart(wait=True)
        started = time.monotonic()
        certificate = verify_script(script, backend, folder, warm, LIMITS)
        return time.monotonic() - started, certificate
    finally:
        warm.close()


def measure(script: Path, backend: str, pool: SandboxPool) -> ProgrammingCost:
    """Plain, verification (warm and cold) and naive level-by-level wall times of one script."""
    source = script.read_text()
    contract = analyse_script(source)
    with tempfile.TemporaryDirectory(prefix="physvec-bench-") as folder:
        work = Path(folder)
        (work / "plain").mkdir()
        (work / "plain" / "script.py").write_text(source)
        plain = _timed(lambda: pool.run_all([SandboxJob([sys.executable, "script.py"], work / "plain", LIMITS)]))
        verification, certificate = _warm_verification(script, backend, work / "verify", pool.cores, False)
        after_prestart, _ = _warm_verification(script, backend, work / "prestarted", pool.cores, True)
        cold = _timed(lambda: verify_script(script, backend, work / "cold", pool, LIMITS))
        naive = 0.0
        for run in contract.runs.values():
            for level in range(1, len(run.element_calls) + 1):
                folder_k = work / "naive" / f"{run.name}-{level}"
                folder_k.mkdir(parents=True)
                (folder_k / "script.py").write_text(source)
                (folder_k / "level.py").write_text(_naive_program(run.name, level))
                naive += _timed(lambda: pool.run_all([SandboxJob([sys.executable, "level.py"], folder_k, LIMITS)]))
    levels = sum(len(run.element_calls) for run in contract.runs.values())
    return ProgrammingCost(backend, levels, plain, verification, after_prestart, cold, naive,
                           programming_metrics(certificate)["unit_accuracy"])


def bench_programming(scripts_dir: Path = DEFAULT_SCRIPTS, console: Console | None = None) -> list[ProgrammingCost]:
    """Measure every <backend>/reference.py under ``scripts_dir`` and print the table."""
    console = console or Console()
    pool = SandboxPool()
    costs = []
    for script in sorted(scripts_dir.glob("*/reference.py")):
        console.print(f"measuring {script.parent.name} ...", highlight=False)
        costs.append(measure(script, script.parent.name, pool))
    table = Table("backend", "levels", "plain (s)", "verification (s)", "verification / plain",
                  "workers prestarted / plain", "cold verification / plain", "naive levels (s)", "naive / plain",
                  "unit accuracy", title=f"programming verification cost ({pool.cores} cores)")
    for cost in costs:
        table.add_row(cost.backend, str(cost.levels), f"{cost.plain_s:.1f}", f"{cost.verification_s:.1f}",
                      f"{cost.verification_ratio:.2f}", f"{cost.prestarted_ratio:.2f}", f"{cost.cold_ratio:.2f}",
                      f"{cost.naive_levels_s:.1f}",
                      f"{cost.naive_ratio:.2f}", "-" if cost.unit_accuracy is None else f"{cost.unit_accuracy:.2f}")
    console.print(table)
    return costs
