"""NetKet background for quenches followed by time-dependent variational Monte Carlo (t-VMC), as in Carleo and
Troyer, Science 355, 602 (2017), Fig. 4: a complex RBM is optimised to the ground state of the Hamiltonian
before the quench by stochastic reconfiguration, then evolved under the Hamiltonian after it by the
time-dependent variational principle (NetKet's TDVP, fourth-order Runge-Kutta).

Expectation values are exact sums over the Hilbert space (FullSumState), not Monte Carlo averages: the dynamics
of the variational manifold is then deterministic and reproducible bit for bit, and the only approximation left
is the network's.  That bounds the size to chains of about 14 spins on two cores.

Models, periodic chains in Pauli operators (NetKet's Chain: a chain of two spins has one bond):
- transverse-field Ising, H = -sum sigma^z_i sigma^z_(i+1) - h sum sigma^x_i, quenched h -> h_quench;
- XXZ, H = sum (sigma^x sigma^x + sigma^y sigma^y + Jz sigma^z sigma^z), quenched Jz -> Jz_quench, from its ground
  state or (initial = "neel") from the Neel state |up down up ...>, prepared as the ground state of
  -sum ((-1)^i sigma^z_i + 0.1 sigma^x_i): <sigma^z_i> = (-1)^i / sqrt(1.01) = +-0.995.  Without the small
  transverse field the optimisation saturates the network (weights growing without bound towards a product state)
  and its quantum geometric tensor vanishes: t-VMC from there does not move (measured: <sigma^z_1> stuck at 0.91
  where exact evolution gives cos(4t)).
"""

from __future__ import annotations

from typing import Any

import netket as nk
import netket.experimental as nkx
import numpy as np

from physvec.verifiers.library import BackgroundPipeline, BackgroundStep


def lattice_spin_ring(L: int) -> nk.graph.Graph:
    """The periodic chain of L sites (NetKet's Chain: two sites share one bond)."""
    return nk.graph.Chain(length=L, pbc=True)


def hamiltonian_ising_quenches(graph: nk.graph.Graph, h: float | list[float],
                               h_quench: float | list[float]) -> list[dict[str, nk.operator.LocalOperator]]:
    """Per curve, the Hamiltonian that prepares the state ("before") and the one that evolves it ("after"); a number
    is one curve, a list one curve per entry."""
    hilbert = nk.hilbert.Spin(0.5, graph.n_nodes)
    sx, sz = nk.operator.spin.sigmax, nk.operator.spin.sigmaz

    def ising(field: float) -> nk.operator.LocalOperator:
        return (sum(-1.0 * sz(hilbert, i) * sz(hilbert, j) for i, j in graph.edges())
                + sum(-field * sx(hilbert, i) for i in range(graph.n_nodes)))

    starts, ends = ([value] if isinstance(value, (int, float)) else list(value) for value in (h, h_quench))
    count = max(len(starts), len(ends))  # a one-entry list repeats for every curve
    return [{"before": ising(starts[i % len(starts)]), "after": ising(ends[i % len(ends)])} for i in range(count)]


def hamiltonian_xxz_quenches(graph: nk.graph.Graph, Jz: float | list[float], Jz_quench: float | list[float],
                             initial: str) -> list[dict[str, nk.operator.LocalOperator]]:
    """Per curve, the Hamiltonian that prepares the state (the XXZ chain at Jz, or the staggered field whose ground
    state is nearly the Neel state) and the XXZ chain at Jz_quench that evolves it."""
    if initial not in ("ground", "neel"):
        raise ValueError(f"initial is 'ground' or 'neel', got {initial!r}")
    hilbert = nk.hilbert.Spin(0.5, graph.n_nodes)
    sx, sy, sz = nk.operator.spin.sigmax, nk.operator.spin.sigmay, nk.operator.spin.sigmaz

    def xxz(anisotropy: float) -> nk.operator.LocalOperator:
        return sum(sx(hilbert, i) * sx(hilbert, j) + sy(hilbert, i) * sy(hilbert, j)
                   + anisotropy * sz(hilbert, i) * sz(hilbert, j) for i, j in graph.edges())

    staggered = sum(-((-1.0) ** i) * sz(hilbert, i) - 0.1 * sx(hilbert, i) for i in range(graph.n_nodes))
    starts, ends = ([value] if isinstance(value, (int, float)) else list(value) for value in (Jz, Jz_quench))
    count = max(len(starts), len(ends))  # a one-entry list repeats for every curve
    return [{"before": xxz(starts[i % len(starts)]) if initial == "ground" else staggered,
             "after": xxz(ends[i % len(ends)])} for i in range(count)]


def item_spin_probes(graph: nk.graph.Graph) -> dict[str, nk.operator.LocalOperator]:
    """The operators measured along the evolution: sigma^x and sigma^z averaged over sites, sigma^z of the first
    site, the total sigma^z, and sigma^z sigma^z averaged over the bonds."""
    hilbert, L = nk.hilbert.Spin(0.5, graph.n_nodes), graph.n_nodes
    sx, sz = nk.operator.spin.sigmax, nk.operator.spin.sigmaz
    bonds = list(graph.edges())
    return {"transverse_polarization": sum(sx(hilbert, i) for i in range(L)) * (1.0 / L),
            "first_site_magnetization": sz(hilbert, 0) * 1.0,
            "total_magnetization": sum(sz(hilbert, i) for i in range(L)),
            "nn_correlation": sum(sz(hilbert, i) * sz(hilbert, j) for i, j in bonds) * (1.0 / len(bonds))}


def ansatz_rbm_complex(alpha: float | list[float]) -> list[nk.models.RBM]:
    """RBMs with complex weights and biases and a visible bias (the paper's network), one per hidden-unit density:
    a number is one network for every curve, a list one network per entry (the convergence in alpha of the
    paper's Fig. 6)."""
    densities = [alpha] if isinstance(alpha, (int, float)) else list(alpha)
    return [nk.models.RBM(alpha=density, param_dtype=complex) for density in densities]


def effector_tvmc(hamiltonians: list[dict[str, nk.operator.LocalOperator]], models: list[nk.models.RBM],
                  probes: dict[str, nk.operator.LocalOperator], n_iter: int, learning_rate: float, diag_shift: float,
                  dt: float, times: list[float], seed: int) -> list[dict[str, Any]]:
    """Per curve: the network optimised to the ground state of "before" (SR, n_iter steps, exact sums), its energy
    there, then t-VMC under "after" with RK4 steps of dt, recording every probe and the energy at each of times.
    Curve i pairs quench i with network i; a list of one entry repeats for every curve."""
    if sorted(times) != list(times) or times[0] < 0:
        raise ValueError("times must be increasing from t >= 0")
    curves = []
    for i in range(max(len(hamiltonians), len(models))):
        pair, model = hamiltonians[i % len(hamiltonians)], models[i % len(models)]
        state = nk.vqs.FullSumState(pair["before"].hilbert, model, seed=seed)
        ground = nk.driver.VMC(pair["before"], nk.optimizer.Sgd(learning_rate), variational_state=state,
                               preconditioner=nk.optimizer.SR(diag_shift=diag_shift))
        ground.run(n_iter, out=(), show_progress=False)
        prepared = float(state.expect(pair["before"]).mean.real)
        log = nk.logging.RuntimeLog()
        evolution = nkx.TDVP(pair["after"], variational_state=state, ode_solver=nkx.dynamics.RK4(dt=dt),
                             qgt=nk.optimizer.qgt.QGTJacobianDense(holomorphic=True))
        evolution.run(T=times[-1], out=log, obs={**probes, "energy": pair["after"]}, tstops=list(times),
                      show_progress=False)
        curves.append({"prepared_energy": prepared,
                       **{name: np.asarray(log.data[name]["Mean"]).real.tolist() for name in [*probes, "energy"]}})
    return curves


def observable_ground_energies(evolutions: list[dict[str, Any]]) -> list[float]:
    """Per curve, the energy of the prepared state under the Hamiltonian that prepared it (before the quench)."""
    return [curve["prepared_energy"] for curve in evolutions]


def observable_energy(evolutions: list[dict[str, Any]]) -> float:
    """The first curve's ground energy before the quench (the benchmark reads a ground energy from ``energy``)."""
    return evolutions[0]["prepared_energy"]


def observable_ground_energy_densities(evolutions: list[dict[str, Any]], graph: nk.graph.Graph) -> list[float]:
    """Per curve, the ground energy before the quench per site."""
    return [curve["prepared_energy"] / graph.n_nodes for curve in evolutions]


def observable_transverse_polarizations(evolutions: list[dict[str, Any]]) -> list[list[float]]:
    """Per curve, <sigma^x> averaged over sites at each of times."""
    return [curve["transverse_polarization"] for curve in evolutions]


def observable_nn_correlations(evolutions: list[dict[str, Any]]) -> list[list[float]]:
    """Per curve, <sigma^z_i sigma^z_(i+1)> averaged over bonds at each of times."""
    return [curve["nn_correlation"] for curve in evolutions]


def observable_nn_correlation_magnitudes(evolutions: list[dict[str, Any]]) -> list[list[float]]:
    """Per curve, |<sigma^z_i sigma^z_(i+1)>| (the published check asks for the magnitude)."""
    return [[abs(value) for value in curve["nn_correlation"]] for curve in evolutions]


def observable_first_site_magnetizations(evolutions: list[dict[str, Any]]) -> list[list[float]]:
    """Per curve, <sigma^z_1> at each of times."""
    return [curve["first_site_magnetization"] for curve in evolutions]


def observable_total_magnetizations(evolutions: list[dict[str, Any]]) -> list[list[float]]:
    """Per curve, <sum_i sigma^z_i> at each of times."""
    return [curve["total_magnetization"] for curve in evolutions]


def observable_quench_energies(evolutions: list[dict[str, Any]]) -> list[list[float]]:
    """Per curve, <H_after> at each of times (conserved by exact evolution)."""
    return [curve["energy"] for curve in evolutions]


_TRAINING = {"alpha": 2, "n_iter": 300, "learning_rate": 0.05, "diag_shift": 0.01, "dt": 0.01, "seed": 0}
_COMMON_STEPS = (BackgroundStep("item", item_spin_probes, "probes"),
                 BackgroundStep("ansatz", ansatz_rbm_complex, "models"),
                 BackgroundStep("effector", effector_tvmc, "evolutions"),
                 BackgroundStep("observable", observable_ground_energies, "energies"),
                 BackgroundStep("observable", observable_energy, "energy"),
                 BackgroundStep("observable", observable_ground_energy_densities, "ground_energy_densities"),
                 BackgroundStep("observable", observable_quench_energies, "quench_energies"))

ISING_QUENCH_TVMC = BackgroundPipeline(
    backend="netket", name="ising_quench_tvmc",
    model="transverse_field_ising", lattice="ring", method="tvmc",
    params={"L": 4, "h": 1.0, "h_quench": 0.5, **_TRAINING, "n_iter": 150, "times": [0.0, 0.25, 0.5]},
    steps=(BackgroundStep("lattice", lattice_spin_ring, "graph"),
           BackgroundStep("hamiltonian", hamiltonian_ising_quenches, "hamiltonians"), *_COMMON_STEPS,
           BackgroundStep("observable", observable_transverse_polarizations, "transverse_polarizations")),
)

XXZ_QUENCH_TVMC = BackgroundPipeline(
    backend="netket", name="xxz_quench_tvmc",
    model="xxz", lattice="ring", method="tvmc",
    params={"L": 4, "Jz": 1.0, "Jz_quench": 0.5, "initial": "ground", **_TRAINING, "n_iter": 150,
            "times": [0.0, 0.25, 0.5]},
    steps=(BackgroundStep("lattice", lattice_spin_ring, "graph"),
           BackgroundStep("hamiltonian", hamiltonian_xxz_quenches, "hamiltonians"), *_COMMON_STEPS,
           BackgroundStep("observable", observable_nn_correlations, "nn_correlations"),
           BackgroundStep("observable", observable_nn_correlation_magnitudes, "nn_correlation_magnitudes"),
           BackgroundStep("observable", observable_first_site_magnetizations, "first_site_magnetizations"),
           BackgroundStep("observable", observable_total_magnetizations, "total_magnetizations")),
)
