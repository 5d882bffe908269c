"""The field's metrics over benchmark trials: unbiased pass@k and per-method summaries.

pass@k is the probability that at least one of k trials drawn without replacement from the n recorded
trials of a task passes, 1 - C(n - c, k) / C(n, k) with c passing trials (Chen et al. 2021,
arXiv:2107.03374), averaged over tasks; it is defined only for k <= n.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from math import comb
from statistics import mean

from physvec.qmp_bench.campaign import TrialRecord


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of one task with c passing trials out of n."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    return 1.0 - comb(n - c, k) / comb(n, k)


def _per_task(records: Iterable[TrialRecord]) -> dict[str, list[TrialRecord]]:
    grouped: dict[str, list[TrialRecord]] = defaultdict(list)
    for record in records:
        grouped[record.task].append(record)
    return grouped


def mean_pass_at_k(records: Iterable[TrialRecord], k: int, passed: Callable[[TrialRecord], bool]) -> float | None:
    """pass@k averaged over the tasks that have at least k trials; None when no task has."""
    values = [pass_at_k(len(trials), sum(passed(t) for t in trials), k)
              for trials in _per_task(records).values() if len(trials) >= k]
    return mean(values) if values else None


def _mean(values: list[float | None]) -> float | None:
    known = [value for value in values if value is not None]
    return mean(known) if known else None


def summary(records: list[TrialRecord], k_values: tuple[int, ...] = (1, 8)) -> dict[str, float | int | None]:
    """One row of the results table: the metrics of one method over its trials."""
    row: dict[str, float | int | None] = {"tasks": len(_per_task(records)), "trials": len(records)}
    for k in k_values:
        row[f"executable pass@{k}"] = mean_pass_at_k(records, k, lambda r: r.executable)
        row[f"scientific pass@{k}"] = mean_pass_at_k(records, k, lambda r: r.scientific_completion)
    row.update({
        "unit accuracy (first)": _mean([r.unit_accuracy_first for r in records]),
        "unit accuracy (final)": _mean([r.unit_accuracy_final for r in records]),
        "integration accuracy (first)": _mean([r.integration_accuracy_first for r in records]),
        "integration accuracy (final)": _mean([r.integration_accuracy_final for r in records]),
        "iterations": _mean([float(r.iterations) for r in records]),
        "tokens": _mean([float(r.tokens) for r in records]),
        "tool calls": _mean([float(r.tool_calls) for r in records]),
    })
    return row
