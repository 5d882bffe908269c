"""NetKet background: the gap from the ground state to the first excited state of the Heisenberg ring, found
without any symmetry by the two-network method of Choo, Carleo, Regnault and Neupert, PRL 121, 167204 (2018),
Fig. 1c.

First a network Phi0 is trained to the ground state.  Then the excited state is Psi = Phi1 - lambda Phi0, a
second network minus its projection on the first, lambda = <Phi0|Phi1> / <Phi0|Phi0>, recomputed before every
optimisation step: Psi stays orthogonal to Phi0, so minimising its energy finds the lowest state orthogonal to the
ground state.  The paper's networks: Phi0 an RBM of alpha = 4, Phi1 an RBM of alpha = 2 with complex weights.

Chosen here: with n_samples = 0, expectation values and lambda are exact sums over the zero-magnetisation states
(FullSumState), where the paper samples: the optimisation is then deterministic, which bounds the rings to about 14
spins on two cores.  With n_samples > 0 both are Monte Carlo estimates, lambda from samples of Phi0 as the paper
does, for the published lengths (up to 40 spins) as a campaign trial.  Sampled, the learning rate must be small:
at 0.05 the ground network of six spins collapsed onto the Neel configurations (E = -6, zero variance, where the
ground energy is -11.21), at 0.02 it reached -11.2111 (measured).
Phi0 has real weights: under the Marshall sign rule (NetKet's default on the bipartite ring) the ground state is
positive.  Phi1 needs complex weights (measured at L = 12: real weights stalled 0.07 above the first excited
level, complex ones reached it to 1e-3).  In the zero-magnetisation sector the first excited state of an even ring
is the S = 1 triplet's S^z = 0 member, so the gap is the singlet-triplet gap.
"""

from __future__ import annotations

from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import netket as nk
from jax.scipy.special import logsumexp

from physvec.verifiers.library import BackgroundPipeline, BackgroundStep
from physvec.verifiers.library.netket_momentum import ansatz_rbm_visible, lattice_ring


def hamiltonian_heisenberg_zero_magnetisation(graph: nk.graph.Graph, J: float) -> nk.operator.DiscreteOperator:
    """H = J sum sigma_i . sigma_{i+1} (the paper's 4 sum S_i . S_{i+1} at J = 1) among states of S^z = 0, under
    the Marshall sign rule.  An odd ring is frustrated (no sign rule, no zero magnetisation) and is refused."""
    if graph.n_nodes % 2:
        raise ValueError(f"a ring of {graph.n_nodes} spins: the gap is computed on even rings only")
    hilbert = nk.hilbert.Spin(s=0.5, N=graph.n_nodes, total_sz=0)
    return nk.operator.Heisenberg(hilbert, graph=graph, J=J)


def ansatz_orthogonal_to_ground(alpha_excited: float, alpha_ground: float) -> nn.Module:
    """log Psi for Psi = Phi1 - lambda Phi0: Phi1 a complex RBM of alpha_excited (its weights are the trained
    parameters), Phi0 a real RBM of alpha_ground whose weights sit in the "ground" collection and lambda in
    "projection", both set by the effector and never trained.  The class is defined here so that a script
    carrying this function carries the network too."""

    class GroundProjectedOut(nn.Module):
        @nn.compact
        def __call__(self, x: jax.Array) -> jax.Array:
            log_excited = nk.models.RBM(alpha=alpha_excited, param_dtype=complex, name="excited")(x)
            ground_network = nk.models.RBM(alpha=alpha_ground, parent=None)
            ground = self.variable("ground", "params",
                                   lambda: ground_network.init(jax.random.PRNGKey(0), x)["params"])
            overlap = self.variable("projection", "overlap", lambda: jnp.zeros((), dtype=complex))
            log_ground = ground_network.apply({"params": ground.value}, x)
            return log_excited + jnp.log(1 - overlap.value * jnp.exp(log_ground - log_excited) + 0j)

    return GroundProjectedOut()


def variational_state(hamiltonian: nk.operator.DiscreteOperator, model: nn.Module, n_samples: int, seed: int
                      ) -> nk.vqs.VariationalState:
    """Exact sums over every basis state when n_samples is 0; otherwise n_samples Metropolis samples a step, moves
    along H's own off-diagonal elements (two antiparallel neighbours exchanged), as the paper samples."""
    if n_samples == 0:
        return nk.vqs.FullSumState(hamiltonian.hilbert, model, seed=seed)
    sampler = nk.sampler.MetropolisHamiltonian(hamiltonian.hilbert, hamiltonian)
    return nk.vqs.MCState(sampler, model, n_samples=n_samples, seed=seed, sampler_seed=seed)


def effector_ground_state(hamiltonian: nk.operator.DiscreteOperator, model: nn.Module, n_samples: int, n_iter: int,
                          learning_rate: float, diag_shift: float, seed: int) -> nk.vqs.VariationalState:
    """The network trained to the ground state: n_iter SR steps."""
    state = variational_state(hamiltonian, model, n_samples, seed)
    driver = nk.VMC(hamiltonian, nk.optimizer.Sgd(learning_rate=learning_rate), variational_state=state,
                    preconditioner=nk.optimizer.SR(diag_shift=diag_shift))
    driver.run(n_iter=n_iter, out=(), show_progress=False)
    return state


def projection_overlap(log_ground: jax.Array, log_excited: jax.Array) -> jax.Array:
    """lambda = <Phi0|Phi1> / <Phi0|Phi0> from the log-amplitudes on every basis state (Phi0 real), summed with
    the largest term factored out so that no exponential overflows."""
    exponents = log_ground + log_excited
    largest = jnp.max(exponents.real)
    return jnp.sum(jnp.exp(exponents - largest)) * jnp.exp(largest - logsumexp(2 * log_ground))


def sampled_projection_overlap(log_ground: jax.Array, log_excited: jax.Array) -> jax.Array:
    """lambda as the paper estimates it: the mean of Phi1 / Phi0 over samples drawn from |Phi0|^2."""
    return jnp.mean(jnp.exp(log_excited - log_ground))


def effector_excited_state(hamiltonian: nk.operator.DiscreteOperator, ground: nk.vqs.VariationalState,
                           alpha_excited: float, alpha_ground: float, n_samples: int, n_iter: int,
                           learning_rate: float, diag_shift: float, seed: int) -> nk.vqs.VariationalState:
    """Psi = Phi1 - lambda Phi0 trained by n_iter SR steps, lambda recomputed before each step and once after the
    last: exactly over every basis state (n_samples = 0; the returned state is then orthogonal to the ground
    network), or from fresh samples of the ground network (the paper's estimator).  log Psi is holomorphic in
    Phi1's complex weights (Phi0 and lambda are constants of the step), which SR is told."""
    excited_network = nk.models.RBM(alpha=alpha_excited, param_dtype=complex)
    state = variational_state(hamiltonian, ansatz_orthogonal_to_ground(alpha_excited, alpha_ground), n_samples,
                              seed + 1)

    def project(*_: Any) -> bool:
        if n_samples == 0:
            states, overlap = hamiltonian.hilbert.all_states(), projection_overlap
        else:
            states, overlap = ground.sample().reshape(-1, hamiltonian.hilbert.size), sampled_projection_overlap
        log_excited = excited_network.apply({"params": state.parameters["excited"]}, states)
        state.model_state = {"ground": {"params": ground.parameters},
                             "projection": {"overlap": overlap(ground.log_value(states), log_excited)}}
        return True

    project()
    driver = nk.VMC(hamiltonian, nk.optimizer.Sgd(learning_rate=learning_rate), variational_state=state,
                    preconditioner=nk.optimizer.SR(diag_shift=diag_shift, holomorphic=True))
    driver.run(n_iter=n_iter, out=(), show_progress=False, callback=project)
    project()
    return state


def effector_gaps_over_lengths(lengths: list[int], J: float, alpha_ground: float, alpha_excited: float,
                               n_samples: int, n_iter: int, learning_rate: float, diag_shift: float, seed: int
                               ) -> list[dict[str, float]]:
    """For each ring length, the ground network's energy and the orthogonalised network's energy (the paper's
    Fig. 1c axis); every length starts from the same seed."""
    points = []
    for L in lengths:
        hamiltonian = hamiltonian_heisenberg_zero_magnetisation(lattice_ring(L), J)
        ground = effector_ground_state(hamiltonian, ansatz_rbm_visible(alpha_ground), n_samples, n_iter,
                                       learning_rate, diag_shift, seed)
        excited = effector_excited_state(hamiltonian, ground, alpha_excited, alpha_ground, n_samples, n_iter,
                                         learning_rate, diag_shift, seed)
        points.append({"L": L, "ground_energy": float(ground.expect(hamiltonian).mean.real),
                       "excited_energy": float(excited.expect(hamiltonian).mean.real)})
    return points


def observable_gaps(gap_scan: list[dict[str, float]]) -> list[float]:
    """E1 - E0 at each length (Pauli units: 4 S.S per bond)."""
    return [point["excited_energy"] - point["ground_energy"] for point in gap_scan]


def observable_ground_energies_by_length(gap_scan: list[dict[str, float]]) -> list[float]:
    """E0 at each length."""
    return [point["ground_energy"] for point in gap_scan]


def observable_excited_energies_by_length(gap_scan: list[dict[str, float]]) -> list[float]:
    """E1 at each length."""
    return [point["excited_energy"] for point in gap_scan]


HEISENBERG_GAP_RBM = BackgroundPipeline(
    backend="netket", name="heisenberg_gap_rbm", model="heisenberg", lattice="ring", method="vmc_excited_rbm",
    params={"lengths": [4], "J": 1.0, "alpha_ground": 4.0, "alpha_excited": 2.0, "n_samples": 0, "n_iter": 150,
            "learning_rate": 0.05, "diag_shift": 0.01, "seed": 0},
    steps=(
        BackgroundStep("effector", effector_gaps_over_lengths, "gap_scan"),
        BackgroundStep("observable", observable_gaps, "gaps"),
        BackgroundStep("observable", observable_ground_energies_by_length, "ground_energies"),
        BackgroundStep("observable", observable_excited_energies_by_length, "excited_energies"),
    ),
)
"""The ring of four spins in seconds, for unit tests; the catalogue task and the figure's overlay set their own."""

PIPELINES = (HEISENBERG_GAP_RBM,)
