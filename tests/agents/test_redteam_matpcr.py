"""The MatPCR red team: its ground truth against values computed by hand from cited data, its judge of a
checker's answer, its time bound, and a short campaign that runs, records, resumes and renders its table.

No test here asserts what the MatPCR oracles say (they change under the red team): only that each trial is
judged by the red team's own truth and recorded whatever the checker answered.
"""

from __future__ import annotations

import ast
import json
import math
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from physvec.agents import redteam, redteam_matpcr
from physvec.agents import redteam_matpcr_truth as truth
from physvec.agents.redteam import CLASSES, RECORDS_FILE, TrialRecord, markdown_table, run_checker, trial_rng
from physvec.agents.redteam_matpcr import GENERATORS, BoundedChecker, Checked, judge
from physvec.agents.redteam_matpcr_cases import Case, decided

AGENTS = Path(redteam_matpcr.__file__).parent
TRUTH_AND_GENERATORS = ("redteam_matpcr_truth.py", "redteam_matpcr_cases.py", "redteam_matpcr_values.py",
                        "redteam_matpcr_texts.py", "redteam_matpcr_inputs.py")


# -- the ground truth, by hand ----------------------------------------------------------------------------

def test_bragg_angles_of_silicon_from_its_lattice_constant():
    """Si a = 5.4310 A (Okada and Tokumaru 1984), Cu K-alpha1 1.54056 A (Bearden 1967): d(111) = a / sqrt 3 =
    3.1356 A, 2theta = 2 asin(lambda / 2d) = 28.44 deg; d(220) = a / sqrt 8 = 1.9202 A, 2theta = 47.30 deg."""
    angles = {r.hkl: r.two_theta for r in truth.cubic_reflections("Si", up_to_deg=90)}
    assert angles[(1, 1, 1)] == pytest.approx(28.44, abs=0.005)
    assert angles[(2, 2, 0)] == pytest.approx(47.30, abs=0.005)
    assert angles[(3, 1, 1)] == pytest.approx(56.12, abs=0.005)
    assert (2, 0, 0) not in angles and (2, 2, 2) not in angles, "diamond's d-glide removes h + k + l = 4n + 2"
    assert list(angles) == [(1, 1, 1), (2, 2, 0), (3, 1, 1), (4, 0, 0), (3, 3, 1), (4, 2, 2)]


@pytest.mark.parametrize(("lattice", "hkl", "allowed"), [
    ("diamond", (1, 1, 1), True), ("diamond", (2, 0, 0), False), ("diamond", (4, 0, 0), True),
    ("diamond", (2, 2, 2), False), ("fcc", (1, 1, 0), False), ("fcc", (2, 0, 0), True), ("fcc", (2, 1, 0), False),
    ("rocksalt", (1, 1, 1), True), ("bcc", (1, 1, 0), True), ("bcc", (1, 0, 0), False), ("bcc", (2, 1, 1), True),
])
def test_selection_rules_written_from_the_lattices(lattice, hkl, allowed):
    """fcc: h, k, l unmixed; diamond: also h + k + l = 4n when all even; bcc: h + k + l even."""
    assert truth.allowed(lattice, hkl) is allowed


def test_corundum_104_spacing_and_the_lowest_angle_any_reflection_can_have():
    """a = 4.758 A, c = 12.991 A: 1/d^2(104) = 4/3 / a^2 + 16 / c^2, d = 2.551 A (NBS Circular 539 lists 2.552);
    at 0.1 A no plane is spaced wider than c, so nothing lies below 2 asin(0.1 / 2c) = 0.441 deg."""
    assert truth.hexagonal_d(*truth.CORUNDUM_CELL, (1, 0, 4)) == pytest.approx(2.551, abs=0.001)
    assert truth.bragg_two_theta(truth.CORUNDUM_CELL[1], 0.1) == pytest.approx(0.441, abs=0.001)
    assert truth.diffraction_truth(truth.CORUNDUM, 2.246, 0.1) == "right"
    assert truth.diffraction_truth(truth.CORUNDUM, 0.15, 0.1) == "wrong"


def test_a_near_miss_is_wrong_and_the_right_angle_right():
    assert truth.diffraction_truth("Si", 47.0) == "wrong", "Si (220) is at 47.30 deg, not 47.0"
    assert truth.diffraction_truth("Si", 47.30) == "right"
    assert truth.diffraction_truth("Si", 47.2) is None, "between the margins the truth does not decide"
    assert truth.diffraction_truth("Si", 32.99, hkl=(2, 0, 0)) == "wrong", "(200) is absent in diamond"
    assert truth.diffraction_truth("Si", 28.44, wavelength=10.0) == "wrong", "no plane of Si is spaced 5 A apart"


def test_our_hull_puts_anatase_and_wustite_above_it():
    """CRC DfH: rutile -944.0, anatase -938.7 kJ/mol per TiO2 (3 atoms): (944.0 - 938.7) / 96.485 / 3 = 0.0183
    eV/atom.  FeO -272.0 and Fe3O4 -1118.4 kJ/mol: per atom -1.4096 and -1.6559 eV at x_O = 1/2 and 4/7; the
    hull from Fe to Fe3O4 is -1.6559 * (1/2) / (4/7) = -1.4489 at x_O = 1/2, so FeO is 0.0394 eV/atom above."""
    assert truth.e_above_hull("TiO2-anatase") == pytest.approx(5.3 / 96.485332 / 3, abs=1e-6)
    assert truth.e_above_hull("FeO") == pytest.approx(-272.0 / 96.485332 / 2 + 1118.4 / 96.485332 / 7 * 0.5 * 7 / 4,
                                                      abs=1e-6)
    assert truth.e_above_hull("FeO") == pytest.approx(0.0394, abs=1e-4)
    for material in ("TiO2-rutile", "MgO", "Fe3O4", "Fe2O3-hematite", "Mn2O3", "MnO2", "Li2O2", "Cu2O"):
        assert abs(truth.e_above_hull(material)) < 1e-9, material
    assert truth.stable_truth("TiO2-anatase") == "wrong" and truth.stable_truth("MgO") == "right"
    assert truth.metastable_truth("TiO2-anatase") == "right"
    assert truth.formation_energy_per_atom("MgO") == pytest.approx(-601.6 / 96.485332 / 2)
    assert truth.formation_energy_per_atom("MgO") == pytest.approx(-3.118, abs=1e-3)


def test_values_off_by_more_than_their_spread_are_wrong():
    """Si gap 1.12 eV (Sze), NaCl 8.5 eV (Poole 1975), Ni 0.606 and Gd 7.63 muB (Kittel)."""
    assert truth.gap_truth("Si", 3.5) == "wrong" and truth.gap_truth("NaCl", 4.0) == "wrong"
    assert truth.gap_truth("Si", 1.12) == "right" and truth.gap_truth("Si", 1.25) is None
    assert truth.moment_truth("Ni", 0.70) == "wrong" and truth.moment_truth("Ni", 0.61) == "right"
    assert truth.moment_truth("Gd", 7.0) == "wrong"
    assert truth.moment_truth("Gd", 7.63) is None, "Gd loses its moment at 292 K: undecided without a temperature"
    assert truth.moment_truth("Gd", 7.63, kelvin=4.2) == "right", "the saturation moment at liquid-helium temperature"
    assert truth.moment_truth("Fe", 2.2, kelvin=1100) == "wrong", "no spontaneous moment above T_C = 1043 K"
    assert truth.moment_truth("Fe", 0.0, kelvin=1100) == "right"
    assert truth.moment_truth("Fe", 2.22, kelvin=300) is None, "M(T) has fallen by an unstated amount at 0.3 T_C"


def test_magnetic_order_with_and_without_a_temperature():
    assert truth.order_truth("MnO", "diamagnetic") == "wrong", "an antiferromagnet, paramagnetic above 118 K"
    assert truth.order_truth("MnO", "antiferromagnetic") is None, "true at 4 K, false at room temperature"
    assert truth.order_truth("NiO", "antiferromagnetic") == "right"
    assert truth.order_truth("Fe", "ferromagnetic", kelvin=1100) == "wrong", "T_C = 1043 K"
    assert truth.order_truth("Gd", "ferromagnetic", kelvin=300) == "wrong", "T_C = 292 K"
    assert truth.order_truth("Gd", "ferromagnetic", kelvin=250) == "right"
    assert truth.order_truth("Ni", "ferromagnetic", kelvin=629) is None, "within two spreads of T_C"
    assert truth.order_truth("Fe", "ferromagnetic", negated=True) == "wrong"
    assert truth.gap_class_truth("Cu", "insulator", negated=True) == "right", "Cu is never an insulator"


def test_a_feature_below_two_pixels_is_wrong():
    """0.31 nm fringes at 0.2 nm per pixel span 1.55 pixels: below Nyquist."""
    assert truth.feature_truth(0.2, 2048, 2048, 0.31) == "wrong"
    assert truth.feature_truth(0.2, 2048, 2048, 20.0) == "right"
    assert truth.feature_truth(2.5, 1024, 768, 1e6) == "wrong", "a millimetre in a 2.6 um wide image"


def test_a_poisson_spectrum_shows_the_line_put_there_and_nothing_else():
    generator = np.random.default_rng(7)
    axis = np.arange(400.0, 640.0, 0.5)
    spectrum = truth.poisson_spectrum(generator, axis, np.full(axis.size, 50.0), (truth.Line(520.7, 3.5, 2000.0),))
    assert spectrum.counts.dtype == float and np.all(spectrum.counts == np.round(spectrum.counts))
    assert spectrum.counts[np.argmin(abs(axis - 520.7))] > 1500
    assert truth.snr(spectrum, spectrum.lines[0]) == pytest.approx(2000 / math.sqrt(2050))
    assert truth.line_truth(spectrum, 520.5) == "right"
    assert truth.line_truth(spectrum, 450.0) == "wrong"
    assert truth.line_truth(spectrum, 700.0) is None, "outside the measured range"
    faint = truth.poisson_spectrum(generator, axis, np.full(axis.size, 50.0), (truth.Line(520.7, 3.5, 20.0),))
    assert truth.line_truth(faint, 520.7) is None, "a line the counts cannot show is not a right claim"


def test_the_truth_and_the_generators_import_no_verdict_code():
    """Read the imports, then import the modules in a fresh interpreter: no MatPCR oracle module is loaded."""
    for name in TRUTH_AND_GENERATORS:
        tree = ast.parse((AGENTS / name).read_text())
        modules = [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
        modules += [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
        assert not [m for m in modules if "verifiers" in m or m.startswith("physvec.cli")], (name, modules)
    loaded = subprocess.run([sys.executable, "-c", "import sys, physvec.agents.redteam_matpcr_texts, "
                             "physvec.agents.redteam_matpcr_inputs; print(sorted(m for m in sys.modules if "
                             "'verifiers' in m))"], capture_output=True, text=True, check=True, timeout=120).stdout
    assert loaded.strip() == "[]"


# -- the generators ---------------------------------------------------------------------------------------

def test_every_class_has_a_generator_and_a_trial_is_the_same_whenever_it_runs():
    assert tuple(GENERATORS) == CLASSES["matpcr"]
    for trial, kind in enumerate(CLASSES["matpcr"]):
        first, second = (decided(GENERATORS[kind], trial_rng("matpcr", 3, trial)) for _ in range(2))
        assert first == second and first.truth in ("right", "wrong", "no_claim", "outside_data", "malformed")
        if first.truth != "malformed":
            json.loads(first.file_text)


def test_generated_claims_carry_the_truth_their_class_promises():
    cases = {kind: [decided(GENERATORS[kind], random.Random(f"{kind}:{n}")) for n in range(12)]
             for kind in CLASSES["matpcr"]}
    assert {c.truth for c in cases["honest_poisson_lines"]} == {"right"}
    for kind in ("dark_spectrum", "sparse_poisson_counts", "cosmic_ray_spike", "smoothing_bump", "amorphous_halo"):
        assert {c.truth for c in cases[kind]} == {"wrong"}, kind
    assert {c.truth for c in cases["line_outside_measured_range"]} == {"outside_data"}
    lengths = {len(json.loads(c.file_text)["reasoning"]) for c in cases["pathological_text"]}
    assert all(n <= 1000 or n >= 20_000 for n in lengths), "1 kB inputs, and one of 20 kB against a size cap"
    mixed = CLASSES["matpcr"][CLASSES["matpcr"].index("near_miss_bragg"):CLASSES["matpcr"].index("malformed_inputs")]
    for kind in mixed:  # wrong claims inside a window and parser attacks come with right claims that must certify
        truths = {decided(GENERATORS[kind], random.Random(f"{kind}:{n}")).truth for n in range(40)}
        assert {"right", "wrong"} <= truths, kind


# -- the judge and the time bound -------------------------------------------------------------------------

def _certificate(verdict: str) -> str:
    return json.dumps({"verdict": verdict, "obligations": [{"name": "diffraction:0:47 deg", "outcome": verdict,
                                                            "message": "m"}]})


@pytest.mark.parametrize(("case_truth", "answer", "flags"), [
    ("wrong", Checked(0, _certificate("certified")), {"false_certificate"}),
    ("right", Checked(1, _certificate("failed")), {"false_refusal"}),
    ("right", Checked(2, stderr="matpcr: item: no corpus item"), {"false_refusal"}),
    ("right", Checked(1, _certificate("unknown")), {"unknown"}),
    ("outside_data", Checked(1, _certificate("failed")), {"false_refusal"}),
    ("outside_data", Checked(1, _certificate("unknown")), {"unknown"}),
    ("no_claim", Checked(0, _certificate("certified")), {"false_certificate"}),
    ("malformed", Checked(2, stderr="matpcr: item: bad"), set()),
    ("malformed", Checked(1, _certificate("failed")), {"unknown"}),
    ("malformed", Checked(0, _certificate("certified")), {"false_certificate"}),
    ("wrong", Checked(1, _certificate("failed")), set()),
    ("wrong", Checked(None, traceback="Traceback (most recent call last):\nValueError"), {"crash"}),
    ("wrong", Checked(1, stderr="Traceback (most recent call last):\n  ValueError: invalid literal"), {"crash"}),
    ("wrong", Checked(1, stdout="not json"), {"crash"}),
    ("wrong", Checked(None, died="the checker's process ended"), {"crash"}),
    ("right", Checked(None, seconds=5.0, hang=True), {"hang"}),
])
def test_the_judge_reads_the_answer_against_the_truth(case_truth, answer, flags):
    judged = judge(Case("v", "{}", case_truth, "why"), answer)
    found = {f for f in ("false_certificate", "false_refusal", "crash", "hang", "unknown") if getattr(judged, f)}
    assert found == flags and judged.truth == case_truth and judged.input == {"claims_file": "{}"}


def test_a_call_past_the_bound_is_a_hang_and_the_worker_is_replaced(tmp_path):
    """A worker that says it is ready and then never answers: each call ends at the bound, as a hang."""
    log = tmp_path / "starts"
    stalls = (f"open({str(log)!r}, 'a').write('x'); print('{{\"ready\": true}}', flush=True); "
              "import time; time.sleep(60)")
    checker = BoundedChecker(bound_s=0.5, command=[sys.executable, "-c", stalls], warm_up=())
    try:
        started = time.monotonic()
        first, second = checker.check(tmp_path / "claims.json"), checker.check(tmp_path / "claims.json")
        assert first.hang and second.hang and time.monotonic() - started < 20
    finally:
        checker.close()
    assert log.read_text() == "xxx", "started once, then again after each hang"


def test_a_worker_that_dies_mid_call_is_a_crash(tmp_path):
    dies = "print('{\"ready\": true}', flush=True); import sys; sys.stdin.readline(); sys.exit(3)"
    checker = BoundedChecker(bound_s=5, command=[sys.executable, "-c", dies], warm_up=())
    try:
        answer = checker.check(tmp_path / "claims.json")
    finally:
        checker.close()
    assert answer.died and not answer.hang
    assert judge(Case("v", "{}", "wrong", "why"), answer).crash


def test_a_checker_that_cannot_start_is_a_crash_that_says_why(tmp_path):
    """An oracle module that no longer imports is the checker's crash, not the red team's."""
    broken = "import sys; sys.stderr.write('SyntaxError: invalid syntax (oracles.py)'); sys.exit(1)"
    checker = BoundedChecker(command=[sys.executable, "-c", broken], warm_up=())
    try:
        answer = checker.check(tmp_path / "claims.json")
    finally:
        checker.close()
    assert "did not start" in answer.died and "SyntaxError" in answer.died
    assert judge(Case("v", "{}", "right", "why"), answer).crash


def test_the_worker_runs_matpcr_check_and_reports_its_exit(tmp_path):
    """The real worker: a claims file it cannot read exits 2 with a message, never a traceback."""
    (tmp_path / "claims.json").write_text("{not json")
    checker = BoundedChecker(warm_up=())
    try:
        answer = checker.check(tmp_path / "claims.json")
    finally:
        checker.close()
    assert answer.status == 2 and answer.stderr.startswith("matpcr:") and not answer.traceback


# -- a short campaign -------------------------------------------------------------------------------------

def test_twelve_trials_run_record_resume_and_render(tmp_path, monkeypatch):
    first = run_checker("matpcr", 12, 0, tmp_path)
    assert [r.kind for r in first] == list(CLASSES["matpcr"][:12]), "one trial per class, round-robin"
    assert all(r.input["claims_file"] and r.verdict in ("certified", "failed", "unknown", "refused", "crash", "hang")
               for r in first)
    assert not [r.detail for r in first if r.variant == "red-team generator"], "the red team's own code did not fail"
    assert all(r.truth for r in first) and first[0].truth == "right"
    ran: list[int] = []
    real = redteam.run_trial
    monkeypatch.setattr(redteam, "run_trial", lambda checker, seed, trial, scratch: ran.append(trial) or
                        real(checker, seed, trial, scratch))
    again = run_checker("matpcr", 13, 0, tmp_path)
    assert ran == [12] and again[:12] == first
    assert len((tmp_path / RECORDS_FILE).read_text().splitlines()) == 13
    table = markdown_table("matpcr", again)
    assert "| class | trials | false certificates | false refusals | crashes | hangs | unknowns |" in table
    assert "| **all** | 13 |" in table and "| near_miss_bragg | 1 |" in table and "Slowest trial:" in table


def test_the_matpcr_table_counts_false_refusals_and_hangs_with_wilson_intervals():
    def record(trial: int, **flags: bool) -> TrialRecord:
        return TrialRecord(checker="matpcr", seed=0, trial=trial, kind="near_miss_bragg", variant="v",
                           verdict="hang" if flags.get("hang") else "failed", truth="right", input={}, seconds=trial,
                           **flags)
    table = markdown_table("matpcr", [record(0, false_refusal=True), record(1, hang=True), record(2)])
    row = next(line for line in table.splitlines() if line.startswith("| near_miss_bragg |"))
    one, none = "1/3 [0.061, 0.792]", "0/3 [0.000, 0.561]"  # Wilson, z = 1.96: 0/3 reaches z^2 / (3 + z^2) = 0.561
    assert row == f"| near_miss_bragg | 3 | {none} | {one} | {none} | {one} | {none} |"
    assert "Slowest trial: 2.00 s (trial 2, near_miss_bragg)." in table
    assert "(with hangs and false refusals)" in table
    assert not redteam.clean([record(1, hang=True)]) and redteam.clean([record(0, false_refusal=True)])
