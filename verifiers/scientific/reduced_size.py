"""A smaller task point for the trusted recomputation, where the task's own size is beyond physvec's budget.

physvec recomputes a task's values with the verifier library at the task's parameters (evidence.py).  Where
that costs too much (a statevector of 2^L amplitudes, an exact diagonalisation of a bosonic Hilbert space, or
a run that died at the task's size), both physvec's pipeline and the script's own run_ function run at a
smaller lattice instead: the largest one the budget allows, at most half the task's length, keeping its
parity (an even chain stays even: a Néel state, a singlet cover or a closed shell need it), with the particle
numbers scaled to keep the filling.  Everything else stays at the task's value.

Agreement there is not a value at the task point: a script can branch on the size.  So a reduced-size
comparison can fail a run (the script disagrees with physvec where physvec can check it) but leaves an
agreeing observable ``unknown``, with both sizes stated (evidence.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from physvec.verifiers.library import BackgroundPipeline

SIZE_PARAMETER = "L"
"""The lattice length every lattice pipeline of the library reads (a ladder's leg length, a chain's sites)."""
FILLING_PARAMETERS = ("N", "N_up", "N_down")
"""Particle numbers, scaled with the length so that the filling stays the task's."""
SITE_PARAMETERS = ("site",)
"""Parameters naming a site: no smaller lattice has the same site, so such a task is never reduced."""
MAX_AMPLITUDES = 2 ** 22
"""The largest state vector or Hilbert-space sector physvec recomputes exactly: 64 MiB of complex amplitudes,
whose product-formula steps or sparse diagonalisation take seconds to a minute on two cores."""


def _qubit_states(params: dict[str, Any]) -> int:
    return 2 ** int(params[SIZE_PARAMETER])


def _boson_states(params: dict[str, Any]) -> int:
    """Fock states of N bosons on L sites (the whole space; its momentum blocks are each about 1/L of it)."""
    sites, bosons = int(params[SIZE_PARAMETER]), int(params.get("N", params[SIZE_PARAMETER]))
    return math.comb(bosons + sites - 1, sites - 1)


EXACT_STATES: dict[str, Callable[[dict[str, Any]], int]] = {
    "trotter": _qubit_states,
    "vqe": _qubit_states,
    "exact_momentum": _boson_states,
}
"""Methods whose cost is known before they run, as the number of amplitudes they hold; the others (DMRG,
Monte Carlo) are reduced only after their run at the task's size died."""


@dataclass(frozen=True)
class ReducedPoint:
    """The parameters both runs get instead of the task's, and why."""

    overrides: dict[str, Any]
    reason: str

    def sizes(self, task: dict[str, Any]) -> str:
        """``L = 6 (the task's L = 24)``, for messages."""
        return ", ".join(f"{name} = {value!r} (the task's {task[name]!r})" for name, value in self.overrides.items())


def beyond_budget(pipeline: BackgroundPipeline, parameters: dict[str, Any]) -> str | None:
    """Why the task's own size is beyond the recomputation budget before anything runs, or None."""
    states = EXACT_STATES.get(pipeline.method)
    if states is None or SIZE_PARAMETER not in parameters:
        return None
    count = states({**pipeline.params, **parameters})
    if count <= MAX_AMPLITUDES:
        return None
    return f"{pipeline.method} at the task's size holds {count:.3g} amplitudes, beyond {MAX_AMPLITUDES:.3g}"


def reduced_point(pipeline: BackgroundPipeline, parameters: dict[str, Any], reason: str) -> ReducedPoint | str:
    """The largest smaller lattice within the budget (at most half the task's length, its parity kept), or
    why there is none."""
    length = parameters.get(SIZE_PARAMETER)
    if isinstance(length, bool) or not isinstance(length, int):
        return f"the task has no integer lattice length {SIZE_PARAMETER} to reduce"
    if named := [name for name in SITE_PARAMETERS if name in parameters]:
        return f"{', '.join(named)} names a site, which a smaller lattice does not have"
    states = EXACT_STATES.get(pipeline.method)
    for smaller in range(length // 2, 1, -1):
        if smaller % 2 != length % 2:
            continue
        overrides: dict[str, Any] = {SIZE_PARAMETER: smaller, **_scaled_fillings(parameters, smaller / length)}
        if states is None or states({**pipeline.params, **parameters, **overrides}) <= MAX_AMPLITUDES:
            return ReducedPoint(overrides, reason)
    return f"no lattice of {SIZE_PARAMETER} <= {length // 2} with the task's parity fits the budget"


def _scaled_fillings(parameters: dict[str, Any], ratio: float) -> dict[str, int]:
    return {name: max(1, round(value * ratio)) if value else 0 for name, value in parameters.items()
            if name in FILLING_PARAMETERS and isinstance(value, int) and not isinstance(value, bool)}
