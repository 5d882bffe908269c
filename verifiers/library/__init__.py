"""The verifier library: known-good background element functions, one module per backend.

A unit test runs one of the script's element functions in place of the library function of the
same role inside a background pipeline of the backend, so the function under test receives inputs
produced by code we trust.  A backend has one pipeline per model family (a Heisenberg chain, a trapped
Hubbard chain, ...); a script is tested in the one whose parameters share the most names with its
PARAMS.  Library functions take their inputs by parameter name from the pipeline's namespace (its
small, fast parameters plus every earlier step's output).
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

RESULT_ROLES = ("effector", "observable")
"""The roles whose outputs a run_ function returns as named results."""
BACKEND_MODULES = {"qiskit": "qiskit_background", "netket": "netket_background",
                   "tenpy": "tenpy_background", "pyscf": "pyscf_background"}
BACKEND_EXTENSIONS = {"tenpy": ("tenpy_bosons",)}
"""Further modules of a backend's pipelines.  They import shared steps (TeNPy's DMRG effector) from the backend's
module, so that module cannot import them back to list their pipelines."""


@dataclass(frozen=True)
class BackgroundStep:
    """One role of the pipeline: the trusted function and the namespace name of its output."""

    role: str
    function: Callable[..., Any]
    output: str


def call_with_namespace(function: Callable[..., Any], namespace: dict[str, Any]) -> Any:
    """Call a library function with its arguments taken by name from ``namespace``."""
    return function(**{name: namespace[name] for name in inspect.signature(function).parameters})


@dataclass(frozen=True)
class BackgroundPipeline:
    """A complete, known-good pipeline of one model family on one backend, at a size that runs in seconds."""

    backend: str
    name: str
    model: str
    """the physical model, as a task's spec names it (heisenberg, trapped_hubbard, ...)"""
    lattice: str
    """chain, ring, molecule, ..."""
    method: str
    """dmrg, trotter, vmc_rbm, rks, ..."""
    params: dict[str, Any]
    steps: tuple[BackgroundStep, ...]

    def roles(self) -> list[str]:
        return [step.role for step in self.steps]

    def results(self, namespace: dict[str, Any]) -> dict[str, Any]:
        """What a run_ function of this pipeline would return: its effector and observable outputs."""
        return {step.output: namespace[step.output] for step in self.steps
                if step.role in RESULT_ROLES and step.output in namespace}

    def run(self, **overrides: Any) -> dict[str, Any]:
        """Every step in order with the pipeline's parameters updated by ``overrides``; the namespace."""
        namespace = {**self.params, **overrides}
        for step in self.steps:
            namespace[step.output] = call_with_namespace(step.function, namespace)
        return namespace


def pipelines_for(backend: str) -> tuple[BackgroundPipeline, ...]:
    """The background pipelines of a backend; none for a backend the library does not cover."""
    module = BACKEND_MODULES.get(backend)
    modules = [] if module is None else [module, *BACKEND_EXTENSIONS.get(backend, ())]
    return tuple(pipeline for name in modules
                 for pipeline in importlib.import_module(f"physvec.verifiers.library.{name}").PIPELINES)


def pipeline_named(backend: str, name: str) -> BackgroundPipeline | None:
    """The backend's pipeline called ``name``, or None."""
    return next((p for p in pipelines_for(backend) if p.name == name), None)


def pipeline_for_spec(backend: str, model: str, lattice: str, method: str) -> BackgroundPipeline | None:
    """The pipeline of exactly this model, lattice and method on the backend, or None."""
    return next((p for p in pipelines_for(backend) if (p.model, p.lattice, p.method) == (model, lattice, method)),
                None)


def best_pipeline(backend: str, script_params: dict[str, Any], preferred: BackgroundPipeline | None = None
                  ) -> BackgroundPipeline | None:
    """The pipeline whose parameters share the most names with the script's PARAMS, counting a pipeline that
    shares only one as sharing none (U, t or L alone name an interaction, a hopping or a length in many models:
    a Hubbard script is no XXZ chain for sharing U); on a tie ``preferred`` where it is among the best (the task's
    own pipeline: a square torus's PARAMS are a ring's), else the first."""
    pipelines = pipelines_for(backend)
    if not pipelines:
        return None

    def shared(pipeline: BackgroundPipeline) -> int:
        count = len(set(pipeline.params) & set(script_params))
        return count if count > 1 else 0
    best = max(pipelines, key=shared)
    return preferred if preferred is not None and shared(preferred) == shared(best) else best
