"""`physvec bench whole`: what a whole verification costs against one plain run of the script it certified.

For the README example (its scripted replies) and one QMP-Bench task per topic (the library proposer, no
model): a real run of the pipeline, then the certified script executed once, plainly, in the sandbox (a
cold interpreter, as a user runs it).  The verification is the time of every verifier node (programming,
scientific, convergence, domain checks) that judged the final script version, read from the run's
transcript, so a repair round's verification of an earlier version is not charged to the certified script;
the run's whole wall time is printed beside it, and so is the schedule bound: the wall seconds of every
sandboxed program those nodes ran, summed, over the machine's cores (no schedule of the same checks can be
faster, so verification / bound says how much a better schedule could still gain).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from physvec.verifiers.sandbox import SandboxJob, SandboxLimits, SandboxPool

PROJECT = Path(__file__).resolve().parents[2]
VERIFIER_NODES = ("programming_verify", "scientific_verify", "convergence", "domain_checks")
TARGET_RATIO = 3.0


@dataclass(frozen=True)
class BenchTask:
    """A task file and the model spec that drives it."""

    name: str
    task: Path
    model: str


DEFAULT_TASKS = (
    BenchTask("README example", PROJECT / "examples" / "heisenberg_chain" / "task.json",
              f"scripted:{PROJECT / 'examples' / 'heisenberg_chain' / 'replies.json'}"),
    BenchTask("dmrg", PROJECT / "qmp_bench" / "tasks" / "dmrg" / "pfeuty1970-tfi-chain" / "task.json", "library"),
    BenchTask("nqs", PROJECT / "qmp_bench" / "tasks" / "nqs" / "carleo2017-tfi-rbm" / "task.json", "library"),
    BenchTask("qsim", PROJECT / "qmp_bench" / "tasks" / "qsim" / "lloyd1996-trotter-quench" / "task.json", "library"),
    BenchTask("dft", PROJECT / "qmp_bench" / "tasks" / "dft" / "szabo1996-h2-rhf" / "task.json", "library"),
)


@dataclass(frozen=True)
class WholeCost:
    name: str
    verdict: str
    versions: int
    verification_s: float
    plain_s: float
    run_s: float
    schedule_bound_s: float
    """The verification's program seconds over the machine's cores: no schedule of its checks takes less."""

    @property
    def ratio(self) -> float:
        return self.verification_s / self.plain_s

    @property
    def over_bound(self) -> float:
        return self.verification_s / self.schedule_bound_s if self.schedule_bound_s else float("nan")


@dataclass(frozen=True)
class FinalVerification:
    """The last script version, the wall seconds of the verifier nodes that judged it, and the wall seconds of
    the sandboxed programs those nodes ran (summed over programs, however many ran at once)."""

    version: int
    seconds: float
    program_seconds: float


def final_verification(transcript: Path) -> FinalVerification:
    """The verification of the last script version, read from the run's transcript.

    A verifier node's certificate event names the version it judged; the node's finishing event carries
    its seconds and its programs' seconds.
    """
    by_version: dict[int, tuple[float, float]] = {}
    judged: int | None = None
    last_version = 0
    for line in transcript.read_text().splitlines():
        event = json.loads(line)
        data = event.get("data", {})
        if event["type"] == "script_written":
            last_version = max(last_version, int(data["version"]))
        elif event["type"] == "certificate" and "version" in data:
            judged = int(data["version"])
        elif event["type"] == "node_finished" and event.get("node") in VERIFIER_NODES:
            if judged is not None:
                seconds, programs = by_version.get(judged, (0.0, 0.0))
                by_version[judged] = (seconds + float(data.get("seconds", 0.0)),
                                      programs + float(data.get("program_seconds", 0.0)))
            judged = None
    return FinalVerification(last_version, *by_version.get(last_version, (0.0, 0.0)))


def plain_seconds(script: Path, pool: SandboxPool) -> float:
    """One sandboxed execution of ``script`` in a fresh interpreter and folder."""
    with tempfile.TemporaryDirectory(prefix="physvec-bench-plain-") as folder:
        (Path(folder) / "script.py").write_bytes(script.read_bytes())
        started = time.monotonic()
        (result,) = pool.run_all([SandboxJob([sys.executable, "script.py"], Path(folder), SandboxLimits(wall_s=1800))])
        seconds = time.monotonic() - started
    if result.returncode != 0:
        raise RuntimeError(f"the certified script failed when run plainly: {result.summary()}")
    return seconds


def measure(task: BenchTask, runs_dir: Path, pool: SandboxPool) -> WholeCost:
    from physvec.agents.runner import start_run

    started = time.monotonic()
    outcome = start_run(task.task, task.model, runs_dir)
    run_s = time.monotonic() - started
    final = final_verification(outcome.run.path / "transcript.jsonl")
    plain = plain_seconds(outcome.run.script_path(final.version), pool)
    return WholeCost(task.name, outcome.verdict or outcome.status, final.version, final.seconds, plain, run_s,
                     final.program_seconds / pool.cores)


def bench_whole(tasks: tuple[BenchTask, ...] = DEFAULT_TASKS, runs_dir: Path | None = None,
                console: Console | None = None) -> list[WholeCost]:
    """Run every task, time one plain run of each final script, and print the table."""
    console = console or Console()
    pool = SandboxPool()
    costs = []
    with tempfile.TemporaryDirectory(prefix="physvec-bench-whole-") as scratch:
        for task in tasks:
            console.print(f"running {task.name} ({task.task.relative_to(PROJECT)}) ...", highlight=False)
            costs.append(measure(task, runs_dir or Path(scratch), pool))
    table = Table("task", "verdict", "script versions", "verification of the final script (s)", "plain run (s)",
                  "verification / plain", f"schedule bound: program s / {pool.cores} (s)", "verification / bound",
                  "whole run (s)", title=f"whole verification cost ({pool.cores} cores)")
    for cost in costs:
        table.add_row(cost.name, cost.verdict, str(cost.versions), f"{cost.verification_s:.1f}",
                      f"{cost.plain_s:.1f}", f"{cost.ratio:.2f}", f"{cost.schedule_bound_s:.1f}",
                      f"{cost.over_bound:.2f}", f"{cost.run_s:.1f}")
    console.print(table)
    within = all(cost.ratio <= TARGET_RATIO for cost in costs)
    console.print(f"verification within {TARGET_RATIO:g}x one plain run on every task: {'yes' if within else 'no'}")
    return costs
