"""NetKet backgrounds: the lowest energy in each lattice-momentum sector of a ring, from a network projected
onto that momentum and trained by stochastic reconfiguration (Choo, Carleo, Regnault, Neupert, PRL 121, 167204
(2018): the Heisenberg ring of Fig. 1a and the Bose-Hubbard ring of Fig. 2).

The paper fixes a state's momentum k by evaluating the network on a canonical translate of each configuration
and adding the phase i k r.  These pipelines use the projection of the same network instead,
psi_k(s) = (1/L) sum_r e^{-i k r} psi(T^r s), NetKet's SymmExpSum over the ring's translation group: also an exact
eigenstate of the translation for any weights, so the optimisation again finds the lowest state of the sector.
The networks are the paper's: an RBM with visible bias for the spins (alpha = 3, Fig. 1a) and, for the bosons,
a three-layer feed-forward network log psi = W2 f(W1 f(W0 n + b0) + b1) with f = log cosh and no output bias
(860 parameters at L = 10, alpha1 = 4, alpha2 = 1, as the paper counts; Fig. 2).  Weights are real: both
Hamiltonians are stoquastic (the Heisenberg ring under NetKet's Marshall sign rule), so the lowest state of the
unprojected problem is positive, and the phases come from the projection alone.

Energies are listed for m = 0, ..., L // 2 (k = 2 pi m / L); k and -k are degenerate in both rings, which are
symmetric under reflection.
"""

from __future__ import annotations

import flax.linen as nn
import netket as nk
import numpy as np

from physvec.verifiers.library import BackgroundPipeline, BackgroundStep


def lattice_ring(L: int) -> nk.graph.Graph:
    """A ring of L sites, numbered along it (site L - 1 bonds to site 0)."""
    return nk.graph.Chain(length=L, pbc=True)


def hamiltonian_heisenberg_ring(graph: nk.graph.Graph, J: float) -> nk.operator.DiscreteOperator:
    """H = J sum sigma_i . sigma_{i+1} (the paper's 4 sum S_i . S_{i+1} at J = 1) at zero magnetisation, under
    the Marshall sign rule (NetKet's default on a bipartite ring).  The rule flips the sign of every
    configuration with an odd number of down spins on odd sites; a translation then picks up (-1)^(L/2), so it
    keeps every momentum only when L is a multiple of 4: other lengths are refused, not silently moved by pi."""
    if graph.n_nodes % 4:
        raise ValueError(f"a ring of {graph.n_nodes} spins: the Marshall sign rule moves every momentum by pi "
                         "unless the length is a multiple of 4")
    hilbert = nk.hilbert.Spin(s=0.5, N=graph.n_nodes, total_sz=0)
    return nk.operator.Heisenberg(hilbert, graph=graph, J=J)


def site_fock_ring(graph: nk.graph.Graph, N: int) -> nk.hilbert.Fock:
    """N bosons on the ring's sites, a site holding up to N of them: the complete fixed-N space."""
    return nk.hilbert.Fock(n_max=N, N=graph.n_nodes, n_particles=N)


def hamiltonian_bose_hubbard_ring(hilbert: nk.hilbert.Fock, graph: nk.graph.Graph, t: float, U: float
                                  ) -> nk.operator.DiscreteOperator:
    """H = -t sum_i (b+_i b_{i+1} + h.c.) + (U/2) sum_i n_i (n_i - 1) (NetKet's J is the hopping t)."""
    return nk.operator.BoseHubbard(hilbert, graph=graph, U=U, J=t)


def sampler_exchange(hamiltonian: nk.operator.DiscreteOperator, graph: nk.graph.Graph
                     ) -> nk.sampler.MetropolisSampler:
    """Spin flips of neighbouring antiparallel pairs: moves that keep the magnetisation and reach every
    configuration of it."""
    return nk.sampler.MetropolisExchange(hamiltonian.hilbert, graph=graph, d_max=1)


def sampler_hopping(hamiltonian: nk.operator.DiscreteOperator) -> nk.sampler.MetropolisSampler:
    """Moves along H's own off-diagonal elements: for bosons, one boson hopping to a neighbour.  (Exchanging
    two sites' occupations keeps the set of occupation numbers, so it never leaves the starting multiset.)"""
    return nk.sampler.MetropolisHamiltonian(hamiltonian.hilbert, hamiltonian)


def ansatz_ffnn(graph: nk.graph.Graph, alpha1: float, alpha2: float) -> nk.models.MLP:
    """log psi = W2 f(W1 f(W0 s + b0) + b1), f = log cosh, round(alpha1 L) and round(alpha2 L) hidden units."""
    widths = (round(alpha1 * graph.n_nodes), round(alpha2 * graph.n_nodes))
    return nk.models.MLP(hidden_dims=widths, hidden_activations=nk.nn.activation.log_cosh, use_output_bias=False)


def ansatz_rbm_visible(alpha: float) -> nk.models.RBM:
    """log psi = a . s + sum_i log cosh(b_i + W_i . s), alpha hidden units per site."""
    return nk.models.RBM(alpha=alpha, use_visible_bias=True)


def effector_momentum_vmc(hamiltonian: nk.operator.DiscreteOperator, graph: nk.graph.Graph, model: nn.Module,
                          sampler: nk.sampler.MetropolisSampler, n_samples: int, n_iter: int,
                          learning_rate: float, diag_shift: float, seed: int) -> list[float]:
    """The variational energy of the lowest state at each momentum k = 2 pi m / L, m = 0, ..., L // 2.

    For each m: the network projected onto k (SymmExpSum with characters e^{-i k r} over the translations by
    r sites, in the order graph.translation_group() lists them), n_iter SR steps (Sgd with an SR
    preconditioner), then the energy of the trained state from n_samples fresh samples.  Every sector
    starts from the same seed."""
    translations = graph.translation_group()
    shifts = np.array([int(np.argmax(np.asarray(element) == 0)) for element in translations.to_array()])
    energies = []
    for m in range(graph.n_nodes // 2 + 1):
        characters = np.exp(-2j * np.pi * m * shifts / graph.n_nodes)
        projected = nk.nn.blocks.SymmExpSum(module=model, symm_group=translations,
                                            characters=nk.utils.HashableArray(characters))
        state = nk.vqs.MCState(sampler, projected, n_samples=n_samples, seed=seed, sampler_seed=seed)
        driver = nk.VMC(hamiltonian, nk.optimizer.Sgd(learning_rate=learning_rate), variational_state=state,
                        preconditioner=nk.optimizer.SR(diag_shift=diag_shift))
        driver.run(n_iter=n_iter, out=None, show_progress=False)
        energies.append(float(state.expect(hamiltonian).mean.real))
    return energies


def observable_energies_by_momentum(energies_by_momentum: list[float]) -> list[float]:
    """The sector energies, m = 0, ..., L // 2 (Pauli units for spins: 4 S.S per bond)."""
    return [float(energy) for energy in energies_by_momentum]



_TRAINING = {"n_samples": 512, "n_iter": 60, "learning_rate": 0.02, "diag_shift": 0.01, "seed": 0}
"""Sizes that run in about a minute (L = 8 spins, 6 bosons), for unit tests and faults; the figures' overlays
set their own."""

_SPIN_STEPS = (
    BackgroundStep("lattice", lattice_ring, "graph"),
    BackgroundStep("hamiltonian", hamiltonian_heisenberg_ring, "hamiltonian"),
    BackgroundStep("sampler", sampler_exchange, "sampler"),
)
_BOSON_STEPS = (
    BackgroundStep("lattice", lattice_ring, "graph"),
    BackgroundStep("site", site_fock_ring, "hilbert"),
    BackgroundStep("hamiltonian", hamiltonian_bose_hubbard_ring, "hamiltonian"),
    BackgroundStep("sampler", sampler_hopping, "sampler"),
)
_TRAINING_STEPS = (
    BackgroundStep("effector", effector_momentum_vmc, "energies_by_momentum"),
    BackgroundStep("observable", observable_energies_by_momentum, "energies"),
)


def _pipeline(name: str, model: str, method: str, params: dict, steps: tuple, ansatz) -> BackgroundPipeline:
    return BackgroundPipeline(backend="netket", name=name, model=model, lattice="ring", method=method,
                              params={**params, **_TRAINING},
                              steps=(*steps, BackgroundStep("ansatz", ansatz, "model"), *_TRAINING_STEPS))


HEISENBERG_MOMENTUM_RBM = _pipeline("heisenberg_momentum_rbm", "heisenberg", "vmc_momentum_rbm",
                                    {"L": 8, "J": 1.0, "alpha": 3.0}, _SPIN_STEPS, ansatz_rbm_visible)
"""About 35 s with one thread: within 1e-3 of the exact sector minima of the 8-spin ring at every m."""
BOSE_HUBBARD_MOMENTUM_FFNN = _pipeline("bose_hubbard_momentum_ffnn", "bose_hubbard", "vmc_momentum_ffnn",
                                       {"L": 6, "N": 6, "t": 1.0, "U": 1.0, "alpha1": 4.0, "alpha2": 1.0},
                                       _BOSON_STEPS, ansatz_ffnn)
"""About 35 s with one thread: within 1 % of the exact sector minima of 6 bosons on 6 sites.

Not offered, measured on these rings: the feed-forward network on the Heisenberg ring (at L = 8, 60 to 150 SR
steps, learning rate 0.02 or 0.05, it settled at m = 3 and 4 on -6.83 and -10.80, excited levels of those
sectors whose minima are -8.58 and -12.51), and the RBM on bosons (60 steps reached only -6.5 of -9.89 at
m = 0; learning rate 0.05 or 0.1 collapsed onto every boson on one site, E = 15)."""
PIPELINES = (HEISENBERG_MOMENTUM_RBM, BOSE_HUBBARD_MOMENTUM_FFNN)
