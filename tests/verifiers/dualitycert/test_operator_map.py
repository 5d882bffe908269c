"""The operator-map row: which operators B's couplings relate, not only how many survive.

The red team's last DualityCert misses were the SPP dual at N = 2 with one coupling of the trace singlet
tr[M] dropped: tr[M] couples to tr X12 X21 + tr X02~ X20~, and without one of the two its F-term kills
another combination, with every count, anomaly and central charge unchanged.  These tests build that
class from the seeds themselves (every singlet coupling, every W term, in disguise too), and check that
the honest duals, self-dual cells among them, still certify and that the row stops at its bounds.
"""

from __future__ import annotations

import random
import time

import pytest

from physvec.verifiers.certificate import Outcome, Verdict
from physvec.verifiers.dualitycert import operator_map as operator_map_module
from physvec.verifiers.dualitycert.dualize import dualize
from physvec.verifiers.dualitycert.ground_truth import Label, label
from physvec.verifiers.dualitycert.isomorphism import theory_graph
from physvec.verifiers.dualitycert.obligations import chiral_ring, operator_map
from physvec.verifiers.dualitycert.registry import FINAL, INTERACTION, certify
from physvec.verifiers.dualitycert.theory import Arrow, Claim, Singlet, Term, Theory


def _without(theory: Theory, dropped: set[int]) -> Theory:
    return theory.model_copy(update={"superpotential": tuple(t for i, t in enumerate(theory.superpotential)
                                                             if i not in dropped)})


def _singlet_terms(theory: Theory) -> list[int]:
    singlets = {s.label for s in theory.singlets}
    return [i for i, term in enumerate(theory.superpotential) if singlets & set(term.factors)]


def _disguised(theory: Theory, rng: random.Random) -> Theory:
    """Fresh names, shuffled lists, rotated traces, permuted nodes, every arrow reversed (conjugation)."""
    names = {f.label: f"q{n}" for n, f in enumerate(rng.sample([*theory.arrows, *theory.singlets],
                                                                len(theory.arrows) + len(theory.singlets)))}
    order = list(theory.nodes)
    rng.shuffle(order)
    where = {old: new for new, old in enumerate(order)}
    arrows = [Arrow(label=names[a.label], source=where[a.target], target=where[a.source], r_charge=a.r_charge)
              for a in theory.arrows]
    singlets = [Singlet(label=names[s.label], r_charge=s.r_charge) for s in theory.singlets]
    terms = []
    for term in theory.superpotential:
        factors = [names[f] for f in reversed(term.factors)]
        turn = rng.randrange(len(factors))
        terms.append(Term(coefficient=term.coefficient, factors=tuple(factors[turn:] + factors[:turn])))
    for items in (arrows, singlets, terms):
        rng.shuffle(items)
    return Theory(name="disguised", node_labels=tuple(f"n{k}" for k in theory.nodes),
                  ranks=tuple(theory.ranks[o] for o in order), arrows=tuple(arrows), singlets=tuple(singlets),
                  superpotential=tuple(terms))


def test_the_reported_spp_miss_passes_the_count_and_is_not_certified_by_the_map(seed_claims):
    # The red team's trials 147 and 230 (seed 0): SPP dualised on node 0, the term tr[M] tr(X12 X21) / 2 dropped.
    claim = seed_claims["spp_N2_node0"]
    b = claim.theory_b
    index = next(i for i, t in enumerate(b.superpotential)
                 if {"X12[0]", "X21[0]"} <= set(t.factors) and any(f.startswith("tr[") for f in t.factors))
    wrong = _without(b, {index})
    assert label(claim.theory_a, wrong)[0] is Label.WRONG
    assert chiral_ring(claim.theory_a, wrong, FINAL.level).outcome is Outcome.CERTIFIED, "the blind spot itself"
    row = operator_map(claim.theory_a, wrong)
    # the fields are the dual's and only a coupling is missing: wrong unless some field redefinition mixing
    # fields of equal charges restores it, which is not searched, so unknown, never certified
    assert row.outcome is Outcome.UNKNOWN and "fields of the dual" in row.message
    certificate = certify(Claim(theory_a=claim.theory_a, theory_b=wrong), FINAL)
    assert certificate.verdict is Verdict.UNKNOWN, "missing evidence is no evidence that B is wrong"
    assert not certificate.failed()
    assert [o.name for o in certificate.obligations if o.outcome is Outcome.UNKNOWN] == ["operator_map", "required_checks"]


def test_every_dropped_singlet_coupling_of_every_seed_dual_is_refused(seed_claims):
    cases = 0
    for name, claim in seed_claims.items():
        singlet_terms = _singlet_terms(claim.theory_b)
        drops = [{i} for i in singlet_terms] + ([set(singlet_terms)] if singlet_terms else [])
        for dropped in drops:
            wrong = _without(claim.theory_b, dropped)
            assert certify(Claim(theory_a=claim.theory_a, theory_b=wrong), FINAL).verdict is not Verdict.CERTIFIED, \
                (name, sorted(dropped))
            assert operator_map(claim.theory_a, wrong).outcome is not Outcome.CERTIFIED, (name, sorted(dropped))
            cases += 1
    assert cases >= 10, "the seeds hold trace singlets (c3_z2z2, spp): the class must be exercised"


def test_no_seed_dual_with_one_w_term_dropped_passes_the_map(seed_claims):
    for name, claim in seed_claims.items():
        for index in range(len(claim.theory_b.superpotential)):
            wrong = _without(claim.theory_b, {index})
            assert operator_map(claim.theory_a, wrong).outcome is not Outcome.CERTIFIED, (name, index)


def test_a_dual_with_the_wrong_field_content_fails_the_map(seed_claims):
    claim = seed_claims["spp_N2_node0"]
    b = claim.theory_b
    wrong = b.model_copy(update={"ranks": tuple(r + 1 if n == 1 else r for n, r in enumerate(b.ranks))})
    row = operator_map(claim.theory_a, wrong)
    assert row.outcome is Outcome.FAILED and "field content of no node" in row.message


@pytest.mark.parametrize("cell", ["spp_N2_node0", "spp_N2_node2", "c3_z2z2_N2_node0", "c3_z2z2_N2_node1"])
def test_the_class_in_disguise_is_refused_and_the_disguised_dual_certifies(seed_claims, cell):
    claim = seed_claims[cell]
    rng = random.Random(cell)
    for index in _singlet_terms(claim.theory_b):
        wrong = _disguised(_without(claim.theory_b, {index}), rng)
        assert certify(Claim(theory_a=claim.theory_a, theory_b=wrong), FINAL).verdict is not Verdict.CERTIFIED, index
    honest = _disguised(claim.theory_b, rng)
    assert operator_map(claim.theory_a, honest).outcome is Outcome.CERTIFIED
    assert certify(Claim(theory_a=claim.theory_a, theory_b=honest), FINAL).verdict is Verdict.CERTIFIED


def test_every_seed_dual_certifies_the_map_self_dual_cells_included(seed_claims):
    for name, claim in seed_claims.items():
        row = operator_map(claim.theory_a, claim.theory_b)
        assert row.outcome is Outcome.CERTIFIED, (name, row.message)
        assert certify(claim, FINAL).verdict is Verdict.CERTIFIED, name
    for name in ("dp1_N2_node0", "dp1_N2_node1", "dp2_phase1_N2_node3"):
        claim = seed_claims[name]
        assert certify(claim, INTERACTION).verdict is Verdict.CERTIFIED, name


def test_a_rescaling_absorbs_a_sign_but_not_a_changed_coupling(seed_claims):
    claim = seed_claims["spp_N2_node0"]
    terms = list(claim.theory_b.superpotential)
    index = _singlet_terms(claim.theory_b)[0]
    doubled = terms[:index] + [terms[index].model_copy(update={"coefficient": 2 * terms[index].coefficient})] \
        + terms[index + 1:]
    # One coupling times 2 with every other coupling fixed: a field rescaling reaches it only if no
    # rescaling-invariant product of couplings holds this term, which the SPP dual's loops forbid.
    changed = claim.theory_b.model_copy(update={"superpotential": tuple(doubled)})
    truth = label(claim.theory_a, changed)[0]
    outcome = operator_map(claim.theory_a, changed).outcome
    assert (truth, outcome) in ((Label.RIGHT, Outcome.CERTIFIED), (Label.WRONG, Outcome.UNKNOWN))


def test_the_map_is_unknown_past_its_matching_bound_and_never_certifies(monkeypatch, seed_claims):
    monkeypatch.setattr(operator_map_module, "MAX_MATCHINGS", 0)
    claim = seed_claims["spp_N2_node0"]
    row = operator_map(claim.theory_a, claim.theory_b)
    assert row.outcome is Outcome.UNKNOWN and "undecided" in row.message
    certificate = certify(claim, FINAL)
    assert certificate.verdict is not Verdict.CERTIFIED
    assert "operator_map" in next(o for o in certificate.obligations if o.name == "required_checks").message


def test_the_map_is_unknown_past_its_work_bound(monkeypatch, seed_claims):
    monkeypatch.setattr(operator_map_module, "MATCH_WORK", 5)
    claim = seed_claims["dp2_phase1_N2_node4"]
    row = operator_map(claim.theory_a, claim.theory_b)
    assert row.outcome is Outcome.UNKNOWN and "work units" in row.message
    assert certify(claim, FINAL).verdict is not Verdict.CERTIFIED


def test_an_electric_theory_without_a_dualisable_node_makes_the_map_unknown(seed_claims):
    # Every node of A carries an adjoint: nothing to map through, so the row cannot decide, and says why.
    a = Theory(node_labels=("a", "b"), ranks=(2, 2),
               arrows=(Arrow(label="P", source=0, target=0, r_charge="2/3"),
                       Arrow(label="Q", source=1, target=1, r_charge="2/3"),
                       Arrow(label="X", source=0, target=1, r_charge="2/3"),
                       Arrow(label="Y", source=1, target=0, r_charge="2/3")),
               superpotential=(Term(coefficient=1, factors=("P", "X", "Y")),))
    row = operator_map(a, a)
    assert row.outcome is Outcome.UNKNOWN and "adjoint" in row.message


def test_the_map_takes_well_under_a_second_per_seed_cell(seed_claims):
    for name, claim in seed_claims.items():
        started = time.process_time()
        operator_map(claim.theory_a, claim.theory_b)
        assert time.process_time() - started < 2.0, name


def test_the_map_names_the_node_and_survives_a_massive_pair_in_b(seed_claims):
    claim = seed_claims["dp0_toric_N3_node0"]
    b = claim.theory_b
    padded = b.model_copy(update={
        "arrows": (*b.arrows, Arrow(label="Y", source=0, target=1, r_charge="1/2"),
                   Arrow(label="Yt", source=1, target=0, r_charge="3/2")),
        "superpotential": (*b.superpotential, Term(coefficient=3, factors=("Y", "Yt")))})
    row = operator_map(claim.theory_a, padded)
    assert row.outcome is Outcome.CERTIFIED and row.evidence["node"] in claim.theory_a.nodes
    assert dualize(claim.theory_a, row.evidence["node"]).ranks == claim.theory_b.ranks


@pytest.mark.parametrize("cell", ["spp_N2_node0", "spp_N2_node2", "c3_z2z2_N2_node0", "c3_z2z2_N2_node1"])
def test_relabelling_a_dual_with_singlet_couplings_never_changes_the_map(seed_claims, cell):
    # Class: fresh names move each trace's least rotation, and with it the place where a normal form writes
    # the term's singlets; singlets commute, so no relabelling may turn an honest dual into a refused one.
    claim = seed_claims[cell]
    rng = random.Random(f"relabel:{cell}")
    for trial in range(12):
        honest = _disguised(claim.theory_b, rng)
        row = operator_map(claim.theory_a, honest)
        assert row.outcome is Outcome.CERTIFIED, (trial, row.message)


@pytest.mark.parametrize("cell", ["dp0_toric_N3_node0", "spp_N2_node0", "dp2_phase1_N2_node4"])
def test_the_field_content_graph_is_the_graph_of_the_theory_without_w(seed_claims, cell):
    # The content graph is cut out of the theory graph; it must be the graph a W-free copy of the theory draws.
    theory = seed_claims[cell].theory_b
    for conjugate in (False, True):
        assert operator_map_module._content_graph(theory, conjugate) == \
            theory_graph(theory.model_copy(update={"superpotential": ()}), conjugate)
