"""NetKet backgrounds: RBM ground states of the periodic Ising chain (local Metropolis moves) and of the
periodic Heisenberg chain at zero magnetisation (exchange moves), by plain stochastic-gradient VMC.

NetKet's Ising and Heisenberg use Pauli operators: H = -h sum X_i + J sum Z_i Z_{i+1} and
H = J sum sigma_i . sigma_{i+1} = 4 J sum S_i . S_{i+1}, the latter with the Marshall sign rule applied
(a unitary change of basis: same spectrum).  See ../shared/BACKENDS.md.
"""

from __future__ import annotations

import netket as nk

from physvec.verifiers.library import BackgroundPipeline, BackgroundStep


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

PIPELINES = (ISING_RBM, HEISENBERG_RBM)
