"""Repair-run statistics against hand-worked values."""

from __future__ import annotations

import json
import math

import pytest
from scipy.stats import binomtest

from physvec.verifiers.dualitycert.analysis import analyze, episodes_frame, exact_mcnemar, fit_gee, holm, risk_difference

SS = [1, 0, 0, 0, 1, 0, 0, 0]
VF = [1, 1, 1, 0, 1, 1, 0, 1]


def write_run(runs_dir, run_id, policy, successes, faulted=()):
    folder = runs_dir / run_id
    folder.mkdir(parents=True)
    lines = [json.dumps({"run_id": run_id, "policy": policy, "fixture": f"f{k}", "trial": 0,
                         "outcome": "certified" if s else "failed", "calls": 1, "final_verdict": "x",
                         "tokens": 100, "seconds": 1.0}) for k, s in enumerate(successes)]
    lines += [json.dumps({"run_id": run_id, "policy": policy, "fixture": f"f{k}", "trial": 0, "outcome": "infra_fault",
                          "calls": 0, "final_verdict": "unknown", "tokens": 0, "seconds": 0.0}) for k in faulted]
    (folder / "episodes.jsonl").write_text("\n".join(lines) + "\n")


@pytest.fixture
def runs(tmp_path):
    write_run(tmp_path, "r-ss", "ss", SS)
    write_run(tmp_path, "r-vf", "vf", VF, faulted=[20])
    return tmp_path


def test_infrastructure_faults_are_not_outcomes(runs):
    frame = episodes_frame(runs)
    assert len(frame) == 16 and set(frame["outcome"]) == {"certified", "failed"}


def test_the_gee_risk_difference_and_robust_error_match_the_hand_calculation(runs):
    frame = episodes_frame(runs)
    fit = fit_gee(frame, ["ss", "vf"])
    contrast = risk_difference(fit, len(frame), "vf", "ss")
    # A policy-only model is saturated: each standardised risk is the observed rate (6/8 and 2/8).
    # With one ss and one vf episode per fixture cluster, the sandwich variance of the difference is
    # (1/n^2) sum_k (r_k,vf - r_k,ss)^2 with residuals r = y - rate; every cluster's term is (+-1/2)^2,
    # so Var = 8 (1/4) / 64 = 1/32.
    assert contrast["difference"] == pytest.approx(0.5, abs=1e-6)
    assert contrast["se"] == pytest.approx(math.sqrt(1 / 32), rel=1e-4)
    assert contrast["low"] == pytest.approx(0.5 - 1.959964 * math.sqrt(1 / 32), rel=1e-4)


def test_holm_adjusts_a_hand_worked_family():
    # sorted 0.01, 0.03, 0.04 -> 3 x 0.01 = 0.03, 2 x 0.03 = 0.06, max(0.06, 1 x 0.04) = 0.06
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])


def test_exact_mcnemar_matches_scipys_binomial_test(runs):
    test = exact_mcnemar(episodes_frame(runs), "vf", "ss")
    # discordant pairs: vf alone certified f1, f2, f5, f7; ss alone none
    assert (test["only_policy"], test["only_baseline"]) == (4, 0)
    assert test["p"] == pytest.approx(binomtest(0, 4, 0.5).pvalue) == pytest.approx(0.125)


def test_analyze_writes_tables_and_a_figure(runs, tmp_path):
    result = analyze(runs, tmp_path / "out")
    assert {row["policy"]: row["success"] for row in result["outcomes"]} == {"ss": 0.25, "vf": 0.75}
    (contrast,) = result["contrasts"]
    assert contrast["family"] == "against ss" and contrast["p_holm"] == pytest.approx(contrast["p"])
    assert {p.name for p in (tmp_path / "out").iterdir()} == {"analysis.md", "analysis.json", "analysis.png"}


def test_a_policy_that_always_certifies_is_reported_without_a_gee(tmp_path):
    write_run(tmp_path, "a", "ss", [0] * 6)
    write_run(tmp_path, "b", "vf", [1] * 6)
    result = analyze(tmp_path, tmp_path / "out")
    assert result["risks"] == [] and "GEE not estimable" in result["note"]
    assert result["contrasts"][0]["mcnemar_p"] == pytest.approx(binomtest(0, 6, 0.5).pvalue)
