"""Campaign reports: outcome rates per domain with Wilson 95% intervals, false verdicts, rounds to certify.

The Wilson score interval (statsmodels) stays inside [0, 1] and is informative at 0 of n, which is the
number that matters here: false certificates.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any, Protocol

from statsmodels.stats.proportion import proportion_confint

OUTCOMES = ("certified", "impossible", "unknown", "loop_fail", "infra_fault")


class Episode(Protocol):
    domain: str
    outcome: str
    rounds: int
    false_certificate: bool
    false_impossible: bool


def wilson(successes: int, trials: int) -> tuple[float, float]:
    """The Wilson score 95% interval of a binomial proportion (nan, nan with no trials)."""
    if trials == 0:
        return float("nan"), float("nan")
    low, high = proportion_confint(successes, trials, alpha=0.05, method="wilson")
    return float(low), float(high)


def rate(successes: int, trials: int) -> dict[str, Any]:
    low, high = wilson(successes, trials)
    return {"count": successes, "of": trials, "rate": successes / trials if trials else float("nan"),
            "wilson95": [low, high]}


def summarise(episodes: Sequence[Episode]) -> dict[str, Any]:
    """Per domain and overall: each outcome's rate, false certificates and impossibilities, rounds to certify."""
    groups: dict[str, list[Episode]] = {"all": list(episodes)}
    for episode in episodes:
        groups.setdefault(episode.domain, []).append(episode)
    summary = {}
    for name, group in groups.items():
        n = len(group)
        rounds = [e.rounds for e in group if e.outcome == "certified"]
        summary[name] = {
            "episodes": n,
            **{outcome: rate(sum(e.outcome == outcome for e in group), n) for outcome in OUTCOMES},
            "false_certificate": rate(sum(e.false_certificate for e in group), n),
            "false_impossible": rate(sum(e.false_impossible for e in group), n),
            "rounds_to_certify": {"mean": statistics.fmean(rounds) if rounds else None,
                                  "median": statistics.median(rounds) if rounds else None},
        }
    return summary


def _cell(entry: dict[str, Any]) -> str:
    low, high = entry["wilson95"]
    return f"{entry['count']}/{entry['of']} [{low:.2f}, {high:.2f}]"


def markdown(summary: dict[str, Any], title: str) -> str:
    columns = (*OUTCOMES, "false_certificate", "false_impossible")
    lines = [f"# {title}", "", "Counts with Wilson 95% intervals of the rate.", "",
             "| domain | " + " | ".join(columns) + " | rounds to certify (mean) |",
             "|---" * (len(columns) + 2) + "|"]
    for name, row in summary.items():
        mean = row["rounds_to_certify"]["mean"]
        lines.append(f"| {name} | " + " | ".join(_cell(row[c]) for c in columns)
                     + f" | {'-' if mean is None else f'{mean:.2f}'} |")
    return "\n".join(lines) + "\n"

