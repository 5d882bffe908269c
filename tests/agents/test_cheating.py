"""A model that cheats gets no certificate.

Each variant produces the reference energy of the four-site chain (-3/4 - sqrt(3)/2) without
computing it from the parameters; the check that must catch it is named.
"""

from __future__ import annotations

import pytest

from physvec.cli.main import reproduce_main
from physvec.runstore.store import list_runs
from tests.agents.test_pipeline import set_limits
from tests.support.scripted import variant, write_replies

EXPECTED = "-1.6160254037844386"

CHEATS = {
    "expected number written into main": (
        variant("    results = run_ground_state(**PARAMS)\n",
                f"    results = run_ground_state(**PARAMS)\n    results[\"energy\"] = {EXPECTED}\n",
                variant("        for S in spins:", "        for S in spins[2:]:")),
        "consistency:run_ground_state"),
    "constant returned from an observable": (
        variant("    return np.linalg.eigvalsh(H)", f"    return np.array([{EXPECTED}] + [0.0] * (len(H) - 1))"),
        "metamorphic:energy"),
    "constant returned from the run_ function": (
        variant('    return {"energy": float(levels[0]), "levels": [float(x) for x in levels]}',
                f'    return {{"energy": {EXPECTED}, "levels": [float(x) for x in levels]}}'),
        "metamorphic:energy"),
    "coupling ignored inside an element function": (
        variant("            H += J * np.kron(", "            H += 1.0 * np.kron("),
        "metamorphic:energy"),
}


@pytest.mark.parametrize("cheat", list(CHEATS))
def test_a_cheating_script_gets_no_certificate(tiny_task, runs_dir, tmp_path, cheat):
    script, catching_check = CHEATS[cheat]
    set_limits(tiny_task, scientific_iterations=0)
    code = reproduce_main([str(tiny_task), "--model", f"scripted:{write_replies(tmp_path / 'r.json', script)}",
                           "--runs-dir", str(runs_dir)])
    (run,) = list_runs(runs_dir)
    assert code != 0 and run.metadata()["verdict"] != "certified", cheat
    scientific = {o.name: o for o in run.certificates()["scientific-v01"].obligations}
    assert scientific["reference:energy"].outcome.value == "certified", "the cheat does fool the reference check"
    assert scientific[catching_check].outcome.value == "failed", cheat
