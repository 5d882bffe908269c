"""TeNPy background: open spin-1/2 Heisenberg chain, Neel state, two-site DMRG, local Sz.

Spin operators are S = sigma/2 (TeNPy's SpinChain), so E0(L=6) = -2.4935771338879 (exact
diagonalisation, checked in tests/verifiers/test_library.py).
"""

from __future__ import annotations

from tenpy.algorithms import dmrg
from tenpy.models.spins import SpinChain
from tenpy.networks.mps import MPS

from verifiers.library import BackgroundPipeline, BackgroundStep


def hamiltonian_heisenberg_chain(L: int, J: float) -> SpinChain:
    return SpinChain({"L": L, "S": 0.5, "Jx": J, "Jy": J, "Jz": J, "bc_MPS": "finite", "conserve": "Sz"})


def initialstate_neel(model: SpinChain) -> MPS:
    L = model.lat.N_sites
    return MPS.from_product_state(model.lat.mps_sites(), ["up", "down"] * (L // 2), bc="finite")


def effector_dmrg(psi: MPS, model: SpinChain, chi_max: int, svd_min: float, max_sweeps: int) -> float:
    """Ground-state search; ``psi`` becomes the ground state, the energy is returned."""
    options = {"mixer": True, "max_sweeps": max_sweeps, "trunc_params": {"chi_max": chi_max, "svd_min": svd_min}}
    return float(dmrg.run(psi, model, options)["E"])


def observable_sz_profile(psi: MPS) -> list[float]:
    return [float(value) for value in psi.expectation_value("Sz")]


PIPELINE = BackgroundPipeline(
    backend="tenpy",
    params={"L": 6, "J": 1.0, "chi_max": 16, "svd_min": 1e-10, "max_sweeps": 10},
    steps=(
        BackgroundStep("hamiltonian", hamiltonian_heisenberg_chain, "model"),
        BackgroundStep("initialstate", initialstate_neel, "psi"),
        BackgroundStep("effector", effector_dmrg, "energy"),
        BackgroundStep("observable", observable_sz_profile, "sz"),
    ),
)
