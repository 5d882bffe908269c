"""Throughput of the registry: seconds per seed cell (the Seiberg dual of every catalogue cell) at each
chiral-ring level, claims verified per second over a fixture set, and where the time goes (share of wall
time per registry check)."""

from __future__ import annotations

import time
from collections import defaultdict

from physvec.verifiers.dualitycert import memo
from physvec.verifiers.dualitycert.dualize import dualize
from physvec.verifiers.dualitycert.registry import Settings, certify, planned_checks
from physvec.verifiers.dualitycert.seeds import seed_cells
from physvec.verifiers.dualitycert.theory import Claim


def bench_seed_cells(levels: tuple[int, ...] = (5, 8)) -> list[dict[str, object]]:
    """One row per seed cell: the seconds ``certify`` takes on (A, dualize(A, node)) and the verdict, per level;
    each cell starts with nothing kept (memo.py), and a higher level reads what a lower one built."""
    rows = []
    for cell in seed_cells():
        electric = cell.electric()
        claim = Claim(theory_a=electric, theory_b=dualize(electric, cell.node))
        memo.clear()
        row: dict[str, object] = {"cell": cell.name}
        for level in levels:
            started = time.perf_counter()
            verdict = certify(claim, Settings(level=level)).verdict
            row[f"seconds_L{level}"] = round(time.perf_counter() - started, 3)
            row[f"verdict_L{level}"] = verdict.value
        rows.append(row)
    return rows


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
