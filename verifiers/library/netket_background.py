"""NetKet backgrounds: RBM ground states of the periodic Ising chain (local Metropolis moves) and of the
periodic Heisenberg chain at zero magnetisation (exchange moves), by plain stochastic-gradient VMC.

NetKet's Ising and Heisenberg use Pauli operators: H = -h sum X_i + J sum Z_i Z_{i+1} and
H = J sum sigma_i . sigma_{i+1} = 4 J sum S_i . S_{i+1}, the latter with the Marshall sign rule applied
(a unitary change of basis: same spectrum).  See ../shared/BACKENDS.md.

A second Heisenberg background optimises the same RBM by stochastic reconfiguration (SR, the natural
gradient of Carleo & Troyer, Science 355, 602 (2017), Fig. 5) and keeps the energy at every iteration, so
a run at the paper's size (the 40-spin ring) can be drawn as the paper's convergence curve.

A third background is exact, not variational: the lowest energy in each lattice-momentum sector of the
Bose-Hubbard ring with a fixed number of bosons (Choo, Carleo, Regnault, Neupert, PRL 121, 167204 (2018),
Fig. 2a), from NetKet's BoseHubbard operator, H = -J sum (b+_i b_j + h.c.) + (U/2) sum n_i (n_i - 1)
with J = t, diagonalised in each momentum eigenspace of the translation.

Two more train a translation-invariant RBM by SR and return the network itself, its feature maps and biases
(netket_networks.py), beside its energy: the critical Ising ring and the Heisenberg ring of Carleo and Troyer's
Fig. 2 (method vmc_rbm_symm_sr), and the Heisenberg square torus of its Fig. 2 (right).

The variational counterparts of the momentum-resolved spectra, networks projected onto each momentum, are in
netket_momentum.py.
"""

from __future__ import annotations

from itertools import combinations

import netket as nk
import numpy as np
import scipy.sparse as sparse
from scipy.sparse.linalg import eigsh

from physvec.verifiers.library import BackgroundPipeline, BackgroundStep
from physvec.verifiers.library.netket_networks import (
    observable_feature_maps, observable_hidden_biases, observable_visible_bias,
)
from physvec.verifiers.library.netket_excited import HEISENBERG_GAP_RBM
from physvec.verifiers.library.netket_momentum import BOSE_HUBBARD_MOMENTUM_FFNN, HEISENBERG_MOMENTUM_RBM
from physvec.verifiers.library.netket_skyrmion import DM_SKYRMION_RBM
from physvec.verifiers.library.netket_tvmc import ISING_QUENCH_TVMC, XXZ_QUENCH_TVMC


def lattice_chain(L: int) -> nk.graph.Graph:
    return nk.graph.Chain(length=L, pbc=True)


def hamiltonian_ising(graph: nk.graph.Graph, h: float, J: float) -> nk.operator.Ising:
    hilbert = nk.hilbert.Spin(s=0.5, N=graph.n_nodes)
    return nk.operator.Ising(hilbert=hilbert, graph=graph, h=h, J=J)


def ansatz_rbm(alpha: int) -> nk.models.RBM:
    return nk.models.RBM(alpha=alpha, param_dtype=float)


def sampler_metropolis_local(hamiltonian: nk.operator.Ising) -> nk.sampler.MetropolisSampler:
    return nk.sampler.MetropolisLocal(hamiltonian.hilbert)


def hamiltonian_heisenberg(graph: nk.graph.Graph, J: float, total_sz: int) -> nk.operator.Heisenberg:
    """The Heisenberg chain in one magnetisation sector (the ground state of J > 0 lies at total_sz = 0)."""
    hilbert = nk.hilbert.Spin(s=0.5, N=graph.n_nodes, total_sz=total_sz)
    return nk.operator.Heisenberg(hilbert=hilbert, graph=graph, J=J)


def sampler_metropolis_exchange(hamiltonian: nk.operator.Heisenberg, graph: nk.graph.Graph
                                ) -> nk.sampler.MetropolisSampler:
    """Swaps of neighbouring spins: moves that keep the total magnetisation."""
    return nk.sampler.MetropolisExchange(hamiltonian.hilbert, graph=graph)


def effector_vmc(hamiltonian: nk.operator.DiscreteOperator, model: nk.models.RBM, sampler: nk.sampler.MetropolisSampler,
                 n_samples: int, n_iter: int, learning_rate: float, seed: int) -> nk.vqs.MCState:
    state = nk.vqs.MCState(sampler, model, n_samples=n_samples, seed=seed, sampler_seed=seed)
    driver = nk.VMC(hamiltonian, nk.optimizer.Sgd(learning_rate=learning_rate), variational_state=state)
    driver.run(n_iter=n_iter, out=None, show_progress=False)
    return state


def observable_energy(state: nk.vqs.MCState, hamiltonian: nk.operator.DiscreteOperator) -> float:
    return float(state.expect(hamiltonian).mean.real)


ISING_RBM = BackgroundPipeline(
    backend="netket", name="ising_rbm",
    model="transverse_field_ising", lattice="ring", method="vmc_rbm",
    params={"L": 6, "h": 1.0, "J": -1.0, "alpha": 1, "n_samples": 128, "n_iter": 5, "learning_rate": 0.05,
            "seed": 0},
    steps=(
        BackgroundStep("lattice", lattice_chain, "graph"),
        BackgroundStep("hamiltonian", hamiltonian_ising, "hamiltonian"),
        BackgroundStep("ansatz", ansatz_rbm, "model"),
        BackgroundStep("sampler", sampler_metropolis_local, "sampler"),
        BackgroundStep("effector", effector_vmc, "state"),
        BackgroundStep("observable", observable_energy, "energy"),
    ),
)

HEISENBERG_RBM = BackgroundPipeline(
    backend="netket", name="heisenberg_rbm",
    model="heisenberg", lattice="ring", method="vmc_rbm",
    params={"L": 6, "J": 1.0, "total_sz": 0, "alpha": 1, "n_samples": 256, "n_iter": 100, "learning_rate": 0.05, "seed": 0},
    steps=(
        BackgroundStep("lattice", lattice_chain, "graph"),
        BackgroundStep("hamiltonian", hamiltonian_heisenberg, "hamiltonian"),
        BackgroundStep("ansatz", ansatz_rbm, "model"),
        BackgroundStep("sampler", sampler_metropolis_exchange, "sampler"),
        BackgroundStep("effector", effector_vmc, "state"),
        BackgroundStep("observable", observable_energy, "energy"),
    ),
)


def effector_vmc_sr(hamiltonian: nk.operator.DiscreteOperator, model: nk.models.RBM,
                    sampler: nk.sampler.MetropolisSampler, n_samples: int, n_iter: int, learning_rate: float,
                    diag_shift: float, seed: int) -> tuple[nk.vqs.MCState, list[float]]:
    """``n_iter`` steps of stochastic reconfiguration; the trained state and the energy at every step.

    Each step moves the parameters by -learning_rate (S + diag_shift 1)^-1 grad E, with S the quantum
    geometric tensor (the covariance of the log-derivatives over the samples): nk.optimizer.Sgd with
    nk.optimizer.SR as preconditioner (NetKet picks the QGT representation; conjugate gradients solves).
    The constant diagonal shift regularises S, which is rank-deficient when n_samples does not exceed
    the number of parameters (NetKet then warns and suggests VMC_SR, the same update by another route).

    Returns:
        (state, energies): the MCState after all updates, and a list of n_iter floats (real parts, the
        Hamiltonian's units): entry k is NetKet's Monte Carlo estimate of the energy of the parameters at
        the start of step k, from the samples that also gave that step's gradient (entry 0 is the random
        initial RBM; no entry is the state after the last update, which observable_final_energy samples).
        A tuple, not a class of this module, so that a composed script needs nothing but this function.
    """
    state = nk.vqs.MCState(sampler, model, n_samples=n_samples, seed=seed, sampler_seed=seed)
    driver = nk.VMC(hamiltonian, nk.optimizer.Sgd(learning_rate=learning_rate), variational_state=state,
                    preconditioner=nk.optimizer.SR(diag_shift=diag_shift))
    energies: list[float] = []

    def record(step: int, log_data: dict, driver: nk.driver.VMC) -> bool:
        energies.append(float(np.real(log_data["Energy"].mean)))
        return True

    driver.run(n_iter=n_iter, out=None, show_progress=False, callback=record)
    return state, energies


def observable_final_energy(optimisation: tuple[nk.vqs.MCState, list[float]],
                            hamiltonian: nk.operator.DiscreteOperator) -> float:
    """The energy of the trained state: the mean of the local energy over n_samples fresh samples of the
    state after the last update (not the last history entry, which precedes that update)."""
    state, _ = optimisation
    return float(state.expect(hamiltonian).mean.real)


def observable_energy_history(optimisation: tuple[nk.vqs.MCState, list[float]]) -> list[float]:
    """The energy along the optimisation: n_iter floats, one per SR step (see effector_vmc_sr)."""
    _, energies = optimisation
    return [float(energy) for energy in energies]


HEISENBERG_RBM_SR = BackgroundPipeline(
    backend="netket", name="heisenberg_rbm_sr",
    model="heisenberg", lattice="ring", method="vmc_rbm_sr",
    params={"L": 8, "J": 1.0, "total_sz": 0, "alpha": 1, "n_samples": 512, "n_iter": 30, "learning_rate": 0.05,
            "diag_shift": 0.01, "seed": 0},
    steps=(
        BackgroundStep("lattice", lattice_chain, "graph"),
        BackgroundStep("hamiltonian", hamiltonian_heisenberg, "hamiltonian"),
        BackgroundStep("ansatz", ansatz_rbm, "model"),
        BackgroundStep("sampler", sampler_metropolis_exchange, "sampler"),
        BackgroundStep("effector", effector_vmc_sr, "optimisation"),
        BackgroundStep("observable", observable_final_energy, "energy"),
        BackgroundStep("observable", observable_energy_history, "energy_history"),
    ),
)
"""Carleo & Troyer's optimisation at a size that runs in seconds: L = 8, 80 parameters, about 5 s with one
thread (most of it compilation), ending within 1e-4 of the exact -14.6043736.

Their Fig. 5 at its size, L = 40 (exact -70.98609115 in these Pauli units, 4x the Bethe-ansatz energy),
measured with one thread on a loaded 2-core machine (two threads were slower):
    alpha 1 (1680 parameters): n_samples 4096, n_iter 200, learning_rate 0.05, diag_shift 0.01: 117 s, rel. err. 4.4e-4
    alpha 2 (3320 parameters): n_samples 4096, n_iter 150, learning_rate 0.05, diag_shift 0.01: 168 s, rel. err. 3.9e-4
    alpha 4 (6600 parameters): n_samples 8192, n_iter 60, learning_rate 0.02, diag_shift 0.01: 274 s, rel. err. 1.5e-3
Keep n_samples above the number of parameters.  The first SR steps from the random RBM are the fragile
ones: within ten steps learning_rate 0.05 at alpha 1 with 1024 samples, 0.05 at alpha 4 and 0.1 at alpha 2
sent the state onto a few configurations (E = -9.5, -9.0 and -7.5 for ever after; a -inf in the history
on the way at alpha 4), where learning_rate 0.02, or diag_shift 0.05, at alpha 4 did not."""


def lattice_ring_of_spins(N: int) -> nk.graph.Graph:
    """The ring of N spins (the paper's symbol), numbered along it."""
    return nk.graph.Chain(length=N, pbc=True)


def hamiltonian_modified_haldane_shastry(graph: nk.graph.Graph, J: float) -> nk.operator.DiscreteOperator:
    """Deng, Li & Das Sarma's ring (PRX 7, 021021 (2017), Eq. (15)) at zero magnetisation, Pauli operators:
    H = J sum_{j<k} (-X_j X_k - Y_j Y_k + Z_j Z_k) / d_jk^2, chord distance d_jk = (N/pi)|sin(pi (j-k)/N)| (the
    paper's J = 1).
    Every pair interacts; the graph gives only the sites (and, to the sampler, which spins to exchange).  NetKet
    builds sums of Pauli products as a jax operator; the numba form computes the 190 pairs' connected elements of
    N = 20 in 0.6 of the time (measured: 20 SR steps of 1024 samples, 4.9 s against 7.7-8.0 s)."""
    n = graph.n_nodes
    hilbert = nk.hilbert.Spin(s=0.5, N=n, total_sz=0)
    sx, sy, sz = nk.operator.spin.sigmax, nk.operator.spin.sigmay, nk.operator.spin.sigmaz
    terms = [J * (np.pi / (n * np.sin(np.pi * (k - j) / n))) ** 2
             * (sz(hilbert, j) @ sz(hilbert, k) - sx(hilbert, j) @ sx(hilbert, k) - sy(hilbert, j) @ sy(hilbert, k))
             for j in range(n) for k in range(j + 1, n)]
    return sum(terms[1:], terms[0]).to_numba_operator()


def ansatz_rbm_symmetric(graph: nk.graph.Graph, alpha: int) -> nk.models.RBMSymm:
    """A real RBM invariant under the ring's translations: alpha feature filters W^(f)_j (the paper's form for
    an integer hidden-unit density), each applied at every translation."""
    return nk.models.RBMSymm(symmetries=graph.translation_group(), alpha=alpha, param_dtype=float)


def observable_energy_density(optimisation: tuple[nk.vqs.MCState, list[float]],
                              hamiltonian: nk.operator.DiscreteOperator) -> float:
    """E / N of the trained state (fresh samples, as observable_final_energy)."""
    state, _ = optimisation
    return float(state.expect(hamiltonian).mean.real) / hamiltonian.hilbert.size


def observable_energy_density_history(optimisation: tuple[nk.vqs.MCState, list[float]],
                                      hamiltonian: nk.operator.DiscreteOperator) -> list[float]:
    """E / N at every SR step (the history of effector_vmc_sr divided by the number of spins)."""
    _, energies = optimisation
    return [float(energy) / hamiltonian.hilbert.size for energy in energies]


def observable_zz_correlations(optimisation: tuple[nk.vqs.MCState, list[float]]) -> list[float]:
    """<sigma^z_0 sigma^z_j>, j = 1 .. N/2, each as (1/N) sum_i <sigma^z_i sigma^z_(i+j)>: averaged over the ring's
    translations (the state's symmetry), which lowers the Monte Carlo error."""
    state, _ = optimisation
    hilbert, n = state.hilbert, state.hilbert.size
    sz = nk.operator.spin.sigmaz
    return [float(state.expect(sum(sz(hilbert, i) @ sz(hilbert, (i + j) % n) for i in range(n)) * (1.0 / n)).mean.real)
            for j in range(1, n // 2 + 1)]


def observable_xx_correlations(optimisation: tuple[nk.vqs.MCState, list[float]]) -> list[float]:
    """<sigma^x_0 sigma^x_j>, j = 1 .. N/2, averaged over translations as the zz correlations, and measured as half
    of <X_0 X_j + Y_0 Y_j> (equal halves: H conserves S^z).  X_0 X_j alone takes a zero-magnetisation state out of
    the sampled sector, where the network has values but the state has none: NetKet would add them to the estimate
    (measured: 0.93 for the exact 0.64)."""
    state, _ = optimisation
    hilbert, n = state.hilbert, state.hilbert.size
    sx, sy = nk.operator.spin.sigmax, nk.operator.spin.sigmay
    return [float(state.expect(sum(0.5 * (sx(hilbert, i) @ sx(hilbert, (i + j) % n)
                                          + sy(hilbert, i) @ sy(hilbert, (i + j) % n)) for i in range(n))
                               * (1.0 / n)).mean.real) for j in range(1, n // 2 + 1)]


MODIFIED_HALDANE_SHASTRY_RBM = BackgroundPipeline(
    backend="netket", name="modified_haldane_shastry_rbm",
    model="modified_haldane_shastry", lattice="ring", method="vmc_rbm_sr",
    params={"N": 10, "J": 1.0, "alpha": 2, "n_samples": 1024, "n_iter": 150, "learning_rate": 0.05, "diag_shift": 0.01,
            "seed": 0},
    steps=(
        BackgroundStep("lattice", lattice_ring_of_spins, "graph"),
        BackgroundStep("hamiltonian", hamiltonian_modified_haldane_shastry, "hamiltonian"),
        BackgroundStep("ansatz", ansatz_rbm_symmetric, "model"),
        BackgroundStep("sampler", sampler_metropolis_exchange, "sampler"),
        BackgroundStep("effector", effector_vmc_sr, "optimisation"),
        BackgroundStep("observable", observable_final_energy, "energy"),
        BackgroundStep("observable", observable_energy_density, "energy_density"),
        BackgroundStep("observable", observable_energy_density_history, "energy_density_history"),
        BackgroundStep("observable", observable_zz_correlations, "zz_correlations"),
        BackgroundStep("observable", observable_xx_correlations, "xx_correlations"),
        BackgroundStep("observable", observable_feature_maps, "feature_maps"),
        BackgroundStep("observable", observable_hidden_biases, "hidden_biases"),
        BackgroundStep("observable", observable_visible_bias, "visible_bias"),
    ),
)
"""The ring of ten spins in about 20 s.  The paper's Fig. 7b, N = 20 with alpha = 4 (85 parameters), measured with
one thread on a loaded 2-core machine: 1024 samples, learning rate 0.02, diagonal shift 0.01 settle to E/N = -2.1655
within 20 steps and end 200 steps 1.4e-5 from the exact -43.30969 (100 s); learning rate 0.05 diverged (-inf)."""


def site_fock_bosons(graph: nk.graph.Graph, N: int) -> nk.hilbert.Fock:
    """N bosons on the graph's sites with no cap below N on a site's occupation (n_max = N), so the
    fixed-N space is complete: C(N + L - 1, N) states, 92,378 at L = N = 10.  NetKet's ``N`` argument is the
    number of sites; the particle number is ``n_particles``."""
    return nk.hilbert.Fock(n_max=N, N=graph.n_nodes, n_particles=N)


def hamiltonian_bose_hubbard(hilbert: nk.hilbert.Fock, graph: nk.graph.Graph, t: float, U: float
                             ) -> nk.operator.BoseHubbard:
    """H = -t sum_<ij> (b+_i b_j + h.c.) + (U/2) sum_i n_i (n_i - 1): NetKet calls the hopping J and puts
    the factor 1/2 in front of U itself (two bosons on one site cost U, as in the paper)."""
    return nk.operator.BoseHubbard(hilbert, graph=graph, U=U, J=t)


def effector_momentum_lowest_energies(hamiltonian: nk.operator.DiscreteOperator) -> list[float]:
    """The lowest energy at each lattice momentum k = 2 pi m / L of a translation-invariant ring of bosons,
    as a list over m = 0, ..., L - 1 (sites numbered along the ring, as nk.graph.Chain does).

    Method.  The basis is every occupation vector with the Hilbert space's particle number and cap
    (stars and bars), and H is assembled from NetKet's matrix elements, ``hamiltonian.get_conn_padded``:
    NetKet's own index of a fixed-N Fock space (all_states, to_sparse) enumerates (n_max + 1)^L
    configurations or C(L n_max, N) combinations and refuses L = N = 10, where both exceed 2^31.  The translation T
    (the boson on site i moves to site i + 1) is a permutation of that basis.  For each m the isometry V
    holds one column per translation orbit, sum_j e^{-ikj} T^j |r> normalised (r the orbit's first basis
    state; columns that vanish, k p not a multiple of 2 pi for orbit length p, are dropped), so
    T V = e^{ik} V and V^dagger H V is H restricted to momentum k; its lowest eigenvalue comes from
    ARPACK (eigsh), or numpy below 65 states.  An H that does not commute with T has no momentum
    sectors: that raises ValueError rather than returning energies of mixed sectors.  At L = N = 10
    (about 9.2k states a sector) this takes 1.5-2 s with one BLAS thread; with two on a busy 2-core machine
    ARPACK's small BLAS calls made it 10-35 s (see ../shared/BACKENDS.md on threads).
    """
    hilbert = hamiltonian.hilbert
    L, N, n_max = hilbert.size, hilbert.n_particles, hilbert.n_max
    bars = np.array(list(combinations(range(N + L - 1), L - 1)), dtype=np.int64).reshape(-1, L - 1)
    states = np.diff(np.hstack([np.full((len(bars), 1), -1), bars, np.full((len(bars), 1), N + L - 1)]), axis=1) - 1
    states = states[(states <= n_max).all(axis=1)]
    place_values = (N + 1) ** np.arange(L, dtype=np.int64)
    codes = states @ place_values
    order = np.argsort(codes)
    connected, elements = (np.asarray(a) for a in hamiltonian.get_conn_padded(states))
    connected_codes = connected.astype(np.int64) @ place_values
    found = order[np.minimum(np.searchsorted(codes, connected_codes, sorter=order), len(codes) - 1)]
    nonzero = elements != 0
    if (codes[found][nonzero] != connected_codes[nonzero]).any():
        raise ValueError("the Hamiltonian leaves the fixed-particle-number space")
    rows = np.broadcast_to(np.arange(len(states))[:, None], elements.shape)[nonzero]
    matrix = sparse.csr_matrix((elements[nonzero], (rows, found[nonzero])), shape=(len(states), len(states)))
    shift = order[np.searchsorted(codes, np.roll(states, 1, axis=1) @ place_values, sorter=order)]
    scale = max(1.0, abs(matrix).max())
    if abs(matrix[shift][:, shift] - matrix).max() > 1e-10 * scale:
        raise ValueError("the Hamiltonian does not commute with the translation by one site: no momentum sectors")
    shifted = [np.arange(len(states))]
    for _ in range(L - 1):
        shifted.append(shift[shifted[-1]])
    shifted = np.stack(shifted)                          # shifted[j, s]: the basis index of T^j s
    representatives = np.flatnonzero(shifted.min(axis=0) == np.arange(len(states)))
    energies = []
    for m in range(L):
        phases = np.exp(-2j * np.pi * m * np.arange(L) / L)
        columns = np.tile(np.arange(len(representatives)), L)
        isometry = sparse.csr_matrix((np.repeat(phases, len(representatives)),
                                      (shifted[:, representatives].ravel(), columns)),
                                     shape=(len(states), len(representatives)))
        norms = np.sqrt(np.asarray(abs(isometry).power(2).sum(axis=0))).ravel()
        kept = np.flatnonzero(norms > 0.5)
        isometry = isometry[:, kept] @ sparse.diags(1 / norms[kept])
        block = (isometry.conj().T @ matrix @ isometry).tocsr()
        block = (block + block.conj().T) / 2
        if block.shape[0] <= 64:
            energies.append(float(np.linalg.eigvalsh(block.toarray())[0]))
        else:
            energies.append(float(eigsh(block, k=1, which="SA", return_eigenvectors=False)[0]))
    return energies


def observable_ground_energy(energies_by_momentum: list[float]) -> float:
    """The ground energy of the ring: the lowest of the sector minima."""
    return float(min(energies_by_momentum))


BOSE_HUBBARD_MOMENTUM = BackgroundPipeline(
    backend="netket", name="bose_hubbard_momentum_spectrum",
    model="bose_hubbard", lattice="ring", method="exact_momentum",
    params={"L": 4, "N": 4, "t": 1.0, "U": 1.0},
    steps=(
        BackgroundStep("lattice", lattice_chain, "graph"),
        BackgroundStep("site", site_fock_bosons, "hilbert"),
        BackgroundStep("hamiltonian", hamiltonian_bose_hubbard, "hamiltonian"),
        BackgroundStep("effector", effector_momentum_lowest_energies, "energies_by_momentum"),
        BackgroundStep("observable", observable_ground_energy, "ground_energy"),
    ),
)

_NETWORK_STEPS = (
    BackgroundStep("ansatz", ansatz_rbm_symmetric, "model"),
    BackgroundStep("effector", effector_vmc_sr, "optimisation"),
    BackgroundStep("observable", observable_final_energy, "energy"),
    BackgroundStep("observable", observable_energy_density, "energy_density"),
    BackgroundStep("observable", observable_feature_maps, "feature_maps"),
    BackgroundStep("observable", observable_hidden_biases, "hidden_biases"),
    BackgroundStep("observable", observable_visible_bias, "visible_bias"),
)
"""A translation-invariant RBM trained by SR, with the network among the results (netket_networks.py)."""
_NETWORK_TRAINING = {"alpha": 2, "n_samples": 512, "n_iter": 100, "learning_rate": 0.02, "diag_shift": 0.01,
                     "seed": 0}

ISING_FEATURE_MAPS = BackgroundPipeline(
    backend="netket", name="ising_feature_maps",
    model="transverse_field_ising", lattice="ring", method="vmc_rbm_symm_sr",
    params={"N": 8, "h": 1.0, "J": -1.0, **_NETWORK_TRAINING},
    steps=(
        BackgroundStep("lattice", lattice_ring_of_spins, "graph"),
        BackgroundStep("hamiltonian", hamiltonian_ising, "hamiltonian"),
        BackgroundStep("sampler", sampler_metropolis_local, "sampler"),
        *_NETWORK_STEPS,
    ),
)

HEISENBERG_FEATURE_MAPS = BackgroundPipeline(
    backend="netket", name="heisenberg_feature_maps",
    model="heisenberg", lattice="ring", method="vmc_rbm_symm_sr",
    params={"N": 8, "J": 1.0, "total_sz": 0, **_NETWORK_TRAINING},
    steps=(
        BackgroundStep("lattice", lattice_ring_of_spins, "graph"),
        BackgroundStep("hamiltonian", hamiltonian_heisenberg, "hamiltonian"),
        BackgroundStep("sampler", sampler_metropolis_exchange, "sampler"),
        *_NETWORK_STEPS,
    ),
)



def lattice_square_torus(L: int) -> nk.graph.Graph:
    """An L x L square lattice with periodic boundaries in both directions, sites numbered x L + y."""
    return nk.graph.Square(length=L, pbc=True)


HEISENBERG_SQUARE_FEATURE_MAPS = BackgroundPipeline(
    backend="netket", name="heisenberg_square_feature_maps",
    model="heisenberg", lattice="square", method="vmc_rbm_symm_sr",
    params={"L": 4, "J": 1.0, "total_sz": 0, **_NETWORK_TRAINING},
    steps=(
        BackgroundStep("lattice", lattice_square_torus, "graph"),
        BackgroundStep("hamiltonian", hamiltonian_heisenberg, "hamiltonian"),
        BackgroundStep("sampler", sampler_metropolis_exchange, "sampler"),
        *_NETWORK_STEPS,
    ),
)
"""The Heisenberg torus of Carleo and Troyer's Fig. 2 (right), whose filters span the whole L x L lattice: one
feature map is L^2 weights, W_f(x, y) at site x L + y."""

PIPELINES = (ISING_RBM, HEISENBERG_RBM, BOSE_HUBBARD_MOMENTUM, HEISENBERG_RBM_SR, ISING_QUENCH_TVMC, XXZ_QUENCH_TVMC,
             MODIFIED_HALDANE_SHASTRY_RBM, ISING_FEATURE_MAPS, HEISENBERG_FEATURE_MAPS,
             HEISENBERG_MOMENTUM_RBM, BOSE_HUBBARD_MOMENTUM_FFNN, HEISENBERG_SQUARE_FEATURE_MAPS, HEISENBERG_GAP_RBM,
             DM_SKYRMION_RBM)
"""Order matters on ties: a script is tested in the first pipeline sharing most of its PARAMS, so the SR
pipeline (a superset of heisenberg_rbm's names plus diag_shift) comes after the pipelines it extends."""
