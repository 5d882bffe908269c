"""Comparison of the results with the task's reference data, expected values sealed."""

from __future__ import annotations

import json

import numpy as np

from verifiers.certificate import Obligation, Outcome
from verifiers.execution import RESULTS_FILE
from verifiers.keypaths import KeyPathError, lookup
from verifiers.protocol import Subject


def reference_obligation(subject: Subject) -> Obligation | None:
    """Results agree with the task's reference data within its tolerances (None if it has none)."""
    reference = subject.task.task.reference
    if reference is None or subject.task.reference_path is None:
        return None
    name, category = f"reference:{reference.observable}", "reference"
    try:
        observed = lookup(json.loads((subject.executed_dir / RESULTS_FILE).read_text()), reference.observable)
        expected = lookup(json.loads(subject.task.reference_path.read_text()), reference.key or reference.observable)
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
    deviation = float(np.max(np.abs(observed_array - expected_array))) if observed_array.size else 0.0
    agrees = bool(np.all(close))
    return Obligation(
        name=name, category=category, outcome=Outcome.CERTIFIED if agrees else Outcome.FAILED,
        message=("agrees with the reference" if agrees
                 else f"{int(np.sum(~close))} of {close.size} values outside the tolerance"),
        evidence={"observed": observed, **tolerances, "source": reference.source},
        sealed={"expected": expected, "max_abs_deviation": deviation},
    )
