"""DualityCert against QFTCert, claim by claim, in one process: seconds, verdicts and aggregates.

Why: issue 36 asks that DualityCert be at least five times faster than QFTCert (github
xingyang-yu/QFTCert) on the seed cells and on the seed-0 fixtures at chiral-ring level L = 3 and L = 5,
and that it certify none of the wrong fixtures.  QFTCert is not vendored: it is imported at run time from
the checkout the user names (``--qftcert PATH`` or $QFTCERT_PATH).  Both checkers bound the chiral ring by
the length of the cyclic words (our ``Settings.level``; QFTCert's ``bounded_chiral_ring.max_length``).

The bridge writes our Theory as a QFTCert pure quiver: one SU(N) node per rank, one chiral field per arrow
(antifundamental at the source, fundamental at the target, QFTCert's convention), one gauge-neutral
field per singlet, U(1)_R as the one global symmetry (so that QFTCert runs its R-graded chiral ring and
its R-anomaly checks), each W term as its ordered factor list with its coefficient.  A cell whose theory
QFTCert's objects reject is reported as not bridged, with the reason.

DualityCert keeps what it derives per theory (memo.py).  Fixture generation certifies every fixture, so
everything it kept is forgotten before the timing starts: each level's pass then meets every B for the first
time at L = 3, and at L = 5 reads what L = 3 built, as a repair loop and its final judge do.  ``--cold``
forgets everything before every claim as well (each claim as the first in a fresh process), the strictest
comparison; QFTCert keeps nothing between claims either way.

    python benchmarks/qftcert_side_by_side.py --qftcert /tmp/qftcert [--levels 3 5] [--limit N] [--cold]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from types import SimpleNamespace

from physvec.verifiers.dualitycert import memo
from physvec.verifiers.dualitycert.dualize import dualize
from physvec.verifiers.dualitycert.fixtures import FixtureConfig, generate, load_fixtures
from physvec.verifiers.dualitycert.registry import Settings, certify
from physvec.verifiers.dualitycert.seeds import seed_cells
from physvec.verifiers.dualitycert.theory import Claim, Theory

ENVIRONMENT = "QFTCERT_PATH"


def import_qftcert(checkout: Path) -> SimpleNamespace:
    """QFTCert's claim objects, builder and evaluator, imported from ``checkout``."""
    sys.path.insert(0, str(checkout.resolve()))
    from dualitycert.core.objects import DualityClaim, Field, SuperpotentialTerm
    from dualitycert.groups.u1 import u1_r
    from dualitycert.qft.dualities import evaluate_claim
    from dualitycert.qft.pure_quiver_builder import arrow_names, build_pure_quiver

    return SimpleNamespace(DualityClaim=DualityClaim, Field=Field, SuperpotentialTerm=SuperpotentialTerm,
                           evaluate_claim=evaluate_claim, arrow_names=arrow_names,
                           build_pure_quiver=build_pure_quiver, u1_r=u1_r)


def bridge_theory(qft: SimpleNamespace, theory: Theory):
    """Our theory as a QFTCert pure-quiver Theory (field names are QFTCert's X{i}{j}[k])."""
    arrows: dict[tuple[int, int], list] = {}
    names: dict[str, str] = {}
    for arrow in theory.arrows:
        arrows.setdefault((arrow.source, arrow.target), []).append(arrow.r_charge)
    copies: dict[tuple[int, int], int] = {}
    for arrow in theory.arrows:
        edge = (arrow.source, arrow.target)
        names[arrow.label] = qft.arrow_names(*edge, len(arrows[edge]))[copies.get(edge, 0)]
        copies[edge] = copies.get(edge, 0) + 1
    singlets = [qft.Field(name=f"S_{s.label}", field_type="chiral multiplet", r_charge=s.r_charge)
                for s in theory.singlets]
    names.update({s.label: f"S_{s.label}" for s in theory.singlets})
    terms = tuple(qft.SuperpotentialTerm(factors=tuple((names[f], 1) for f in term.factors),
                                         coefficient=term.coefficient) for term in theory.superpotential)
    built = qft.build_pure_quiver(ranks=tuple(theory.ranks), arrows=arrows, superpotential=terms,
                                  u1_globals=(qft.u1_r(),))
    return replace(built, fields=built.fields + tuple(singlets))


def bridge_claim(qft: SimpleNamespace, name: str, claim: Claim, level: int):
    return qft.DualityClaim(name=name, electric_theory=bridge_theory(qft, claim.theory_a),
                            magnetic_theory=bridge_theory(qft, claim.theory_b),
                            metadata={"bounded_chiral_ring": {"max_length": level}})


@dataclass(frozen=True)
class Row:
    name: str
    kind: str
    """seed (a true duality) or fixture (a wrong one)"""
    level: int
    ours_seconds: float
    ours_verdict: str
    theirs_seconds: float | None
    theirs_verdict: str
    """QFTCert's overall status, or 'not bridged: reason'"""


def _timed(check: Callable[[], str]) -> tuple[float, str]:
    started = time.perf_counter()
    verdict = check()
    return time.perf_counter() - started, verdict


def compare(qft: SimpleNamespace, claims: list[tuple[str, str, Claim]], levels: tuple[int, ...],
            cold: bool = False) -> list[Row]:
    """Each claim at each level, QFTCert then DualityCert, alternating in this process; DualityCert starts with
    nothing kept, and with ``cold`` forgets everything before every claim."""
    memo.clear()
    rows = []
    for level in levels:
        for name, kind, claim in claims:
            try:
                theirs_claim = bridge_claim(qft, name, claim, level)
            except (ValueError, KeyError, TypeError) as error:
                theirs_seconds, theirs = None, f"not bridged: {error}"
            else:
                theirs_seconds, theirs = _timed(lambda: qft.evaluate_claim(theirs_claim).overall_status.name.lower())
            if cold:
                memo.clear()
            ours_seconds, ours = _timed(lambda: certify(claim, Settings(level=level)).verdict.value)
            rows.append(Row(name, kind, level, ours_seconds, ours, theirs_seconds, theirs))
    return rows


def aggregates(rows: list[Row]) -> list[dict[str, object]]:
    """Per level and kind: speed ratio over claims both certify, claims/s, certified counts."""
    table = []
    for level in sorted({r.level for r in rows}):
        for kind in ("seed", "fixture"):
            mine = [r for r in rows if r.level == level and r.kind == kind]
            if not mine:
                continue
            both = [r for r in mine if r.ours_verdict == "certified" and r.theirs_verdict == "certified"]
            bridged = [r for r in mine if r.theirs_seconds is not None]
            ours_time = sum(r.ours_seconds for r in bridged)
            theirs_time = sum(r.theirs_seconds for r in bridged)
            table.append({
                "level": level, "kind": kind, "claims": len(mine), "bridged": len(bridged),
                "ratio_both_certify": round(sum(r.theirs_seconds for r in both) / sum(r.ours_seconds for r in both), 2)
                if both else None,
                "ratio_bridged": round(theirs_time / ours_time, 2) if ours_time else None,
                "ours_claims_per_s": round(len(bridged) / ours_time, 1) if ours_time else None,
                "theirs_claims_per_s": round(len(bridged) / theirs_time, 1) if theirs_time else None,
                "ours_certified": sum(r.ours_verdict == "certified" for r in mine),
                "theirs_certified": sum(r.theirs_verdict == "certified" for r in mine)})
    return table


def claims_to_compare(fixtures: Path | None, limit: int | None) -> list[tuple[str, str, Claim]]:
    """The seed cells (A, dualize(A, node)) and the fixtures (generated with seed 0 when no folder is given)."""
    seeds = [(c.name, "seed", Claim(theory_a=c.electric(), theory_b=dualize(c.electric(), c.node)))
             for c in seed_cells()]
    if fixtures is None:
        fixtures = Path(tempfile.mkdtemp(prefix="dualitycert-fixtures-"))
        generate(FixtureConfig(seed=0), fixtures)
    wrong = [(name, "fixture", claim) for name, claim in load_fixtures(fixtures)]
    return (seeds[:limit] + wrong[:limit]) if limit else seeds + wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qftcert", type=Path, default=os.environ.get(ENVIRONMENT),
                        help=f"QFTCert checkout (default ${ENVIRONMENT})")
    parser.add_argument("--levels", type=int, nargs="+", default=[3, 5])
    parser.add_argument("--fixtures", type=Path, help="fixture folder (default: generate with seed 0)")
    parser.add_argument("--limit", type=int, help="first N seed cells and first N fixtures only")
    parser.add_argument("--cold", action="store_true", help="DualityCert forgets what it kept before every claim")
    arguments = parser.parse_args(argv)
    if arguments.qftcert is None or not Path(arguments.qftcert).is_dir():
        parser.error(f"give a QFTCert checkout with --qftcert or ${ENVIRONMENT}")
    qft = import_qftcert(Path(arguments.qftcert))
    rows = compare(qft, claims_to_compare(arguments.fixtures, arguments.limit), tuple(arguments.levels),
                   arguments.cold)
    print(f"{'claim':44} {'kind':8} L  {'ours s':>8} {'ours':11} {'QFTCert s':>9} QFTCert")
    for r in rows:
        theirs = f"{r.theirs_seconds:9.3f}" if r.theirs_seconds is not None else f"{'-':>9}"
        print(f"{r.name[:44]:44} {r.kind:8} {r.level}  {r.ours_seconds:8.3f} {r.ours_verdict:11} {theirs} "
              f"{r.theirs_verdict[:80]}")
    for line in aggregates(rows):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
