"""The rubric a published QMP-Bench task gets when upstream never published its own.

95 of the 100 published task files name a rubric file that upstream did not release; upstream runs them anyway
(its scientific test covers only the five with trees).  physvec loads them with this default: the four sections
the published trees have, at the weights they use (rubric.DEFAULT_SECTION_WEIGHTS), the reproduction objective from
the common library, and the method leaf of the rubric library for the task's backend.  Every leaf is prose or a
library method check, so the default adds no check a script could fail for the user's lack of a file, and drops
none of the task's own (its converted truths and convergence cases stay as they are).
"""

from __future__ import annotations

from typing import Any

NO_PUBLISHED_RUBRIC = "upstream published no rubric; the default was used"
"""What run.json, the report and ``qmp-bench upstream status`` say about a task loaded with this default."""

METHOD_LEAVES: dict[str, str] = {
    "tenpy": "rubrics/dmrg.json#finite_dmrg", "itensors": "rubrics/dmrg.json#finite_dmrg",
    "netket": "rubrics/nqs.json#rbm_vmc", "qiskit": "rubrics/circuit.json#product_formula",
    "pyscf": "rubrics/dft.json#restricted_hartree_fock", "orca": "rubrics/dft.json#restricted_hartree_fock",
}
"""The rubric library's method leaf for each backend."""


def default_rubric(figure: str, backend: str) -> dict[str, Any]:
    """The default four-section rubric for a figure computed with ``backend``, as rubric-file JSON whose
    library uses the loader resolves."""
    return {"note": NO_PUBLISHED_RUBRIC, "sections": [
        {"name": "reproduction objective", "children": [
            {"use": "rubrics/common.json#objective", "with": {
                "name": "the figure's data",
                "description": f"the code computes the data of {figure} as the request asks"}}]},
        {"name": "physical system", "children": [
            {"name": "the paper's model", "description": "the Hamiltonian, lattice and boundaries of the paper"}]},
        {"name": "computational method", "children": [{"use": METHOD_LEAVES[backend]}]},
        {"name": "parameters", "children": [
            {"name": "the paper's parameters", "description": "the parameters the request and the paper state"}]},
    ]}
