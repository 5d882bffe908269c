"""`physvec new-task NAME`: a task folder whose every entry says what to fill in.

The files validate as written (so `physvec validate` shows the shape at once) and carry TODO
descriptions; the assertion and reference values are placeholders that no real reproduction meets.
"""

from __future__ import annotations

import json
from pathlib import Path

from physvec.taskfiles.rubric import RUBRIC_SECTIONS

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


def _rubric(name: str) -> dict:
    examples = {
        "reproduction objective": {"name": "TODO: the requested curves are returned",
                                   "description": "TODO: a prose requirement the model judges by vote"},
        "physical system": {"name": "TODO: model parameter", "check": "TODO_param == 1",
                            "description": "TODO: a machine check on PARAMS, evaluated by code"},
        "computational method": {"name": "TODO: method", "description": "TODO: which algorithm and why"},
        "parameters": {"name": "TODO: accuracy parameter", "check": "TODO_accuracy_parameter >= 64",
                       "description": "TODO: a machine check on PARAMS"},
    }
    return {"task": name, "sections": [{"name": section, "weight": 1.0, "children": [examples[section]]}
                                       for section in RUBRIC_SECTIONS]}


def _assertions(name: str) -> dict:
    return {"task": name, "assertions": [
        {"kind": "limiting_case", "name": "TODO: small size with an exact answer", "run": "run_TODO",
         "overrides": {"TODO_size": 4}, "observable": "TODO_key", "expected": 0.0, "atol": 1e-8,
         "reference": "TODO: exact diagonalisation or closed form, with the formula"},
        {"kind": "symmetry", "name": "TODO: a symmetry of the model", "run": "run_TODO",
         "overrides_a": {}, "overrides_b": {}, "observable": "TODO_key", "relation": "equal", "atol": 1e-8,
         "reference": "TODO: why the two runs must agree"},
        {"kind": "analytic_regime", "name": "TODO: a regime with a known result", "run": "run_TODO",
         "overrides": {}, "observable": "TODO_key", "expected": 0.0, "rtol": 1e-6,
         "reference": "TODO: the analytic result and its source"},
    ]}


def scaffold_task(folder: Path, name: str, backend: str) -> list[Path]:
    """Write task.json, rubric.json, assertions.json, reference.json and paper.md into ``folder``."""
    if folder.exists() and any(folder.iterdir()):
        raise FileExistsError(f"{folder} exists and is not empty")
    folder.mkdir(parents=True, exist_ok=True)
    files = {"task.json": _task(name, backend), "rubric.json": _rubric(name), "assertions.json": _assertions(name),
             "reference.json": {"TODO_key": [0.0, 0.0, 0.0]}}
    written = []
    for file_name, data in files.items():
        (folder / file_name).write_text(json.dumps(data, indent=2) + "\n")
        written.append(folder / file_name)
    (folder / "paper.md").write_text(PAPER)
    return written + [folder / "paper.md"]
