"""The XXZ quench pipeline (Smith, Kim, Pollmann, Knolle, npj Quantum Inf. 5, 106 (2019), Figs. 2-5) against a
second implementation of the same product formula in numpy (matrix exponentials of each commuting group,
independent/xxz_quench.py, no Qiskit), against exact continuous-time evolution as the step shrinks, and against
what holds exactly: the initial values, the conserved magnetisation, two spins swapping as cos(4Jt), and the
symmetry (U, h) -> (-U, -h) of every Z observable.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from physvec.independent.xxz_quench import quench_curves
from physvec.verifiers.library import best_pipeline, pipeline_for_spec
from physvec.verifiers.library.qiskit_xxz_quench import (
    XXZ_QUENCH_TROTTER, circuit_trotter_steps, hamiltonian_xxz_chains, initialstate_spin_pattern,
    lattice_xxz_fields,
)

OBSERVABLES = ("magnetizations", "half_chain_occupation", "connected_correlations", "fisher_density")


def _largest_difference(first: dict, second: dict) -> float:
    return max(float(np.max(np.abs(np.asarray(first[name]) - np.asarray(second[name])))) for name in OBSERVABLES)


@pytest.mark.parametrize("changes", [
    {},  # two curves: plain, and disorder with a tilt and an interaction, two realisations each
    {"order": 1},
    {"initial": "neel"},
    {"L": 6, "dt": 0.375, "times": [0.0, 0.1, 0.375, 0.5, 1.1, 1.5], "U": [0.8], "disorder": [0.0], "slope": [-1.5]},
])
def test_every_observable_is_the_numpy_product_formula(changes):
    parameters = {**XXZ_QUENCH_TROTTER.params, **changes}
    assert _largest_difference(XXZ_QUENCH_TROTTER.run(**changes), quench_curves(parameters)) < 1e-10


def test_the_product_formula_approaches_exact_evolution_at_second_and_first_order():
    # error(dt) / error(dt / 2) is 4 for the symmetric step and 2 for the basic one, as dt shrinks
    base = {"L": 5, "U": [0.7], "disorder": [0.0], "slope": [0.9], "times": [1.0], "initial": "domain_wall"}
    exact = quench_curves({**XXZ_QUENCH_TROTTER.params, **base}, exact=True)
    for order, ratio in ((2, 4.0), (1, 2.0)):
        errors = [_largest_difference(XXZ_QUENCH_TROTTER.run(**base, order=order, dt=dt), exact)
                  for dt in (0.05, 0.025)]
        assert errors[0] / errors[1] == pytest.approx(ratio, rel=0.1), order
    assert _largest_difference(XXZ_QUENCH_TROTTER.run(**base, order=2, dt=0.005), exact) < 1e-4


def test_at_time_zero_nothing_has_moved():
    run = XXZ_QUENCH_TROTTER.run(times=[0.0])
    assert run["magnetizations"][0][0] == [-1.0, -1.0, 1.0, 1.0]
    assert run["half_chain_occupation"][0][0] == 0.0 and run["fisher_density"][1][0] == pytest.approx(0.0, abs=1e-15)
    assert run["connected_correlations"][1][0] == pytest.approx([0.0] * 4, abs=1e-15)
    neel = XXZ_QUENCH_TROTTER.run(times=[0.0], initial="neel")["magnetizations"][0][0]
    assert neel == [-1.0, 1.0, -1.0, 1.0]


def test_the_total_magnetisation_is_conserved_on_every_curve():
    run = XXZ_QUENCH_TROTTER.run(times=[0.0, 0.3, 0.9, 1.7])
    for curve in run["magnetizations"]:
        assert [sum(sites) for sites in curve] == pytest.approx([0.0] * 4, abs=1e-12)


def test_two_spins_swap_as_cos_4jt_at_any_step():
    # on {|down up>, |up down>} XX + YY is 2 sigma^x, one bond's terms commute, so the product formula is exact:
    # <Z_1> = -cos(4 J t) from the domain wall |down up>
    for J, t in ((1.0, 0.3), (0.7, 1.1)):
        run = XXZ_QUENCH_TROTTER.run(L=2, J=J, U=[0.0], disorder=[0.0], slope=[0.0], times=[t], dt=0.4)
        assert run["magnetizations"][0][0][0] == pytest.approx(-math.cos(4 * J * t), abs=1e-12)


def test_interaction_and_potential_reversed_together_change_no_z_observable():
    # the sublattice rotation prod_{j odd} Z_j maps H(J, U, h) to H(-J, U, h), and complex conjugation of the real
    # H and start maps t to -t: together every Z observable of H(U, h) equals that of H(-U, -h), step by step
    kept = {"U": [0.8], "disorder": [0.0], "slope": [1.5]}
    flipped = {"U": [-0.8], "disorder": [0.0], "slope": [-1.5]}
    assert _largest_difference(XXZ_QUENCH_TROTTER.run(**kept), XXZ_QUENCH_TROTTER.run(**flipped)) < 1e-12
    assert _largest_difference(XXZ_QUENCH_TROTTER.run(**kept), XXZ_QUENCH_TROTTER.run(U=[0.8], disorder=[0.0],
                                                                                       slope=[-1.5])) > 1e-2


def test_fields_are_the_tilt_plus_seeded_disorder():
    fields = lattice_xxz_fields(3, [0.0, 2.0], [1.5, 0.0], realisations=4, seed=11)
    assert fields[0] == [[1.5, 3.0, 4.5]], "no disorder: one realisation, h_j = slope * j"
    draws = np.random.default_rng(11).uniform(-1.0, 1.0, size=(4, 3))
    assert np.allclose(fields[1], 2.0 * draws, atol=1e-15)
    assert lattice_xxz_fields(3, [0.0, 2.0], [1.5, 0.0], 4, 11) == fields, "seeded"
    with pytest.raises(ValueError, match="differ in length"):
        lattice_xxz_fields(3, [0.0], [1.5, 0.0], 4, 11)


def test_the_hamiltonian_has_the_papers_signs():
    [[chain]] = hamiltonian_xxz_chains(2, 1.0, [0.5], [[[0.2, -0.3]]])
    terms = {(pauli, tuple(qubits)): coefficient for pauli, qubits, coefficient in chain.to_sparse_list()}
    assert terms == {("XX", (0, 1)): -1.0, ("YY", (0, 1)): -1.0, ("ZZ", (0, 1)): 0.5, ("Z", (0,)): 0.2,
                     ("Z", (1,)): -0.3}


def test_bad_inputs_are_refused_with_the_reason():
    with pytest.raises(ValueError, match="initial must be"):
        initialstate_spin_pattern(4, "ferro")
    with pytest.raises(ValueError, match="order must be 1 or 2"):
        circuit_trotter_steps([[]], 0.1, [0.0], 3)
    with pytest.raises(ValueError, match="non-negative"):
        circuit_trotter_steps([[]], 0.1, [-0.5], 2)


def test_the_spec_triple_finds_the_pipeline():
    assert pipeline_for_spec("qiskit", "xxz", "chain", "trotter") is XXZ_QUENCH_TROTTER


def test_a_script_sharing_one_name_with_the_chain_is_not_tested_in_it():
    # PARAMS that share only U with the XXZ chain (and with the Hubbard model) keep the backend's first background;
    # a Hubbard dimer's t, U and occupations make it the Hubbard ansatz's
    assert best_pipeline("qiskit", {"U": 0.5, "beta": 2.0}).name == "tfim_trotter"
    assert best_pipeline("qiskit", {"t": 1.0, "U": 0.0, "occupations": [0, 1, 2]}).name == "hubbard_hva_vqe"
    assert best_pipeline("qiskit", {"L": 6, "J": 1.0, "U": [0.5], "dt": 0.1, "times": [0.0]}) is XXZ_QUENCH_TROTTER
