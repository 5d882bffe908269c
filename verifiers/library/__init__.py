"""The verifier library: known-good background element functions, one module per backend.

A unit test runs one of the script's element functions in place of the library function of the
same role inside the backend's background pipeline, so the function under test receives inputs
produced by code we trust.  Library functions take their inputs by parameter name from the
pipeline's namespace (its small, fast parameters plus every earlier step's output).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

BACKEND_MODULES = {"qiskit": "qiskit_background", "netket": "netket_background",
                   "tenpy": "tenpy_background", "pyscf": "pyscf_background"}


@dataclass(frozen=True)
class BackgroundStep:
    """One role of the pipeline: the trusted function and the namespace name of its output."""

    role: str
    function: Callable[..., Any]
    output: str


@dataclass(frozen=True)
class BackgroundPipeline:
    """A complete, known-good pipeline of one backend, at a size that runs in seconds."""

    backend: str
    params: dict[str, Any]
    steps: tuple[BackgroundStep, ...]

    def roles(self) -> list[str]:
        return [step.role for step in self.steps]


def pipeline_for(backend: str) -> BackgroundPipeline | None:
    """The background pipeline of a backend, or None when the library has none for it."""
    module = BACKEND_MODULES.get(backend)
    if module is None:
        return None
    return importlib.import_module(f"verifiers.library.{module}").PIPELINE
