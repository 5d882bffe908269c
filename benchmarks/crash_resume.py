"""Crash and resume, measured: kill -9 at random points, two resumes at once, a garbage transcript line.

    python benchmarks/crash_resume.py [--task T --replies R] [--kills 20] [--campaign-kills 20] [--seed 0]
                                      [--campaign-task T --campaign-replies R]

Default task: the README example (examples/heisenberg_chain, its scripted replies).  Each kill takes the
whole process group (reproduce and its sandboxed programs) at a uniformly random moment of an
uninterrupted run's duration (a moment after the run already ended is drawn again, up to 3 attempts per
wanted kill, and counted apart); then `reproduce --resume` runs until the run finishes.  A kill counts as
survived when the verdict, every certificate's outcomes and the node sequence equal the uninterrupted
run's, event numbers run 0..n-1 with no gap or repeat, no node finished twice at one step, and no model
request was paid twice.  Two resumes started together must end with one verdict (the other refused), and
a garbage line appended to the transcript must be quarantined while the resume goes on.  The campaign
part kills a 2-trial `qmp-bench`-style campaign and reruns it: its records must equal an uninterrupted
campaign's, one per trial, with no orphaned trial process; it runs the same task unless told another
(a small one keeps 20 kills of a 2-trial campaign within minutes).
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table

from physvec.runstore.store import RunDirectory, list_runs
from physvec.runstore.transcript import EventType, read_events

ROOT = Path(__file__).resolve().parents[1]
MISSED = ("finished before the kill", "killed before the run existed")
MISSES_ALLOWED = 3
"""Attempts per wanted kill: a kill drawn after the run ended (or before it began) is drawn again."""
REPRODUCE = [sys.executable, "-c", "import sys\nfrom physvec.cli.main import reproduce_main\nsys.exit(reproduce_main())"]


def _reproduce(arguments: list[str], **popen: object) -> subprocess.Popen:
    return subprocess.Popen([*REPRODUCE, *arguments], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True, **popen)


def _signature(run: RunDirectory) -> dict[str, object]:
    certificates = {name: {o.name: o.outcome.value for o in certificate.obligations}
                    for name, certificate in run.certificates().items() if name != "isolation"}
    events = read_events(run.transcript_file)
    return {"verdict": run.metadata().get("verdict"), "certificates": certificates,
            "nodes": [e.node for e in events if e.type is EventType.NODE_FINISHED]}


def _sound_transcript(run: RunDirectory) -> list[str]:
    """What is wrong with a resumed run's transcript (empty when nothing is)."""
    events = read_events(run.transcript_file)
    problems = []
    if [e.seq for e in events] != list(range(len(events))):
        problems.append("event numbers with a gap or a repeat")
    finished = Counter((e.node, e.step) for e in events if e.type is EventType.NODE_FINISHED)
    if any(count > 1 for count in finished.values()):
        problems.append("a node finished twice at one step")
    calls = Counter((e.step, e.data.get("request_hash")) for e in events if e.type is EventType.MODEL_CALL)
    if any(count > 1 for count in calls.values()):
        problems.append("a model request paid twice")
    if sum(e.type is EventType.RUN_FINISHED for e in events) != 1:
        problems.append("not exactly one run_finished")
    return problems


def _resume_until_finished(runs_dir: Path, run_id: str) -> None:
    for _ in range(5):
        process = _reproduce(["--resume", run_id, "--runs-dir", str(runs_dir)])
        process.wait()
        if RunDirectory(runs_dir / run_id).status() not in ("running", "interrupted"):
            return


def _killed_run(task: Path, model: str, runs_dir: Path, after_s: float, inside: bool = False) -> RunDirectory | None:
    """Start a run and kill its whole process group ``after_s`` seconds later (counted from the moment the
    run folder exists when ``inside``); the killed run, or None when it finished first or never existed."""
    process = _reproduce([str(task), "--model", model, "--runs-dir", str(runs_dir)])
    while inside and not list(runs_dir.glob("*/transcript.jsonl")) and process.poll() is None:
        time.sleep(0.05)
    time.sleep(after_s)
    if process.poll() is not None:
        return None
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    runs = list_runs(runs_dir)
    return runs[-1] if runs else None


def _kill_trial(task: Path, model: str, runs_dir: Path, after_s: float) -> tuple[str, list[str]]:
    """One kill at ``after_s`` and the resume; (outcome, problems)."""
    run = _killed_run(task, model, runs_dir, after_s)
    if run is None:
        return ("killed before the run existed" if not list_runs(runs_dir) else "finished before the kill"), []
    _resume_until_finished(runs_dir, run.run_id)
    return "resumed", _sound_transcript(run)


def _concurrent_resumes(task: Path, model: str, runs_dir: Path, after_s: float) -> tuple[str, list[str]]:
    run = _killed_run(task, model, runs_dir, after_s / 2, inside=True)
    if run is None:
        return "finished before the kill", []
    first, second = (_reproduce(["--resume", run.run_id, "--runs-dir", str(runs_dir)]) for _ in range(2))
    codes = sorted((first.wait(), second.wait()))
    refused = b"in use by" in (first.stderr.read() + second.stderr.read())
    _resume_until_finished(runs_dir, run.run_id)
    problems = _sound_transcript(run)
    if not refused and 2 in codes:
        problems.append(f"exit codes {codes} without a refusal")
    return f"exit codes {codes}{', one refused' if refused else ''}", problems


def _garbage_line(task: Path, model: str, runs_dir: Path, after_s: float) -> tuple[str, list[str]]:
    run = _killed_run(task, model, runs_dir, after_s / 2, inside=True)
    if run is None:
        return "finished before the kill", []
    with run.transcript_file.open("ab") as stream:
        stream.write(b"\x00garbage, not an event\n")
    _resume_until_finished(runs_dir, run.run_id)
    problems = _sound_transcript(run)
    if not (run.path / "transcript.quarantine.jsonl").is_file():
        problems.append("the garbage line was not quarantined")
    return "quarantined, resumed", problems


CAMPAIGN = ("import sys\nfrom pathlib import Path\nfrom physvec.qmp_bench.campaign import Campaign\n"
            "from physvec.qmp_bench.catalogue import BenchTask\nfrom physvec.qmp_bench.runner import run_campaign\n"
            "run_campaign(Campaign(Path(sys.argv[1])), [BenchTask('bench', 'task', Path(sys.argv[2]))], 'physvec', "
            "sys.argv[3], 2, 1)\n")


def _campaign(folder: Path, task: Path, model: str, kill_after: float | None) -> list[dict[str, object]]:
    process = subprocess.Popen([sys.executable, "-c", CAMPAIGN, str(folder), str(task), model],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    if kill_after is not None:
        time.sleep(kill_after)
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)  # the campaign only: its trials must die with it
    process.wait()
    if kill_after is not None:
        subprocess.run([sys.executable, "-c", CAMPAIGN, str(folder), str(task), model], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    from physvec.qmp_bench.campaign import Campaign

    return [{"trial": r.trial, "verdict": r.verdict} for r in Campaign(folder).records()]


def _orphans(folder: Path) -> int:
    count = 0
    for proc in Path("/proc").iterdir():
        try:
            count += proc.name.isdigit() and str(folder).encode() in (proc / "cmdline").read_bytes()
        except OSError:
            continue
    return count


def _campaign_part(kills: int, campaign_task: Path, campaign_model: str, scratch: Path, rng: random.Random,
                   table: Table, console: Console) -> int:
    """Kill a 2-trial campaign ``kills`` times and rerun it; the number of failures (a row in ``table``)."""
    started = time.monotonic()
    reference_campaign = _campaign(scratch / "campaign-reference", campaign_task, campaign_model, None)
    campaign_duration = time.monotonic() - started
    console.print(f"uninterrupted campaign of {campaign_task.parent.name}: {reference_campaign} "
                  f"in {campaign_duration:.1f} s")
    campaign_same = orphaned = 0
    for index in range(kills):
        folder = scratch / f"campaign-{index}"
        after = rng.uniform(0.5, campaign_duration * 0.95)
        records = _campaign(folder, campaign_task, campaign_model, after)
        console.print(f"  campaign kill {index + 1}/{kills} at {after:.1f} s: {records}")
        campaign_same += records == reference_campaign
        orphaned += _orphans(folder)
    table.add_row(f"campaign of 2 trials of {campaign_task.parent.name}, kill -9 of the campaign",
                  str(kills),
                  f"orphaned trial processes {orphaned}", f"{campaign_same}/{kills} records",
                  "-")
    return (kills - campaign_same) + orphaned


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", type=Path, default=ROOT / "examples" / "heisenberg_chain" / "task.json")
    parser.add_argument("--replies", type=Path, default=ROOT / "examples" / "heisenberg_chain" / "replies.json")
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--campaign-kills", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--campaign-task", type=Path, help="the campaign's task (default: --task)")
    parser.add_argument("--campaign-replies", type=Path, help="its scripted replies (default: --replies)")
    arguments = parser.parse_args()
    rng = random.Random(arguments.seed)
    model = f"scripted:{arguments.replies.resolve()}"
    task = arguments.task.resolve()
    campaign_task = (arguments.campaign_task or arguments.task).resolve()
    campaign_model = f"scripted:{(arguments.campaign_replies or arguments.replies).resolve()}"
    console = Console()
    scratch = Path(tempfile.mkdtemp(prefix="crash-resume-"))

    started = time.monotonic()
    reference_dir = scratch / "reference"
    _reproduce([str(task), "--model", model, "--runs-dir", str(reference_dir)]).wait()
    duration = time.monotonic() - started
    (reference,) = list_runs(reference_dir)
    expected = _signature(reference)
    console.print(f"uninterrupted run: {expected['verdict']} in {duration:.1f} s")

    table = Table("scenario", "trials", "outcome", "identical verdict and certificates", "transcript sound")
    scenarios = [("kill -9 at a random moment", _kill_trial, arguments.kills),
                 ("two resumes at once", _concurrent_resumes, 3), ("garbage transcript line", _garbage_line, 3)]
    failures = 0
    for name, scenario, count in scenarios:
        outcomes: Counter[str] = Counter()
        identical = sound = landed = attempts = 0
        while landed < count and attempts < MISSES_ALLOWED * count:  # a kill that misses the run is drawn again
            runs_dir = scratch / f"{scenario.__name__}-{attempts}"
            attempts += 1
            after = rng.uniform(0.5, duration * 0.9)
            outcome, problems = scenario(task, model, runs_dir, after)
            outcomes[outcome] += 1
            landed += outcome not in MISSED
            runs = list_runs(runs_dir)
            same = bool(runs) and _signature(runs[-1]) == expected
            identical += same or not runs
            sound += not problems
            failures += (bool(runs) and not same) + bool(problems)
            console.print(f"  {name} {landed}/{count} (attempt {attempts}) at {after:.1f} s: {outcome}"
                          f"{'' if same or not runs else ', DIFFERENT'}{'; ' + '; '.join(problems) if problems else ''}")
        failures += landed < count
        table.add_row(name, f"{landed} in {attempts} attempts", ", ".join(f"{k} {v}" for k, v in outcomes.items()),
                      f"{identical}/{attempts}", f"{sound}/{attempts}")
    if arguments.campaign_kills:
        failures += _campaign_part(arguments.campaign_kills, campaign_task, campaign_model, scratch, rng, table,
                                   console)
    console.print(table)
    console.print(f"scratch: {scratch}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
