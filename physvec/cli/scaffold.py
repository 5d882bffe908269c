"""`physvec new-task NAME`: a task folder whose every entry says what to fill in.

The files validate as written (so `physvec validate` shows the shape at once) and carry TODO
descriptions; the assertion and reference values are placeholders that no real reproduction meets.
The rubric and assertions start from library templates (`physvec rubrics list`, `physvec assertions
list`), with one literal assertion to show the written-out shape.
"""

from __future__ import annotations

import json
from pathlib import Path


PAPER = """# TODO: summarise, in your own words, the part of the paper the figure comes from

Cite authors, journal, year and DOI. State the model (Hamiltonian, lattice, boundary conditions),
the parameters of the figure, the method, and what the figure shows.
"""


def _task(name: str, backend: str) -> dict:
    return {
        "id": name,
        "title": f"TODO: one line naming the paper and the figure ({name})",
        "paper": {"path": "paper.md"},
        "target": {"figure": "TODO: Fig. N", "panel": None},
        "request": "TODO: which curves to reproduce, at which parameters, what may be scaled down and why.",
        "backend": backend,
        "rubric": "rubric.json",
        "assertions": "assertions.json",
        "limiting_cases": ["TODO: physical expectations in words (shown to the author, never certified)"],
        "convergence": {"cases": [{"parameter": "TODO_accuracy_parameter", "ladder": [16, 32, 64],
                                   "observable": "TODO_key", "tolerance": 1e-6}],
                        "notes": []},
        "reference": {"path": "reference.json", "observable": "TODO_key", "rtol": 1e-3,
                      "source": "TODO: where the reference values come from (paper table, exact method)"},
        "limits": {"programming_iterations": 8, "scientific_iterations": 5, "sandbox_wall_s": 600,
                   "token_budget": 200000, "rubric_votes": 3},
    }


METHOD_TEMPLATES = {
    "tenpy": ("rubrics/dmrg.json#finite_dmrg", "rubrics/dmrg.json#bond_dimension", {"minimum": 64}),
    "itensors": ("rubrics/dmrg.json#finite_dmrg", "rubrics/dmrg.json#bond_dimension", {"minimum": 64}),
    "netket": ("rubrics/nqs.json#rbm_vmc", "rubrics/nqs.json#samples", {"minimum": 1024}),
    "qiskit": ("rubrics/circuit.json#lie_trotter", "rubrics/circuit.json#trotter_steps", {"minimum": 100}),
    "pyscf": ("rubrics/dft.json#restricted_hartree_fock", "rubrics/dft.json#scf_convergence", {"maximum": 1e-8}),
}
"""Per backend, the library's method leaf and one accuracy-parameter leaf (`physvec rubrics list` shows all)."""


def _rubric(name: str, backend: str) -> dict:
    method, accuracy, bound = METHOD_TEMPLATES[backend]
    return {"task": name, "sections": [
        {"name": "reproduction objective", "children": [
            {"name": "TODO: the requested curves are returned",
             "description": "TODO: a prose requirement the model judges by vote"}]},
        {"name": "physical system", "children": [
            {"use": "rubrics/common.json#parameter_equals",
             "with": {"name": "TODO: model parameter", "parameter": "TODO_param", "value": 1,
                      "description": "TODO: a machine check on PARAMS, evaluated by code"}}]},
        {"name": "computational method", "children": [{"use": method, "with": {}}]},
        {"name": "parameters", "children": [
            {"use": accuracy, "with": {"parameter": "TODO_accuracy_parameter", **bound}}]},
    ]}


def _assertions(name: str) -> dict:
    common = {"run": "run_TODO", "observable": "TODO_key"}
    return {"task": name, "assertions": [
        {"use": "assertions/limits.json#small_system",
         "with": {**common, "name": "TODO: small size with an exact answer", "size": "TODO_size", "small_size": 4,
                  "expected": 0.0, "atol": 1e-8, "reference": "TODO: exact diagonalisation or closed form, with the "
                                                              "formula"}},
        {"use": "assertions/symmetries.json#invariance",
         "with": {**common, "name": "TODO: a symmetry of the model", "overrides_b": {}, "atol": 1e-8,
                  "reference": "TODO: why the two runs must agree"}},
        {"kind": "analytic_regime", "name": "TODO: a regime with a known result", "run": "run_TODO",
         "overrides": {}, "observable": "TODO_key", "expected": 0.0, "rtol": 1e-6,
         "reference": "TODO: the analytic result and its source"},
    ]}


def scaffold_task(folder: Path, name: str, backend: str) -> list[Path]:
    """Write task.json, rubric.json, assertions.json, reference.json and paper.md into ``folder``."""
    if folder.exists() and any(folder.iterdir()):
        raise FileExistsError(f"{folder} exists and is not empty")
    folder.mkdir(parents=True, exist_ok=True)
    files = {"task.json": _task(name, backend), "rubric.json": _rubric(name, backend), "assertions.json": _assertions(name),
             "reference.json": {"TODO_key": [0.0, 0.0, 0.0]}}
    written = []
    for file_name, data in files.items():
        (folder / file_name).write_text(json.dumps(data, indent=2) + "\n")
        written.append(folder / file_name)
    (folder / "paper.md").write_text(PAPER)
    return written + [folder / "paper.md"]
