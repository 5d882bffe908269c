"""PHACT, MatPCR and benchmark campaigns on a Dask LocalCluster of two worker processes: the same records as the local
executor, every trial recorded exactly once when a worker or the client is killed, and a scheduler that is
not there is an exit 2 with one clear line.

A PHACT episode with a scripted model is a fraction of a second of physics, so a campaign of a few dozen
of them shows the cluster's behaviour without the cost of real trials.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from distributed import Client  # noqa: E402

from physvec.agents.episode_model import EpisodeModel  # noqa: E402
from physvec.agents.phact_campaign import EpisodeRecord, PhactRun, run_campaign  # noqa: E402
from physvec.agents.phact_proposer import LoopSettings  # noqa: E402
from physvec.agents.providers import ProviderSettings  # noqa: E402
from physvec.campaigns.dask_executor import TRIAL_RESOURCE, DaskExecutor, local_cluster  # noqa: E402
from physvec.campaigns.executor import LocalExecutor  # noqa: E402
from physvec.cli.matpcr import main as matpcr_main  # noqa: E402
from physvec.cli.phact import main as phact_main  # noqa: E402
from physvec.cli.qmp_bench import main as qmp_bench_main  # noqa: E402
from physvec.verifiers.phact.corpus import corpus  # noqa: E402
from tests.support.scripted import write_replies  # noqa: E402

GOAL = "cutoff-at-1-khz"
"""rc_filter: 1/(2 pi 10 kOhm 15.9 nF) = 1001 Hz meets 1 kHz +- 10 Hz, certified in one round"""
TIMING = ("seconds",)


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    """A client of one LocalCluster of two single-thread worker processes, shared by this module's tests."""
    with local_cluster(2) as cluster, Client(cluster) as connected:
        yield connected


@pytest.fixture
def executor(client: Client) -> DaskExecutor:
    client.wait_for_workers(2, timeout=60)  # a worker killed by an earlier test is back
    return DaskExecutor(client, TRIAL_RESOURCE)


@pytest.fixture
def replies(tmp_path: Path) -> Path:
    """A scripted model whose one reply certifies the goal (each episode on a cluster is served it afresh)."""
    path = tmp_path / "replies.json"
    call = {"name": "propose_design", "args": {"values": {"capacitance_F": 1.59e-8}}, "id": "c0"}
    path.write_text(json.dumps({"replies": [{"content": "", "tool_calls": [call]}]}))
    return path


def _goals() -> list:
    return [(goal, domain) for _, goal, domain in corpus("rc_filter") if goal.id == GOAL]


def _campaign(folder: Path, replies: Path, trials: int, executor, progress=None) -> list[EpisodeRecord]:
    model = EpisodeModel(f"scripted:{replies}", ProviderSettings(), 10**6)
    return run_campaign(PhactRun(folder), _goals(), LoopSettings(rounds=2), trials, model, progress, executor)


def _comparable(records: list[EpisodeRecord]) -> list[dict]:
    return sorted((record.model_dump(exclude={"run_id", *TIMING}) for record in records), key=lambda r: r["trial"])


def _recorded_trials(folder: Path) -> Counter[int]:
    return Counter(record.trial for record in PhactRun(folder).episodes.read())


def test_a_dask_campaign_records_what_the_local_executor_records(tmp_path, replies, executor):
    local = _campaign(tmp_path / "local", replies, 6, LocalExecutor(2))
    distributed = _campaign(tmp_path / "dask", replies, 6, executor)
    assert _comparable(distributed) == _comparable(local) and len(local) == 6
    assert {r.outcome for r in local} == {"certified"}
    certificates = sorted(path.name for path in (tmp_path / "dask" / "certificates").iterdir())
    assert certificates == sorted(path.name for path in (tmp_path / "local" / "certificates").iterdir())


def test_a_worker_killed_mid_campaign_loses_no_trial_and_none_is_recorded_twice(tmp_path, replies, executor, client):
    killed: list[str] = []

    def kill_a_busy_worker(record: EpisodeRecord) -> None:
        busy = [worker for worker, keys in client.processing().items() if keys]
        if not killed and busy:
            pid = client.run(os.getpid, workers=busy[:1])[busy[0]]
            os.kill(pid, signal.SIGKILL)
            killed.append(busy[0])

    records = _campaign(tmp_path / "run", replies, 24, executor, kill_a_busy_worker)
    assert killed, "a worker was killed while it ran a trial"
    assert sorted(record.trial for record in records) == list(range(24))
    assert _recorded_trials(tmp_path / "run") == Counter(range(24))


def test_a_client_killed_mid_campaign_is_resumed_with_only_the_missing_trials(tmp_path, replies, executor, client):
    trials, folder = 40, tmp_path / "r"
    arguments = ["run", "--model", f"scripted:{replies}", "--goals", f"rc_filter/{GOAL}", "--trials", str(trials),
                 "--rounds", "2", "--runs-dir", str(tmp_path), "--run-id", "r", "--executor", "dask",
                 "--scheduler", client.scheduler.address]
    driver = f"import sys\nfrom physvec.cli.phact import main\nsys.exit(main({arguments!r}))\n"
    process = subprocess.Popen([sys.executable, "-c", driver], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not _recorded_trials(folder) and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    before = _recorded_trials(folder)
    assert 0 < sum(before.values()) < trials, "the client was killed with part of its campaign recorded"
    assert phact_main([*arguments, "--resume"]) == 0
    after = _recorded_trials(folder)
    assert after == Counter(range(trials)), "every trial recorded exactly once"
    ran_again = [record.trial for record in PhactRun(folder).episodes.read()][sum(before.values()):]
    assert sorted(ran_again) == sorted(set(range(trials)) - set(before))


def _nothing_listening() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"tcp://127.0.0.1:{probe.getsockname()[1]}"


def test_a_scheduler_that_is_not_there_is_an_exit_2_with_a_clear_message(tmp_path, capsys, replies):
    address = _nothing_listening()
    assert qmp_bench_main(["run", "--method", "physvec", "--model", "library", "--tasks", "dft/szabo1996-h2-rhf",
                           "--executor", "dask", "--scheduler", address, "--out", str(tmp_path / "c")]) == 2
    assert phact_main(["run", "--model", f"scripted:{replies}", "--goals", f"rc_filter/{GOAL}", "--runs-dir",
                       str(tmp_path), "--run-id", "p", "--executor", "dask", "--scheduler", address]) == 2
    assert qmp_bench_main(["faults", "--tasks", "dft/szabo1996-h2-rhf", "--executor", "dask", "--scheduler", address,
                           "--out", str(tmp_path / "f")]) == 2
    for command in ("evaluate", "cgsv"):
        assert matpcr_main([command, "--model", f"scripted:{replies}", "--family", "diffraction", "--runs-dir",
                            str(tmp_path), "--run-id", command, "--executor", "dask", "--scheduler", address]) == 2
    captured = capsys.readouterr()
    said = captured.out + captured.err
    assert said.count(f"no Dask scheduler answered at {address}") == 5 and "Traceback" not in said
    assert not (tmp_path / "c" / "records.jsonl").exists() and not (tmp_path / "p").exists()
    assert not (tmp_path / "evaluate").exists() and not (tmp_path / "cgsv").exists()


MATPCR_RECORDS = {"evaluate": "responses.jsonl", "cgsv": "cgsv.jsonl"}
EXTINCT = "Silicon shows the (200) reflection at 2θ = 32.96°."
MATPCR_REPLIES = {"evaluate": ["Diamond cubic: (111) at 2θ = 28.44° and (220) at 47.30°."],
                  "cgsv": [EXTINCT, "Then the (111) reflection at 2θ = 28.44°.", *[EXTINCT] * 6]}
"""per item: evaluate's one answer; cgsv's first answer (a violation), one revision that removes it, and six
controls that keep it (tests/agents/test_matpcr_cgsv.py).  Every item is given the same replies, so one
client serving them item after item and a client per item are served alike."""


@pytest.mark.parametrize("command", ["evaluate", "cgsv"])
def test_a_matpcr_campaign_on_dask_records_what_the_local_executor_records(tmp_path, client, command):
    items = 2
    model = write_replies(tmp_path / "replies.json", *(MATPCR_REPLIES[command] * items))
    base = [command, "--model", f"scripted:{model}", "--family", "diffraction", "--items", "diffraction:Si",
            "--n", str(items), "--seeds", "1", "--runs-dir", str(tmp_path)]
    assert matpcr_main([*base, "--run-id", "local"]) == 0
    assert matpcr_main([*base, "--run-id", "dask", "--executor", "dask", "--scheduler", client.scheduler.address]) == 0
    local, distributed = (sorted((tmp_path / run_id / MATPCR_RECORDS[command]).read_text().splitlines())
                          for run_id in ("local", "dask"))
    assert distributed == local and len(local) == items
    assert (tmp_path / "dask" / "summary.json").read_text() == (tmp_path / "local" / "summary.json").read_text()
    assert len(list((tmp_path / "dask" / "transcripts").iterdir())) == items, "a model client per item"


def test_a_dualitycert_repair_campaign_on_dask_records_its_episodes_and_rounds_as_the_local_executor_does(
        tmp_path, executor):
    from physvec.agents.dualitycert_repair import POLICIES, RepairRun, run_policy
    from physvec.verifiers.dualitycert.dualize import dualize
    from physvec.verifiers.dualitycert.perturb import Perturbation, apply
    from physvec.verifiers.dualitycert.theory import Claim, parse_theory
    from tests.verifiers.dualitycert.conftest import dp0_data

    electric = parse_theory(dp0_data())
    correct = dualize(electric, 0)
    claim = Claim(theory_a=electric, theory_b=apply(correct, Perturbation("rank_perturb", "0", "+1")))
    replies = tmp_path / "replies.json"
    body = {"action": "edit_candidate", "reason": "scripted", "theory_b": correct.model_dump(mode="json")}
    replies.write_text(json.dumps({"replies": ["```json\n" + json.dumps(body) + "\n```"]}))
    model = EpisodeModel(f"scripted:{replies}", ProviderSettings(), 10**6)

    def campaign(name: str, runner) -> RepairRun:
        run = RepairRun(tmp_path / name)
        run.folder.mkdir()
        run_policy(run, POLICIES["vf"], [("dp0-rank", claim)], 3, model, executor=runner)
        return run

    local, distributed = campaign("local", LocalExecutor(2)), campaign("dask", executor)
    for records in ("episodes", "attempts"):
        ours, theirs = (sorted((r.model_dump(exclude={"run_id", *TIMING}) for r in getattr(run, records).read()),
                               key=lambda r: r["trial"]) for run in (local, distributed))
        assert ours == theirs and len(ours) == 3
    assert {e.outcome for e in local.episodes.read()} == {"certified"}
