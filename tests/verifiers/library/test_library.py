"""The verifier library: well-formed pipelines, and a script is unit-tested in the pipeline of its model."""

from __future__ import annotations

from pathlib import Path

import pytest

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.library import BACKEND_MODULES, best_pipeline, pipelines_for
from physvec.verifiers.programming import verify_script
from physvec.verifiers.programming.contract import element_role
from physvec.verifiers.sandbox import SandboxLimits, SandboxPool

HUBBARD_SCRIPT = Path(__file__).resolve().parents[2] / "fixtures" / "tenpy_hubbard_task" / "script.py"


@pytest.mark.parametrize("backend", list(BACKEND_MODULES))
def test_every_library_function_is_an_element_function_of_its_steps_role(backend):
    for pipeline in pipelines_for(backend):
        assert pipeline.backend == backend and pipeline.name
        for step in pipeline.steps:
            assert element_role(step.function.__name__) == step.role, (pipeline.name, step.function.__name__)


def test_a_script_is_matched_to_the_pipeline_sharing_most_of_its_parameters():
    hubbard = {"L": 8, "t": 1.0, "U": -4.0, "A": 2.0, "N_up": 4, "N_down": 4, "chi_max": 64, "max_sweeps": 10}
    assert best_pipeline("tenpy", hubbard).name == "trapped_hubbard_chain"
    assert best_pipeline("tenpy", {"L": 8, "J": 1.0, "chi_max": 32, "max_sweeps": 10}).name == "heisenberg_chain"
    assert best_pipeline("tenpy", {"L": 8, "J": 1.0, "g": 0.5, "chi_max": 32}).name == "tfi_chain"
    assert best_pipeline("itensors", hubbard) is None and pipelines_for("itensors") == ()


def test_a_correct_hubbard_script_passes_every_unit_test_in_the_hubbard_background(tmp_path):
    """In the Heisenberg background its density observable failed ("no operator Ntot"): a false failure."""
    certificate = verify_script(HUBBARD_SCRIPT, "tenpy", tmp_path, SandboxPool(), SandboxLimits(wall_s=120))
    units = {o.name: o for o in certificate.obligations if o.category == "unit"}
    assert units and all(o.outcome is Outcome.CERTIFIED for o in units.values()), {
        name: o.message for name, o in units.items()}
    assert {o.evidence["background"] for o in units.values()} == {"trapped_hubbard_chain"}


def test_the_library_figure_draws_lists_of_numbers_and_skips_other_results(tmp_path):
    from physvec.verifiers.library.plots import plot_results

    plot_results({"energies": [-1.0, -1.1], "energy": -1.1, "calculations": [object(), object()]},
                 str(tmp_path / "figure.png"))
    assert (tmp_path / "figure.png").read_bytes()[:4] == b"\x89PNG"
