"""Comparison of the results with the task's reference data, expected values sealed.

Per curve (a row of a 2-D observable, or the whole 1-D observable) the relative L2 error and the
maximum error are recorded for the reader, and a figure overlays reproduction and reference.  Both
live in sealed evidence or a file: they reveal the reference, so no prompt sees them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from physvec.verifiers.certificate import Obligation, Outcome
from physvec.taskfiles.keypaths import KeyPathError, lookup
from physvec.verifiers.protocol import Subject

OVERLAY_FILE = "reference_overlay.png"


def reference_obligations(subject: Subject, results: dict[str, Any], overlay: bool = True) -> list[Obligation]:
    """``results`` (main()'s results.json) agree with the task's reference data within its tolerances, one
    obligation per compared observable (none if the task has no reference); the main one gets the overlay
    (unless ``overlay`` is False)."""
    reference = subject.task.task.reference
    if reference is None or subject.task.reference_path is None:
        return []
    return [_compared(subject, results, observable, key, overlay=overlay and index == 0)
            for index, (observable, key) in enumerate(reference.compared())]


def _compared(subject: Subject, results: dict[str, Any], observable: str, key: str, overlay: bool) -> Obligation:
    reference = subject.task.task.reference
    name, category = f"reference:{observable}", "reference"
    try:
        observed = lookup(results, observable)
        reference_file = json.loads(subject.task.reference_path.read_text())
        expected = lookup(reference_file, key)
        observed_array = np.asarray(observed, dtype=float)
        expected_array = np.asarray(expected, dtype=float)
    except (KeyPathError, OSError, TypeError, ValueError, json.JSONDecodeError) as error:
        return Obligation(name=name, category=category, outcome=Outcome.FAILED,
                          message=f"could not read the observable: {error}")
    tolerances = {"rtol": reference.rtol, "atol": reference.atol}
    if observed_array.shape != expected_array.shape:
        return Obligation(name=name, category=category, outcome=Outcome.FAILED,
                          message=f"shape {observed_array.shape} differs from the reference's",
                          evidence={"observed_shape": list(observed_array.shape)},
                          sealed={"expected_shape": list(expected_array.shape)})
    close = np.isclose(observed_array, expected_array, **tolerances)
    agrees = bool(np.all(close))
    axis = overlay_axis(reference_file, reference.x, expected_array)
    figure = _overlay(observed_array, expected_array, subject.workdir / OVERLAY_FILE, observable, axis) \
        if overlay else None
    return Obligation(
        name=name, category=category, outcome=Outcome.CERTIFIED if agrees else Outcome.FAILED,
        message=("agrees with the reference" if agrees
                 else f"{int(np.sum(~close))} of {close.size} values outside the tolerance"),
        evidence={"observed": observed, **tolerances},
        sealed={"expected": expected, "source": reference.source, "curves": curve_errors(observed_array, expected_array),
                "overlay": str(figure) if figure else None},
    )


def curve_errors(observed: np.ndarray, expected: np.ndarray) -> list[dict[str, float]]:
    """Relative L2 and maximum absolute error of each curve (rows of a 2-D array, else the whole)."""
    rows = list(zip(np.atleast_2d(observed), np.atleast_2d(expected))) if observed.ndim <= 2 else \
        [(observed.ravel(), expected.ravel())]
    errors = []
    for got, want in rows:
        norm = float(np.linalg.norm(want))
        difference = float(np.linalg.norm(got - want))
        errors.append({"relative_l2": difference / norm if norm else difference,
                       "max_error": float(np.max(np.abs(got - want))) if got.size else 0.0})
    return errors


def overlay_axis(reference_file: Any, x: str | None, expected: np.ndarray) -> tuple[np.ndarray | None, str]:
    """The overlay's x values and label: the reference's swept parameter when the task names one that has a
    value per point of a curve, else the index (a reader should not guess what "index" 0, 1, 2 meant)."""
    if x is None or expected.ndim == 0:
        return None, "index"
    try:
        values = np.asarray(lookup(reference_file, x), dtype=float)
    except (KeyPathError, TypeError, ValueError):
        return None, "index"
    return (values, x.rsplit(".", 1)[-1]) if values.shape == expected.shape[-1:] else (None, "index")


def _overlay(observed: np.ndarray, expected: np.ndarray, path: Path, label: str,
             axis_values: tuple[np.ndarray | None, str]) -> Path | None:
    """Reproduction (markers) over reference (lines), one colour per curve, against the swept parameter's
    values when known; None for scalars."""
    if observed.ndim == 0 or observed.ndim > 2:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x, x_label = axis_values
    figure, axis = plt.subplots(figsize=(5, 3.5))
    for index, (got, want) in enumerate(zip(np.atleast_2d(observed), np.atleast_2d(expected))):
        points = x if x is not None else np.arange(want.size)
        line, = axis.plot(points, want, "-", label=f"reference {index}" if observed.ndim == 2 else "reference")
        axis.plot(points, got, "o", color=line.get_color(), label=f"reproduction {index}" if observed.ndim == 2 else
                  "reproduction")
    axis.set_xlabel(x_label)
    axis.set_ylabel(label)
    axis.legend(fontsize=7)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    plt.close(figure)
    return path


def suspect_reference(obligations: list[Obligation]) -> bool:
    """Only the reference disagrees while every independent check ran and passed: at least one assertion
    certified, none failed, and nothing but reference comparisons failed.  Then the reference data, not the
    script, is the first suspect, and no model is sent to repair a script the physics checks accept."""
    failed = [o for o in obligations if o.outcome is Outcome.FAILED]
    independent = [o for o in obligations if o.name.startswith("assertion:")]
    return bool(failed) and all(o.category == "reference" or _only_the_reference_disagrees(o) for o in failed) \
        and bool(independent) and all(o.outcome is Outcome.CERTIFIED for o in independent)


def _only_the_reference_disagrees(obligation: Obligation) -> bool:
    """An evidence obligation (evidence.py) that failed on the sealed reference alone, physvec's own
    recomputation agreeing or absent."""
    kinds = obligation.evidence.get("kinds", {}) if obligation.category == "evidence" else {}
    return [kind for kind, outcome in kinds.items() if outcome == Outcome.FAILED.value] == ["sealed_reference"]
