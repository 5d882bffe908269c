"""The client side of every campaign: run the trials it lacks on an executor and record each exactly once.

Records are the campaign's single source of truth, so only this loop, in the one process that drives
the campaign, writes them: a worker returns its trial's record and writes none.  The campaign decides
which trials are missing before it calls this (from its record file, so a client killed halfway resumes
with only the missing ones); the executor reruns a trial its dead worker lost; and a trial whose result
arrives twice (rerun after a worker was thought lost while still computing) is recorded the first time
only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from physvec.campaigns.executor import Executor, Outcome
from physvec.campaigns.progress import CampaignProgress

Key = TypeVar("Key")
Result = TypeVar("Result")


def run_trials(executor: Executor, trial: Callable[[Key], Result], keys: Sequence[Key],
               record: Callable[[Key, Result], None],
               progress: CampaignProgress | None = None,
               stop_on: tuple[type[BaseException], ...] = ()) -> list[Outcome[Key, Result]]:
    """``trial(key)`` for every key on ``executor``; ``record(key, result)`` once per key as results arrive.

    A trial that raised is not recorded (a rerun of the campaign tries it again); its outcome is returned.
    A trial that raised one of ``stop_on`` ends the campaign there: an error every later trial would meet
    too (a model provider that is down) should not be met once per trial.  No queued trial starts after
    it, and trials already running finish unrecorded.

    Returns:
        The failed trials' outcomes, in the order they ended.
    """
    recorded: set[Key] = set()
    failures: list[Outcome[Key, Result]] = []
    if progress is not None:
        progress.begin(len(keys))
    for outcome in executor.run(trial, keys):
        if outcome.key in recorded:
            continue
        if outcome.error is not None:
            failures.append(outcome)
        else:
            record(outcome.key, outcome.result)
            recorded.add(outcome.key)
        if progress is not None:
            progress.finished(failed=outcome.error is not None)
        if isinstance(outcome.error, stop_on):
            break  # leaving the loop closes the executor's run, which cancels the queued trials
    return failures


def raise_first_failure(failures: Sequence[Outcome[Key, Result]]) -> None:
    """End the campaign with the first failed trial's own error, as every campaign does after run_trials (whose
    failures all carry the error they raised); a rerun of the campaign resumes with the trials it lacks."""
    if failures:
        raise failures[0].error
