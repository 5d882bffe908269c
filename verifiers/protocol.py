"""The one protocol every verifier node implements, and the subject it verifies."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from physvec.taskfiles.loading import LoadedTask
from physvec.verifiers.certificate import Certificate
from physvec.verifiers.sandbox import SandboxLimits, SandboxPool


@dataclass(frozen=True)
class Subject:
    """A script version under verification, with where and how it may run.

    ``executed_dir`` is the sandbox folder of the script's plain execution, once the programming
    verifier has run it (results.json and the figure are there).
    """

    script: Path
    task: LoadedTask
    pool: SandboxPool
    limits: SandboxLimits
    workdir: Path
    executed_dir: Path | None = None


class Verifier(Protocol):
    """Checks a subject and returns a certificate; it never asks a model for a verdict."""

    name: str

    def verify(self, subject: Subject) -> Certificate: ...
