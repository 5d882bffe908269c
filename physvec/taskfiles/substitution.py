"""Backend substitutions: running a task on another package than the one it demands, never silently.

A published task may demand a package this machine lacks (ITensors needs Julia; ORCA is not
installed).  ``reproduce --substitute itensors=tenpy`` runs it on TeNPy: the request the Author reads
says so where it named the original package, the task as run records the substitution (run.json,
report), and rubric leaves that demand the original package are not applicable, never certified.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import get_args

from physvec.taskfiles.loading import LoadedTask
from physvec.taskfiles.task import Backend, Task

PACKAGE_WORDS: dict[str, str] = {
    "itensors": r"ITensors?(?:\s+and\s+ITensorMPS)?|ITensorMPS|Julia",
    "tenpy": r"TeNPy",
    "netket": r"NetKet",
    "qiskit": r"Qiskit",
    "pyscf": r"PySCF",
    "orca": r"ORCA",
}
"""How requests and rubric leaves name each backend's package."""
PACKAGE_NAMES = {"itensors": "ITensors", "tenpy": "TeNPy", "netket": "NetKet", "qiskit": "Qiskit",
                 "pyscf": "PySCF", "orca": "ORCA"}
RUNNABLE_BACKENDS = frozenset({"qiskit", "netket", "tenpy", "pyscf", "itensors"})
"""Backends with a script contract here; ORCA has none (its input files are not Python)."""


class SubstitutionError(ValueError):
    """A substitution that cannot apply; the message says why."""


def parse_substitutions(pairs: list[str]) -> dict[str, str]:
    """``["itensors=tenpy"]`` (or ``["itensors=tenpy,orca=pyscf"]``: pairs may be given comma-separated) as
    ``{"itensors": "tenpy"}``; SubstitutionError names a malformed pair."""
    known = get_args(Backend)
    substitutions: dict[str, str] = {}
    for pair in (part for argument in pairs for part in argument.split(",") if part.strip()):
        original, separator, used = (part.strip().lower() for part in pair.partition("="))
        if not separator or original not in known or used not in known:
            raise SubstitutionError(f"--substitute {pair!r}: write ORIGINAL=USED with backends from {', '.join(known)}")
        if used not in RUNNABLE_BACKENDS:
            raise SubstitutionError(f"--substitute {pair!r}: {used} cannot run here")
        if original == used:
            raise SubstitutionError(f"--substitute {pair!r}: a backend cannot substitute itself")
        substitutions[original] = used
    return substitutions


def demands(text: str, backend: str) -> bool:
    """Whether the text names the backend's package."""
    return re.search(rf"\b(?:{PACKAGE_WORDS[backend]})\b", text, re.IGNORECASE) is not None


def rewritten_request(request: str, original: str, used: str) -> str:
    """The request with the original package replaced by the used one, and a sentence saying so."""
    named = PACKAGE_NAMES[used]
    body = re.sub(rf"\b(?:{PACKAGE_WORDS[original]})\b(?:\s+packages?)?", f"{named} (substituted for "
                  f"{PACKAGE_NAMES[original]})", request, flags=re.IGNORECASE)
    return (f"{body}\n\nSubstitution by the user: this run uses {named} where the task demands "
            f"{PACKAGE_NAMES[original]}, which this machine lacks.")


def substitution_reason(substitutions: dict[str, str], text: str) -> str | None:
    """Why a rubric leaf is not applicable under the substitutions: it demands a substituted package."""
    for original, used in substitutions.items():
        if demands(text, original):
            return (f"the leaf demands {PACKAGE_NAMES[original]}; this run substitutes {PACKAGE_NAMES[used]} "
                    f"(--substitute {original}={used})")
    return None


def substitutions_for(task: Task, substitutions: dict[str, str]) -> dict[str, str]:
    """The substitutions that concern the task (it uses or names the original backend): a campaign's
    ``--substitute itensors=tenpy,orca=pyscf`` switches each task only where it demands a missing package."""
    return {original: used for original, used in substitutions.items()
            if task.backend == original or demands(task.request, original)}


def substituted(task: Task, substitutions: dict[str, str]) -> Task:
    """The task with its backend substituted and its request rewritten; SubstitutionError when the task neither
    has nor demands a substituted backend (a substitution that changes nothing is a mistake)."""
    if not substitutions:
        return task
    request, backend = task.request, task.backend
    for original, used in substitutions.items():
        if backend != original and not demands(request, original):
            raise SubstitutionError(f"--substitute {original}={used}: the task neither uses nor names {original}")
        if demands(request, original):
            request = rewritten_request(request, original, used)
        if backend == original:
            backend = used
    return task.model_copy(update={"request": request, "backend": backend,
                                   "substitutions": {**task.substitutions, **substitutions}})


def apply_substitutions(loaded: LoadedTask, substitutions: dict[str, str]) -> LoadedTask:
    """The loaded task, substituted (see ``substituted``)."""
    return replace(loaded, task=substituted(loaded.task, substitutions)) if substitutions else loaded
