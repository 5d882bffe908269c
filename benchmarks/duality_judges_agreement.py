"""Do the two judges of "B is A's Seiberg dual" agree?  The verdict's path against the mutation judge.

The verdict's path is what the operator-map obligation runs (and what ground_truth.py ran before it used
the mutation judge): normal_form(B) against dualize(A, k) by graph isomorphism with rescalable couplings.
The mutation judge (verifiers/dualitycert/mutation_judge.py) shares none of that code.  Each case below is
labelled by both; a disagreement is a bug in one of them, and is printed with the claim's description.

Cases per seed cell: the true dual at every dualisable node, disguised copies of each (relabelled, nodes
permuted, conjugated), every depth-1 perturbation of perturb.py of the cell's dual, and ``--trials``
candidates of each red-team class of agents/redteam.py (seeded).

    python benchmarks/duality_judges_agreement.py [--trials 40] [--seed 0]

Found on the first runs (seed 0, 40 trials per class: 1061 cases, 43 disagreements, every depth-1
perturbation and every red-team wrong claim labelled alike), two faults of the verdict's path:
- dualize's least-squares R step moves spectator R-charges when A's R mixes with the node's baryon number
  (dP1 nodes 2, 3; dP2 phase I at most nodes): 33 true or disguised duals, and the dP2-for-node-4 copies of
  A, which are A's dual at node 3.  The verdict's own 't Hooft and central-charge rows reject dualize's R
  there and accept the mutation judge's.
- isomorphism.theory_graph reads a singlet's place inside a trace as meaningful, and normal_form writes it
  after the walk's least rotation, which depends on the labels: 7 relabelled SPP duals are not matched, so
  the verdict refuses an honest relabelled dual.
Both are fixed (dualize maps R: spectators kept, dual quarks 1 - R -/+ the baryonic shift; a W term's graph
holds its singlets as a multiset): the same run gives 1061 cases and 0 disagreements.
"""

from __future__ import annotations

import argparse
import functools
import random
import time
from collections import Counter

from physvec.agents.redteam import DUALITY_CLASSES, _duality_candidate, relabelled
from physvec.verifiers.dualitycert.bounds import Budget, WorkBoundExceeded
from physvec.verifiers.dualitycert.dualize import DualisationError, dualize
from physvec.verifiers.dualitycert.isomorphism import MATCH_WORK
from physvec.verifiers.dualitycert.mutation_judge import judge
from physvec.verifiers.dualitycert.normal_form import NotExact, normal_form
from physvec.verifiers.dualitycert.operator_map import same_couplings, same_field_content
from physvec.verifiers.dualitycert.perturb import CLASSES, apply, candidates
from physvec.verifiers.dualitycert.seeds import seed_cells
from physvec.verifiers.dualitycert.theory import Theory, structural_problems


@functools.cache
def _duals(electric: Theory) -> dict[int, Theory]:
    duals = {}
    for node in electric.nodes:
        try:
            duals[node] = dualize(electric, node)
        except DualisationError:
            continue
    return duals


def verdict_path_label(electric: Theory, candidate: Theory) -> str:
    """right / wrong / unlabelled by the verdict's own modules (dualize, normal_form, isomorphism, couplings)."""
    try:
        reduced = normal_form(candidate)
    except NotExact:
        return "unlabelled"
    undecided = False
    for dual in _duals(electric).values():
        budget = Budget(MATCH_WORK, "agreement")
        try:
            if not same_field_content(reduced, dual, budget):
                continue
            couplings = same_couplings(reduced, dual, budget)
        except WorkBoundExceeded:
            undecided = True
            continue
        if couplings:
            return "right"
        undecided |= couplings is None
    return "unlabelled" if undecided else "wrong"


def mutation_label(electric: Theory, candidate: Theory) -> str:
    truth, _ = judge(electric, candidate)
    return {True: "right", False: "wrong", None: "unlabelled"}[truth]


def cases(trials: int, seed: int):
    """(class, description, A, B) for every case the comparison labels."""
    rng = random.Random(seed)
    for cell in seed_cells():
        electric = cell.electric()
        for node, dual in _duals(electric).items():
            yield "true_dual", f"{cell.name}: dual at node {node}", electric, dual
            for conjugate in (False, True):
                yield ("disguised_dual", f"{cell.name}: dual at node {node}, relabelled, nodes permuted"
                       + (", conjugated" if conjugate else ""), electric, relabelled(dual, rng, conjugate, True))
        dual = _duals(electric)[cell.node]
        for kind, pool in candidates(dual).items():
            for perturbation in pool:
                perturbed = apply(dual, perturbation)
                if not structural_problems(perturbed):
                    yield kind, f"{cell.name}: {perturbation.name}", electric, perturbed
    for kind in DUALITY_CLASSES:
        if kind in CLASSES:
            continue  # exhaustively above
        for trial in range(trials):
            name, electric, candidate, variant = _duality_candidate(kind, random.Random(f"{seed}:{kind}:{trial}"))
            yield f"redteam:{kind}", f"{name}: {variant}", electric, candidate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=40, help="candidates per red-team class")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    table: Counter = Counter()
    disagreements = []
    seconds = Counter()
    for kind, description, electric, candidate in cases(args.trials, args.seed):
        started = time.monotonic()
        old = verdict_path_label(electric, candidate)
        seconds["verdict path"] += time.monotonic() - started
        started = time.monotonic()
        new = mutation_label(electric, candidate)
        seconds["mutation judge"] += time.monotonic() - started
        table[(kind, old, new)] += 1
        if old != new:
            disagreements.append((kind, description, old, new))
    print(f"{'class':34} {'verdict path':>12} {'mutation':>10} {'count':>6}")
    for (kind, old, new), count in sorted(table.items()):
        print(f"{kind:34} {old:>12} {new:>10} {count:>6}{'   <- disagree' if old != new else ''}")
    print(f"\n{sum(table.values())} cases, {len(disagreements)} disagreements; seconds: "
          + ", ".join(f"{k} {v:.1f}" for k, v in seconds.items()))
    for kind, description, old, new in disagreements:
        print(f"  {kind}: {description}: verdict path {old}, mutation judge {new}")


if __name__ == "__main__":
    main()
