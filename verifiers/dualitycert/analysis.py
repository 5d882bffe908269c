"""Statistics of repair runs: which policy certifies more fixtures, and by how much.

Success of an episode (final certificate) is modelled with a binomial GEE (logit link, policy
indicators, clusters = fixtures, exchangeable working correlation with an independence fallback when
the exchangeable fit fails, robust sandwich covariance).  For each policy the standardised marginal
risk is the model's success probability averaged over every observed row with the policy set to it;
risk differences between policies get delta-method 95% intervals, and each family of contrasts is
Holm-adjusted.  Paired contrasts (the same fixture and trial under two policies) also get an exact
McNemar test.  Everything is regenerated from the episode records.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import statsmodels.api as sm
from scipy.special import expit
from scipy.stats import norm
from statsmodels.genmod.cov_struct import Exchangeable, Independence
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

Z_95 = 1.959963984540054


def episodes_frame(runs_dir: Path, run_ids: list[str] | None = None) -> pd.DataFrame:
    """One row per finished episode (infrastructure faults left out) of the chosen runs."""
    rows = []
    for folder in sorted(runs_dir.iterdir()) if runs_dir.is_dir() else []:
        if run_ids and folder.name not in run_ids or not (folder / "episodes.jsonl").is_file():
            continue
        for line in (folder / "episodes.jsonl").read_text().splitlines():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    frame = pd.DataFrame(rows, columns=["run_id", "policy", "fixture", "trial", "outcome", "calls",
                                        "final_verdict", "tokens", "seconds"])
    frame = frame[frame["outcome"] != "infra_fault"]
    frame = frame.drop_duplicates(["policy", "fixture", "trial"], keep="last")
    frame["success"] = (frame["outcome"] == "certified").astype(int)
    return frame.reset_index(drop=True)


@dataclass(frozen=True)
class Fit:
    """A GEE fit: coefficients, robust covariance, the design's policy order and the structure used."""

    params: np.ndarray
    covariance: np.ndarray
    policies: list[str]
    structure: str


def _design(frame: pd.DataFrame, policies: list[str]) -> np.ndarray:
    """Intercept (the first policy) and one indicator per further policy."""
    columns = [np.ones(len(frame))] + [(frame["policy"] == p).to_numpy(float) for p in policies[1:]]
    return np.column_stack(columns)


def fit_gee(frame: pd.DataFrame, policies: list[str]) -> Fit:
    """Binomial GEE clustered on fixtures; exchangeable, or independence when that fit fails."""
    exog, groups = _design(frame, policies), frame["fixture"].to_numpy()
    for name, structure in (("exchangeable", Exchangeable()), ("independence", Independence())):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                result = sm.GEE(frame["success"].to_numpy(float), exog, groups=groups,
                                family=sm.families.Binomial(), cov_struct=structure).fit(cov_type="robust")
            if np.all(np.isfinite(result.params)) and np.all(np.isfinite(result.cov_params())):
                return Fit(np.asarray(result.params), np.asarray(result.cov_params()), policies, name)
        except Exception:  # a failed exchangeable fit falls back; the independence fit must work
            if name == "independence":
                raise
    raise RuntimeError("unreachable")


def _with_policy(fit: Fit, rows: int, policy: str) -> np.ndarray:
    design = np.zeros((rows, len(fit.policies)))
    design[:, 0] = 1.0
    if policy != fit.policies[0]:
        design[:, fit.policies.index(policy)] = 1.0
    return design


def standardised_risk(fit: Fit, rows: int, policy: str) -> tuple[float, np.ndarray]:
    """Mean predicted success with every row set to ``policy``, and its gradient in the coefficients."""
    design = _with_policy(fit, rows, policy)
    probability = expit(design @ fit.params)
    gradient = (probability * (1 - probability)) @ design / rows
    return float(probability.mean()), gradient


def risk_difference(fit: Fit, rows: int, policy: str, baseline: str) -> dict[str, float | str]:
    """R(policy) - R(baseline) with its delta-method standard error, 95% interval and p-value."""
    risk, gradient = standardised_risk(fit, rows, policy)
    base, base_gradient = standardised_risk(fit, rows, baseline)
    difference, direction = risk - base, gradient - base_gradient
    error = float(np.sqrt(direction @ fit.covariance @ direction))
    z = difference / error if error > 0 else (0.0 if difference == 0 else np.inf)
    return {"contrast": f"{policy} - {baseline}", "difference": difference, "se": error,
            "low": difference - Z_95 * error, "high": difference + Z_95 * error,
            "p": float(2 * norm.sf(abs(z)))}


def holm(p_values: list[float]) -> list[float]:
    """Holm step-down adjusted p-values."""
    return list(multipletests(p_values, method="holm")[1]) if p_values else []


def exact_mcnemar(frame: pd.DataFrame, policy: str, baseline: str) -> dict[str, float | int | str]:
    """Exact McNemar test on the (fixture, trial) pairs both policies ran."""
    pivot = frame.pivot_table(index=["fixture", "trial"], columns="policy", values="success").dropna()
    if policy not in pivot or baseline not in pivot:
        return {"contrast": f"{policy} vs {baseline}", "pairs": 0, "only_policy": 0, "only_baseline": 0, "p": 1.0}
    first, second = pivot[policy].astype(int), pivot[baseline].astype(int)
    table = [[int(((first == 1) & (second == 1)).sum()), int(((first == 1) & (second == 0)).sum())],
             [int(((first == 0) & (second == 1)).sum()), int(((first == 0) & (second == 0)).sum())]]
    result = mcnemar(table, exact=True)
    return {"contrast": f"{policy} vs {baseline}", "pairs": len(pivot), "only_policy": table[0][1],
            "only_baseline": table[1][0], "p": float(result.pvalue)}


FAMILIES = {
    "against ss": [(policy, "ss") for policy in ("gr", "vf", "vf_masked", "best_of_n", "portfolio")],
    "feedback content": [("vf", "gr"), ("vf", "vf_masked")],
}
"""Contrast families, each Holm-adjusted on its own; contrasts whose policies did not run are left out."""


def outcome_table(frame: pd.DataFrame) -> list[dict[str, object]]:
    rows = []
    for policy, group in frame.groupby("policy"):
        counts = group["outcome"].value_counts()
        rows.append({"policy": policy, "episodes": len(group), "fixtures": group["fixture"].nunique(),
                     **{o: int(counts.get(o, 0)) for o in ("certified", "failed", "abstained", "invalid")},
                     "success": round(float(group["success"].mean()), 4),
                     "mean_calls": round(float(group["calls"].mean()), 2),
                     "mean_tokens": round(float(group["tokens"].mean()), 1)})
    return rows


def contrasts(frame: pd.DataFrame, fit: Fit | None) -> list[dict[str, object]]:
    """Every contrast of every family: GEE risk difference (when fitted), Holm p, exact McNemar."""
    ran = set(frame["policy"])
    rows = []
    for family, pairs in FAMILIES.items():
        chosen = [(a, b) for a, b in pairs if a in ran and b in ran]
        found = [risk_difference(fit, len(frame), a, b) if fit else {"contrast": f"{a} - {b}"} for a, b in chosen]
        adjusted = holm([row["p"] for row in found]) if fit else [None] * len(found)
        for (a, b), row, p_holm in zip(chosen, found, adjusted, strict=True):
            test = exact_mcnemar(frame, a, b)
            rows.append({"family": family, **row, "p_holm": p_holm, "mcnemar_pairs": test["pairs"],
                         "mcnemar_discordant": f"{test['only_policy']}/{test['only_baseline']}",
                         "mcnemar_p": test["p"]})
    return rows


def _markdown(rows: list[dict[str, object]]) -> list[str]:
    if not rows:
        return ["(none)"]
    columns = list(rows[0])
    def cell(value: object) -> str:
        return f"{value:.4g}" if isinstance(value, float) else str(value)
    return ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns),
            *("| " + " | ".join(cell(row[c]) for c in columns) + " |" for row in rows)]


def _figure(risks: list[dict[str, object]], frame: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 3.5))
    if risks:
        names = [str(r["policy"]) for r in risks]
        values = np.array([float(r["risk"]) for r in risks])
        low, high = np.array([float(r["low"]) for r in risks]), np.array([float(r["high"]) for r in risks])
        axes.bar(names, values, yerr=[values - low, high - values], capsize=4, color="tab:blue")
        axes.set_ylabel("standardised P(final certificate)")
    else:
        table = frame.groupby("policy")["success"].mean()
        axes.bar(list(table.index), list(table.values), color="tab:gray")
        axes.set_ylabel("P(final certificate), raw")
    axes.set_ylim(0, 1)
    axes.set_title("DualityCert repair: success by policy (95% CI)")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def analyze(runs_dir: Path, out: Path, run_ids: list[str] | None = None) -> dict[str, object]:
    """analysis.md, analysis.json and analysis.png from the episode records of ``runs_dir``."""
    frame = episodes_frame(runs_dir, run_ids)
    if frame.empty:
        raise ValueError(f"{runs_dir} holds no finished episodes")
    policies = sorted(set(frame["policy"]), key=lambda p: (p != "ss", p))
    fit, note = None, ""
    if len(policies) > 1:
        try:
            fit = fit_gee(frame, policies)
        except Exception as error:  # reported, not hidden: e.g. a policy that certified every fixture
            note = f"GEE not estimable ({type(error).__name__}: {error}); McNemar and raw rates only"
    risks = []
    if fit is not None:
        for policy in policies:
            risk, gradient = standardised_risk(fit, len(frame), policy)
            error = float(np.sqrt(gradient @ fit.covariance @ gradient))
            risks.append({"policy": policy, "risk": risk, "se": error,
                          "low": max(0.0, risk - Z_95 * error), "high": min(1.0, risk + Z_95 * error)})
    result = {"episodes": len(frame), "fixtures": int(frame["fixture"].nunique()),
              "structure": fit.structure if fit else None, "note": note,
              "outcomes": outcome_table(frame), "risks": risks, "contrasts": contrasts(frame, fit)}
    out.mkdir(parents=True, exist_ok=True)
    lines = ["# DualityCert repair analysis", "",
             f"{result['episodes']} episodes on {result['fixtures']} fixtures; GEE working correlation: "
             f"{result['structure']}. {note}", "", "## Outcomes", *_markdown(result["outcomes"]), "",
             "## Standardised success (delta-method 95% CI)", *_markdown(risks), "",
             "## Contrasts (risk differences, Holm within family, exact McNemar)", *_markdown(result["contrasts"])]
    (out / "analysis.md").write_text("\n".join(lines) + "\n")
    (out / "analysis.json").write_text(json.dumps(result, indent=1, default=float) + "\n")
    _figure(risks, frame, out / "analysis.png")
    return result
