"""The fault-injection benchmark: do the verifiers catch every mutant of a task's reference script, and
point at the right place, while passing the unmutated script?

No model takes part.  Each script goes through the verifiers as the pipeline runs them: the Programming
verifier, then (only if it found nothing wrong) the Scientific and Convergence verifiers.  A mutant is
detected when any certificate fails.  It is localised when a failed obligation names the mutated
function (its unit test, its integration level, or a contract breach in it) or, for a physics fault, when
the Scientific or Convergence verifier fails it (a rubric item, an assertion, the reference, a
metamorphic or a convergence check).  A failure on the
unmutated script is a false alarm.  Records are appended as each script finishes, so a killed benchmark
resumes where it stopped.
"""

from __future__ import annotations

import functools
import json
import time
from collections import Counter
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from physvec.verifiers.library.composer import compose_script
from physvec.campaigns.executor import Executor, LocalExecutor
from physvec.campaigns.progress import CampaignProgress
from physvec.campaigns.trials import raise_first_failure, run_trials
from physvec.taskfiles.loading import LoadedTask, load_task
from physvec.qmp_bench.catalogue import BenchTask
from physvec.qmp_bench.mutants import PHYSICS_CLASSES, PROGRAMMING_CLASSES, Mutant, mutants_of
from physvec.runstore.records import RecordFile
from physvec.verifiers.certificate import Certificate, Obligation, Outcome, Verdict
from physvec.verifiers.programming import verify_script
from physvec.verifiers.programming.integration import execution_folder
from physvec.verifiers.protocol import Subject
from physvec.verifiers.sandbox import SandboxLimits, SandboxPool
from physvec.verifiers.scientific import ConvergenceVerifier, ScientificVerifier

RECORDS_FILE = "faults.jsonl"
UNMUTATED = "none"
"""The fault class of a task's unmutated reference script."""
SCIENCE = (ScientificVerifier.name, ConvergenceVerifier.name)
"""The verifiers whose failures localise a physics fault to a check of the task."""


class FaultRecord(BaseModel):
    """What the verifiers made of one script of one task."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str
    fault_class: str
    name: str
    function: str
    detected: bool
    localised: bool
    failed: list[str]
    """names of the failed obligations"""
    failing_verifiers: list[str]
    """the verifiers whose certificates failed, in the order they ran"""
    seconds: float

    @property
    def key(self) -> tuple[str, str, str, str]:
        return self.task, self.fault_class, self.name, self.function


def reference_mutants(task: LoadedTask) -> tuple[str, list[Mutant]]:
    """The library proposer's script for the task, and its mutants."""
    script = compose_script(task.task.spec, task.task.backend).script
    return script, mutants_of(script, task.task.backend, task.task)


def certificates_of(script: str, task: LoadedTask, folder: Path, pool: SandboxPool) -> list[Certificate]:
    """The script through the Programming verifier, then, if that found nothing wrong, the scientific ones."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "script.py"
    path.write_text(script)
    limits = SandboxLimits(wall_s=float(task.task.limits.sandbox_wall_s))
    programming = verify_script(path, task.task.backend, folder / "programming", pool, limits)
    if programming.verdict is Verdict.FAILED:
        return [programming]
    subject = Subject(script=path, task=task, pool=pool, limits=limits, workdir=folder / "scientific",
                      executed_dir=execution_folder(folder / "programming"))
    return [programming, ScientificVerifier().verify(subject), ConvergenceVerifier().verify(subject)]


def names_function(obligation: Obligation, function: str) -> bool:
    """Whether a failed obligation points at ``function``: its unit test or integration level by name, or
    the function named in its evidence."""
    evidence = obligation.evidence
    return (obligation.name.split(":", 1)[-1] == function
            or function in (evidence.get("function"), evidence.get("failing_function"))
            or function in evidence.get("interface", []))


def is_localised(fault_class: str, function: str, failed: list[Obligation], failing_verifiers: list[str]) -> bool:
    """The failure points at the mutated function, or (physics) a check of the task caught it."""
    if any(names_function(obligation, function) for obligation in failed):
        return True
    return fault_class in PHYSICS_CLASSES and any(verifier in SCIENCE for verifier in failing_verifiers)


def judge(task_name: str, fault_class: str, name: str, function: str, certificates: list[Certificate],
          seconds: float) -> FaultRecord:
    failed = [o for certificate in certificates for o in certificate.obligations if o.outcome is Outcome.FAILED]
    verifiers = [c.verifier for c in certificates if c.verdict is Verdict.FAILED]
    return FaultRecord(task=task_name, fault_class=fault_class, name=name, function=function,
                       detected=bool(failed),
                       localised=bool(failed) and is_localised(fault_class, function, failed, verifiers),
                       failed=[o.name for o in failed], failing_verifiers=verifiers, seconds=round(seconds, 1))


class FaultCampaign:
    """The benchmark's folder: its append-only records and the verifiers' working folders."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    @property
    def records_path(self) -> Path:
        return self.folder / RECORDS_FILE

    def records(self) -> list[FaultRecord]:
        """Every complete record (a script whose line a kill cut short is verified again)."""
        return RecordFile(self.records_path, FaultRecord).read()

    def append(self, record: FaultRecord) -> None:
        RecordFile(self.records_path, FaultRecord).append(record)


Entry = tuple[BenchTask, LoadedTask, str, str, str, str]
"""(task, loaded task, fault class, name, function, script) of one script to verify"""


def catalogue(tasks: list[BenchTask]) -> list[Entry]:
    """Every script the benchmark verifies for ``tasks``: each unmutated script and its mutants."""
    entries: list[Entry] = []
    for bench_task in tasks:
        loaded = load_task(bench_task.task_file)
        script, mutants = reference_mutants(loaded)
        entries += [(bench_task, loaded, UNMUTATED, "reference script", "", script)]
        entries += [(bench_task, loaded, m.fault_class, m.name, m.function, m.script) for m in mutants]
    return entries


def entry_key(entry: Entry) -> tuple[str, str, str, str]:
    return entry[0].name, entry[2], entry[3], entry[4]


def current_records(campaign: FaultCampaign, entries: list[Entry]) -> list[FaultRecord]:
    """The campaign's records of scripts still in the catalogue (a mutant since dropped is left out)."""
    keys = {entry_key(entry) for entry in entries}
    return [record for record in campaign.records() if record.key in keys]


def run_faults(campaign: FaultCampaign, entries: list[Entry], executor: Executor | int,
               progress: Callable[[FaultRecord, int, int], None] | None = None,
               bar: CampaignProgress | None = None) -> list[FaultRecord]:
    """Verify every script of ``entries`` (see catalogue) the campaign lacks on ``executor`` (an int: that many
    local scripts at once); only this client appends records, each once."""
    done = {record.key for record in campaign.records()}
    missing = {index: entry for index, entry in enumerate(entries) if entry_key(entry) not in done}
    records: list[FaultRecord] = []

    def record(index: int, result: FaultRecord) -> None:
        campaign.append(result)
        records.append(result)
        if progress is not None:
            progress(result, len(records), len(missing))

    runner = LocalExecutor(executor) if isinstance(executor, int) else executor
    failures = run_trials(runner, functools.partial(verify_entry, campaign.folder, missing), list(missing), record,
                          bar)
    raise_first_failure(failures)
    return records


def verify_entry(folder: Path, entries: dict[int, Entry], index: int) -> FaultRecord:
    """A worker's trial: one script verified in warm workers of its backend; module-level, so Dask ships it by
    name, and it writes no record."""
    bench_task, loaded, fault_class, name, function, script = entries[index]
    started = time.monotonic()
    work = folder / "work" / bench_task.topic / bench_task.id / f"{index:03d}"
    with closing(SandboxPool().warm_for(work, loaded.task.backend)) as pool:
        certificates = certificates_of(script, loaded, work, pool)
    return judge(bench_task.name, fault_class, name, function, certificates, time.monotonic() - started)


def class_table(records: list[FaultRecord]) -> list[dict[str, object]]:
    """Per fault class: mutants, detected, localised, and the obligations that caught them most often."""
    rows = []
    for fault_class in (*PROGRAMMING_CLASSES, *PHYSICS_CLASSES):
        chosen = [r for r in records if r.fault_class == fault_class]
        if not chosen:
            continue
        catchers = Counter(name.split(":", 1)[0] for r in chosen for name in r.failed)
        rows.append({"family": "programming" if fault_class in PROGRAMMING_CLASSES else "physics",
                     "fault class": fault_class, "mutants": len(chosen),
                     "detected": sum(r.detected for r in chosen), "localised": sum(r.localised for r in chosen),
                     "caught by": ", ".join(f"{name} {count}" for name, count in catchers.most_common(3))})
    unmutated = [r for r in records if r.fault_class == UNMUTATED]
    if unmutated:
        rows.append({"family": "none", "fault class": "unmutated (false alarms)", "mutants": len(unmutated),
                     "detected": sum(r.detected for r in unmutated), "localised": "",
                     "caught by": ", ".join(f"{r.task}: {', '.join(r.failed)}" for r in unmutated if r.detected)})
    return rows


def escaped(records: list[FaultRecord]) -> list[FaultRecord]:
    """Mutants no verifier caught."""
    return [r for r in records if r.fault_class != UNMUTATED and not r.detected]


def write_report(records: list[FaultRecord], folder: Path) -> list[Path]:
    """faults.md (the class table, escapes, false alarms) and faults.json (the same rows)."""
    rows = class_table(records)
    columns = ["family", "fault class", "mutants", "detected", "localised", "caught by"]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(row[c]) for c in columns) + " |" for row in rows]
    misses = escaped(records)
    lines += ["", f"tasks: {len({r.task for r in records})}; scripts verified: {len(records)}; "
              f"escaped mutants: {len(misses)}"]
    lines += [f"- escaped: {r.task} {r.fault_class} '{r.name}' in {r.function}" for r in misses]
    lines += [f"- not localised: {r.task} {r.fault_class} '{r.name}' in {r.function}, caught by {', '.join(r.failed)}"
              for r in records if r.detected and not r.localised and r.fault_class != UNMUTATED]
    markdown, table = folder / "faults.md", folder / "faults.json"
    markdown.write_text("\n".join(lines) + "\n")
    table.write_text(json.dumps(rows, indent=1) + "\n")
    return [markdown, table]
