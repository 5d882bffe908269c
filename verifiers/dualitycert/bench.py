"""Throughput of the registry: claims verified per second at each chiral-ring level, and where the time
goes (share of wall time per registry check)."""

from __future__ import annotations

import time
from collections import defaultdict

from physvec.verifiers.dualitycert.registry import Settings, planned_checks
from physvec.verifiers.dualitycert.theory import Claim


def bench(claims: list[Claim], levels: tuple[int, ...] = (3, 5)) -> list[dict[str, object]]:
    """One row per level: claims, seconds, claims per second, and each check's share of the time."""
    rows = []
    for level in levels:
        spent: dict[str, float] = defaultdict(float)
        started = time.perf_counter()
        for claim in claims:
            for name, check in planned_checks(claim, Settings(level=level)):
                before = time.perf_counter()
                check()
                spent[name] += time.perf_counter() - before
        total = time.perf_counter() - started
        shares = {name: round(seconds / total, 4) for name, seconds in sorted(spent.items(), key=lambda kv: -kv[1])}
        rows.append({"level": level, "claims": len(claims), "seconds": round(total, 3),
                     "claims_per_second": round(len(claims) / total, 2), "share": shares})
    return rows
