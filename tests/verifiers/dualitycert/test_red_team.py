"""Regression tests for the classes of hole an outside red team found at final strictness.

Each test builds its own instances of a class (never only the quoted example) and checks that the final
verdict is not certified, naming the row that refuses it, while the honest seed pairs keep certifying.
"""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product

import pytest

from physvec.verifiers.certificate import Outcome, Verdict
from physvec.verifiers.domain import dualitycert_obligations
from physvec.verifiers.dualitycert import chiral_ring, isomorphism, registry
from physvec.verifiers.dualitycert.anomalies import r_trace
from physvec.verifiers.dualitycert.dualize import dualize
from physvec.verifiers.dualitycert.global_symmetries import Anomalies, flavour_symmetries
from physvec.verifiers.dualitycert.ground_truth import Label, label
from physvec.verifiers.dualitycert.perturb import Perturbation, apply
from physvec.verifiers.dualitycert.registry import FINAL, certify
from physvec.verifiers.dualitycert.theory import Arrow, Claim, MalformedTheory, Singlet, Term, Theory, parse_theory
from tests.verifiers.dualitycert.conftest import dp0_data


def _final(a: Theory, b: Theory) -> dict[str, Outcome]:
    certificate = certify(Claim(theory_a=a, theory_b=b), FINAL)
    outcomes = {o.name: o.outcome for o in certificate.obligations}
    outcomes["verdict"] = certificate.verdict
    return outcomes


def _conjugated_relabelled(theory: Theory) -> Theory:
    names = {a.label: f"F{i}" for i, a in enumerate(theory.arrows)}
    return theory.model_copy(update={
        "arrows": tuple(a.model_copy(update={"label": names[a.label], "source": a.target, "target": a.source})
                        for a in reversed(theory.arrows)),
        "superpotential": tuple(t.model_copy(update={"factors": tuple(names[f] for f in reversed(t.factors))})
                                for t in theory.superpotential)})


# 1. The copy guard is in the verdict path.

@pytest.mark.parametrize("cell", ["dp0_toric_N3_node0", "f0_phase_ii_N3_node2", "c3_z2z2_N2_node1", "spp_N2_node0"])
def test_a_copy_of_a_is_refused_by_certify_itself(seed_claims, cell):
    a = seed_claims[cell].theory_a
    for copy in (a, _conjugated_relabelled(a)):
        outcomes = _final(a, copy)
        assert outcomes["not_a_copy"] is Outcome.FAILED and outcomes["verdict"] is Verdict.FAILED


def test_the_pipeline_domain_check_refuses_a_copy(tmp_path, dp0):
    claim = tmp_path / "claim.json"
    claim.write_text(json.dumps({"theory_a": dp0_data(), "theory_b": dp0_data()}))
    rows = {o.name: o.outcome for o in dualitycert_obligations(claim)}
    assert rows["dualitycert:not_a_copy"] is Outcome.FAILED


@pytest.mark.parametrize("cell", ["dp1_N2_node0", "dp1_N2_node1", "dp2_phase1_N2_node3"])
def test_a_self_dual_node_s_dual_is_not_refused_though_it_is_a_copy(seed_claims, cell):
    # Rule: a copy of A is accepted by the guard only when it is also dualize(A, k) for some node k.
    claim = seed_claims[cell]
    assert isomorphism.is_copy_of(claim.theory_b, claim.theory_a)
    outcomes = _final(claim.theory_a, claim.theory_b)
    assert outcomes["not_a_copy"] is Outcome.CERTIFIED and outcomes["verdict"] is Verdict.CERTIFIED


@pytest.mark.parametrize("cell", ["dp1_N2_node0", "dp2_phase1_N2_node3", "dp2_phase1_N2_node4"])
def test_a_copy_of_a_self_dual_a_is_its_dual_and_certifies(seed_claims, cell):
    # A's dual at a self-dual node is A up to labels (the dP2 electric theory prepared for node 4 is
    # self-dual at node 3): a disguised copy of A is then that dual, for the guard and for the ground truth.
    a = seed_claims[cell].theory_a
    copy = _conjugated_relabelled(a)
    assert label(a, copy)[0] is Label.RIGHT
    certificate = certify(Claim(theory_a=a, theory_b=copy), FINAL)
    guard = next(o for o in certificate.obligations if o.name == "not_a_copy")
    assert guard.outcome is Outcome.CERTIFIED and "self_dual_node" in guard.evidence
    assert certificate.verdict is Verdict.CERTIFIED


# 2. The guard compares normal forms: massive pairs, singlet masses and decoupled sectors are seen through.

def _padded(a: Theory, kind: str) -> Theory:
    if kind == "massive_pair":
        pair = (Arrow(label="Y", source=0, target=1, r_charge=Fraction(3, 4)),
                Arrow(label="Yt", source=1, target=0, r_charge=Fraction(5, 4)))
        return a.model_copy(update={"arrows": (*a.arrows, *pair),
                                    "superpotential": (*a.superpotential, Term(coefficient=Fraction(1), factors=("Y", "Yt")))})
    if kind == "inert_singlet":
        return a.model_copy(update={"singlets": (*a.singlets, Singlet(label="S", r_charge=Fraction(1)))})
    if kind == "decoupled_su2":
        return a.model_copy(update={"ranks": (*a.ranks, 2), "node_labels": (*a.node_labels, "extra"),
                                    "arrows": (*a.arrows, Arrow(label="Phi", source=len(a.ranks), target=len(a.ranks),
                                                                r_charge=Fraction(0)))})
    singlets = (Singlet(label="S", r_charge=Fraction(1)), Singlet(label="T", r_charge=Fraction(1)))
    flip = Singlet(label="F", r_charge=Fraction(1))
    return a.model_copy(update={"singlets": (*a.singlets, *singlets, flip), "superpotential": (
        *a.superpotential, Term(coefficient=Fraction(1), factors=("S", "T")),
        Term(coefficient=Fraction(1), factors=("F", "F")))})


@pytest.mark.parametrize("kind", ["massive_pair", "inert_singlet", "decoupled_su2", "singlet_masses"])
@pytest.mark.parametrize("cell", ["dp0_toric_N3_node0", "c3_z2z2_N2_node0", "f0_phase_ii_N3_node0"])
def test_a_padded_with_massive_or_decoupled_fields_is_still_a_copy(seed_claims, cell, kind):
    a = seed_claims[cell].theory_a
    outcomes = _final(a, _padded(a, kind))
    assert outcomes["not_a_copy"] is Outcome.FAILED, (cell, kind)
    assert outcomes["verdict"] is not Verdict.CERTIFIED


@pytest.mark.parametrize("kind", ["massive_pair", "inert_singlet", "decoupled_su2", "singlet_masses"])
def test_a_self_dual_a_padded_is_its_dual_only_when_the_padding_integrates_out(seed_claims, kind):
    # dP2 prepared for node 4 is self-dual at node 3: A plus massive fields is that dual plus massive fields
    # (right), A plus a free singlet or a decoupled node is not (wrong), and the guard says the same.
    a = seed_claims["dp2_phase1_N2_node4"].theory_a
    padded = _padded(a, kind)
    massive = kind in ("massive_pair", "singlet_masses")
    assert label(a, padded)[0] is (Label.RIGHT if massive else Label.WRONG)
    outcomes = _final(a, padded)
    assert outcomes["not_a_copy"] is (Outcome.CERTIFIED if massive else Outcome.FAILED)
    assert (outcomes["verdict"] is Verdict.CERTIFIED) is massive


def test_the_dual_of_the_dual_is_a_itself_or_a_self_dual_dual(seed_claims):
    for name, claim in seed_claims.items():
        if name.startswith("spp"):
            continue  # integrating out its trace singlets would need a double-trace W: not exact, refused
        node = int(name.rsplit("node", 1)[1])
        twice = dualize(claim.theory_b, node)
        outcomes = _final(claim.theory_a, twice)
        self_dual = _final(claim.theory_a, claim.theory_a)["not_a_copy"] is Outcome.CERTIFIED
        assert outcomes["verdict"] is (Verdict.CERTIFIED if self_dual else Verdict.FAILED), name


# 3. A check the claim needs that cannot run keeps the claim from being certified, and says which.

def _without_w(theory: Theory, keep) -> Theory:
    return theory.model_copy(update={"superpotential": tuple(t for i, t in enumerate(theory.superpotential) if keep(i))})


@pytest.mark.parametrize("cell", ["dp0_toric_N3_node0", "f0_phase_ii_N3_node0", "dp1_N2_node1", "c3_z2z2_N2_node0"])
def test_a_neutral_singlet_no_longer_switches_the_ring_off(seed_claims, cell):
    # A singlet at R = 1 is invisible to Tr R and Tr R^3; it used to make the ring not applicable.
    claim = seed_claims[cell]
    singlet = Singlet(label="Z", r_charge=Fraction(1))
    for wrong in (_without_w(claim.theory_b, lambda i: i != 0), _without_w(claim.theory_b, lambda i: False)):
        padded = wrong.model_copy(update={"singlets": (*wrong.singlets, singlet)})
        outcomes = _final(claim.theory_a, padded)
        assert outcomes["chiral_ring"] is Outcome.FAILED and outcomes["verdict"] is Verdict.FAILED, cell


@pytest.mark.parametrize("cell", ["dp0_toric_N3_node0", "spp_N2_node2", "dp2_phase1_N2_node4"])
def test_a_closed_walk_at_r_zero_makes_the_claim_unknown_naming_the_ring(seed_claims, cell):
    claim = seed_claims[cell]
    b = _padded(_without_w(claim.theory_b, lambda i: i != 0), "decoupled_su2")
    certificate = certify(Claim(theory_a=claim.theory_a, theory_b=b), FINAL)
    rows = {o.name: o for o in certificate.obligations}
    assert rows["chiral_ring"].outcome is Outcome.NOT_APPLICABLE
    assert rows["required_checks"].outcome is Outcome.UNKNOWN and "chiral_ring" in rows["required_checks"].message
    assert certificate.verdict is not Verdict.CERTIFIED


def test_a_check_that_raises_or_hits_its_bound_is_named_and_blocks(monkeypatch, seed_claims):
    claim = seed_claims["dp0_toric_N3_node0"]
    monkeypatch.setattr(isomorphism, "MATCH_WORK", 0)
    rows = {o.name: o for o in certify(Claim(theory_a=claim.theory_a, theory_b=claim.theory_a), FINAL).obligations}
    assert rows["not_a_copy"].outcome is Outcome.UNKNOWN and "work units" in rows["not_a_copy"].message
    monkeypatch.undo()

    def broken(a, b):
        raise ZeroDivisionError("boom")
    broken.__name__ = "thooft_tr_r"
    monkeypatch.setattr(registry, "MATCHING", (broken, *registry.MATCHING[1:]))
    certificate = certify(claim, FINAL)
    rows = {o.name: o for o in certificate.obligations}
    assert rows["thooft_tr_r"].outcome is Outcome.ERROR and "boom" in rows["thooft_tr_r"].message
    assert "thooft_tr_r" in rows["required_checks"].message and certificate.verdict is Verdict.UNKNOWN


# 4. Trace singlets are recognised by structure; their couplings count.

@pytest.mark.parametrize("cell", ["c3_z2z2_N2_node0", "c3_z2z2_N2_node1", "spp_N2_node0", "spp_N2_node2"])
def test_dropping_the_trace_singlet_couplings_is_refused(seed_claims, cell):
    claim = seed_claims[cell]
    singlets = {s.label for s in claim.theory_b.singlets}
    dropped = _without_w(claim.theory_b, lambda i: not singlets & set(claim.theory_b.superpotential[i].factors))
    assert _final(claim.theory_a, dropped)["verdict"] is Verdict.FAILED
    # A trace singlet with a single coupling (tr M q~ q / N): dropping that coupling alone is refused too.
    # (SPP's other trace singlet also couples to tr(X12 X21); dropping one of its two couplings is the
    # case the planar count cannot see: the operator map refuses it, test_operator_map.py.)
    for index, term in enumerate(claim.theory_b.superpotential):
        lone = [x for x in singlets & set(term.factors)
                if sum(x in t.factors for t in claim.theory_b.superpotential) == 1]
        if lone:
            alone = _without_w(claim.theory_b, lambda i, index=index: i != index)
            assert _final(claim.theory_a, alone)["verdict"] is Verdict.FAILED, term.factors


@pytest.mark.parametrize("cell", ["c3_z2z2_N2_node0", "spp_N2_node2"])
def test_a_singlet_s_name_does_not_matter(seed_claims, cell):
    claim = seed_claims[cell]
    names = {s.label: f"s{i}" for i, s in enumerate(claim.theory_b.singlets)}
    renamed = claim.theory_b.model_copy(update={
        "singlets": tuple(s.model_copy(update={"label": names[s.label]}) for s in claim.theory_b.singlets),
        "superpotential": tuple(t.model_copy(update={"factors": tuple(names.get(f, f) for f in t.factors)})
                                for t in claim.theory_b.superpotential)})
    assert _final(claim.theory_a, renamed)["verdict"] is Verdict.CERTIFIED
    fake = claim.theory_a.model_copy(update={"singlets": (Singlet(label="tr[fake]", r_charge=Fraction(1)),)})
    assert _final(fake, claim.theory_b)["verdict"] is Verdict.FAILED, "a tr[...] name earns no exemption"


# 5. R shifted along a baryonic (or any flavour) direction is caught by the mixed anomalies.

def _flavour_shifts(theory: Theory, reach: int = 1):
    """Every R -> R + eps Q with Q a small integer combination of the U(1)s that keeps Tr R and Tr R^3."""
    basis = flavour_symmetries(theory)
    anomalies = Anomalies(theory, basis)
    for coefficients in product(range(-reach, reach + 1), repeat=len(basis)):
        if not any(coefficients):
            continue
        q = [sum((c * b[f] for c, b in zip(coefficients, basis, strict=True)), Fraction(0)) for f in range(len(basis[0]))]
        e = [Fraction(c) for c in coefficients]
        linear, quadratic, cubic = (sum((x * y for x, y in zip(anomalies.l, e, strict=True)), Fraction(0)),
                                    sum((e[i] * anomalies.q[i][j] * e[j] for i in range(len(e)) for j in range(len(e))),
                                        Fraction(0)), anomalies.cubic(e, e, e))
        if sum((x * y for x, y in zip(anomalies.g, e, strict=True)), Fraction(0)) != 0:
            continue
        # Tr R'^3 - Tr R^3 = eps (3 l + 3 q eps + c eps^2): rational roots only
        roots = []
        if cubic == 0 and quadratic != 0:
            roots = [-linear / quadratic]
        elif cubic != 0:
            disc = 9 * quadratic ** 2 - 12 * cubic * linear
            if disc >= 0:
                num, den = disc.numerator, disc.denominator
                sn, sd = int(round(num ** 0.5)), int(round(den ** 0.5))
                if sn * sn == num and sd * sd == den:
                    root = Fraction(sn, sd)
                    roots = [(-3 * quadratic + root) / (2 * cubic), (-3 * quadratic - root) / (2 * cubic)]
        for eps in roots:
            if eps:
                charges = dict(zip(theory.field_r(), q, strict=True))
                yield eps, theory.model_copy(update={
                    "arrows": tuple(a.model_copy(update={"r_charge": a.r_charge + eps * charges[a.label]})
                                    for a in theory.arrows),
                    "singlets": tuple(s.model_copy(update={"r_charge": s.r_charge + eps * charges[s.label]})
                                      for s in theory.singlets)})


@pytest.mark.parametrize("cell", ["dp1_N2_node0", "dp1_N2_node1", "dp2_phase1_N2_node4", "c3_z2z2_N2_node0"])
def test_r_moved_along_a_flavour_direction_is_refused_unless_it_is_a_relabelling(seed_claims, cell):
    claim = seed_claims[cell]
    shifts = list(_flavour_shifts(claim.theory_b))
    assert shifts, "the search finds shifts that keep Tr R and Tr R^3"
    for eps, shifted in shifts:
        assert r_trace(shifted, 3) == r_trace(claim.theory_b, 3) and r_trace(shifted, 1) == r_trace(claim.theory_b, 1)
        outcomes = _final(claim.theory_a, shifted)
        if outcomes["verdict"] is Verdict.CERTIFIED:
            # only a shift that permutes equivalent fields' R-charges may pass: then B is still the dual
            assert label(claim.theory_a, shifted)[0] is Label.RIGHT, (cell, eps)
        else:
            assert outcomes["thooft_flavour_u1"] is Outcome.FAILED, (cell, eps)


def test_the_reported_dp1_shift_by_minus_two_over_eighty_three_is_refused(seed_claims):
    found = 0
    for cell in ("dp1_N2_node0", "dp1_N2_node1"):
        for eps, shifted in _flavour_shifts(seed_claims[cell].theory_b, reach=2):
            if eps == Fraction(-2, 83):
                found += 1
                outcomes = _final(seed_claims[cell].theory_a, shifted)
                assert outcomes["thooft_tr_r"] is outcomes["thooft_tr_r3"] is Outcome.CERTIFIED
                assert outcomes["thooft_flavour_u1"] is Outcome.FAILED and outcomes["verdict"] is Verdict.FAILED
    assert found


# 6. Robustness: strict integers, bounded work, no uncaught exception.

@pytest.mark.parametrize("rank", ["6", 6.0, True])
def test_a_rank_must_be_an_integer(rank):
    data = dp0_data()
    data["ranks"][0] = rank
    with pytest.raises(MalformedTheory, match="ranks.0"):
        parse_theory(data)


def test_the_audits_survive_a_free_singlet(seed_claims):
    claim = seed_claims["dp0_toric_N3_node0"]
    b = claim.theory_b.model_copy(update={"singlets": (Singlet(label="S", r_charge=Fraction(2, 3)),)})
    certificate = certify(Claim(theory_a=claim.theory_a, theory_b=b), registry.Settings(level=5, audits=True))
    assert certificate.verdict is Verdict.FAILED
    assert not any(o.outcome is Outcome.ERROR for o in certificate.obligations)


def test_two_light_adjoints_end_in_unknown_within_the_bound(monkeypatch):
    monkeypatch.setattr(chiral_ring, "RING_WORK", 100_000)
    light = {"node_labels": ["a"], "ranks": [2], "arrows": [
        {"label": "P", "source": 0, "target": 0, "r_charge": "1/50"},
        {"label": "Q", "source": 0, "target": 0, "r_charge": "1/50"}]}
    other = json.loads(json.dumps(light))
    other["arrows"][1]["label"] = "R"
    certificate = certify(Claim(theory_a=parse_theory(light), theory_b=parse_theory(other)), FINAL)
    rows = {o.name: o for o in certificate.obligations}
    assert rows["chiral_ring"].outcome is Outcome.UNKNOWN and "work bound" in rows["chiral_ring"].message
    assert certificate.verdict is not Verdict.CERTIFIED


# 8. Fixture labels do not come from the verdict.

def test_ground_truth_labels_absorbable_sign_flips_right_and_drops_wrong(seed_claims):
    claim = seed_claims["dp0_toric_N3_node0"]
    labels = {label(claim.theory_a, apply(claim.theory_b, Perturbation("flip_w_sign", str(i))))[0]
              for i in range(len(claim.theory_b.superpotential))}
    assert labels == {Label.RIGHT, Label.WRONG}
    assert label(claim.theory_a, apply(claim.theory_b, Perturbation("drop_w_term", "0")))[0] is Label.WRONG
    assert label(claim.theory_a, claim.theory_b)[0] is Label.RIGHT
