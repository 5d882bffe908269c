"""The client-side loop and the local executor: each trial recorded once, failures returned, never recorded."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence

import pytest

from physvec.campaigns.executor import EXECUTORS, LocalExecutor, Outcome, open_executor
from physvec.campaigns.trials import run_trials
from physvec.cli.campaign_options import EXECUTORS as PARSER_EXECUTORS


class Replaying:
    """An executor that hands back the outcomes it was given, as a cluster might (one of them twice)."""

    dashboard_link = None

    def __init__(self, outcomes: list[Outcome[int, int]]) -> None:
        self.outcomes = outcomes

    def run(self, trial: Callable[[int], int], keys: Sequence[int]) -> Iterator[Outcome[int, int]]:
        yield from self.outcomes

    def running(self) -> int:
        return 0


def test_a_trial_finished_twice_is_recorded_once():
    recorded: list[tuple[int, int]] = []
    twice = Replaying([Outcome(0, 10), Outcome(1, 11), Outcome(0, 10)])
    assert run_trials(twice, lambda key: key, [0, 1], lambda key, result: recorded.append((key, result))) == []
    assert recorded == [(0, 10), (1, 11)]


def test_a_failed_trial_is_returned_and_not_recorded_and_the_others_still_are():
    recorded: list[int] = []

    def trial(key: int) -> int:
        if key == 1:
            raise RuntimeError("boom")
        return key * key

    failures = run_trials(LocalExecutor(2), trial, [0, 1, 2], lambda key, result: recorded.append(result))
    assert sorted(recorded) == [0, 4]
    assert [(f.key, str(f.error)) for f in failures] == [(1, "boom")]


def test_an_error_every_later_trial_would_meet_ends_the_campaign_and_no_queued_trial_starts():
    started: list[int] = []
    recorded: list[int] = []

    def trial(key: int) -> int:
        started.append(key)
        if key == 1:
            raise ConnectionError("the model provider is down")
        time.sleep(0.2)
        return key

    failures = run_trials(LocalExecutor(1), trial, list(range(6)), lambda key, result: recorded.append(key),
                          stop_on=(ConnectionError,))
    assert recorded == [0] and [(f.key, str(f.error)) for f in failures] == [(1, "the model provider is down")]
    assert set(started) <= {0, 1, 2}, "only the trial already running when the error arrived may have started"


def test_the_local_executor_runs_jobs_trials_at_once_and_counts_them_running():
    executor, peak, lock = LocalExecutor(2), [0], threading.Lock()

    def trial(key: int) -> int:
        with lock:
            peak[0] = max(peak[0], executor.running())
        time.sleep(0.05)
        return key

    assert sorted(o.result for o in executor.run(trial, range(6))) == list(range(6))
    assert peak[0] == 2 and executor.running() == 0


def test_one_local_job_runs_trials_in_the_order_given():
    order: list[int] = []
    list(LocalExecutor(1).run(order.append, [3, 1, 2]))
    assert order == [3, 1, 2]


def test_a_scheduler_is_refused_for_the_local_executor_and_the_parser_knows_every_executor():
    assert PARSER_EXECUTORS == EXECUTORS
    with pytest.raises(ValueError, match="--scheduler needs --executor dask"):
        with open_executor("local", 1, "tcp://127.0.0.1:8786"):
            pass
