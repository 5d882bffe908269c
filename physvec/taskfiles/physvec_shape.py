"""Tasks in the shape of the PhysVEC paper's benchmark, mapped onto our Task.

That shape has no backend field; a file may add one (``backend``), otherwise it is inferred from
the request by the method it names, and the mapping fails with a clear problem if none is named.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from pydantic import Field, model_validator

from physvec.taskfiles.base import StrictModel
from physvec.taskfiles.task import Backend, ConvergenceSettings, PaperSource, Target, Task

PHYSVEC_KEYS = frozenset(
    {"pdf_path", "pdf_name", "subplot_name", "User_requests", "rubrics_name", "LimitingCases", "ConvergenceCases"}
)

_BACKEND_WORDS: tuple[tuple[Backend, str], ...] = (
    ("tenpy", r"\b(dmrg|tebd|mps|matrix.product|tenpy)\b"),
    ("netket", r"\b(rbm|neural.network quantum|netket|variational monte carlo)\b"),
    ("qiskit", r"\b(qiskit|circuit|qubit|trotter|vqe|phase estimation)\b"),
    ("pyscf", r"\b(dft|pyscf|b3lyp|hartree.fock|basis set|molecule)\b"),
)


def infer_backend(text: str) -> Backend | None:
    """The backend whose method the text names first in our fixed order, or None."""
    lowered = text.lower()
    for backend, pattern in _BACKEND_WORDS:
        if re.search(pattern, lowered):
            return backend
    return None


def _as_lines(value: str | list[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


class PhysvecPaperTask(StrictModel):
    """The PhysVEC paper's task keys (plus optional ``id`` and ``backend`` of ours)."""

    pdf_path: str = ""
    pdf_name: str = Field(min_length=1)
    subplot_name: str = Field(min_length=1)
    User_requests: str | list[str]
    rubrics_name: str = Field(min_length=1)
    LimitingCases: str | list[str] = Field(default_factory=list)
    ConvergenceCases: str | list[str] = Field(default_factory=list)
    id: str | None = None
    backend: Backend | None = None

    @model_validator(mode="after")
    def _backend_known(self) -> PhysvecPaperTask:
        if self.backend is None and infer_backend(" ".join(_as_lines(self.User_requests))) is None:
            raise ValueError(
                "backend: the PhysVEC task shape names no backend and the request names no method; "
                "add \"backend\": one of qiskit, netket, tenpy, pyscf, itensors"
            )
        return self

    def to_task(self, default_id: str) -> Task:
        """Our Task for this file; ``default_id`` (the file stem) is used when no id is given."""
        request = "\n".join(_as_lines(self.User_requests))
        paper = PurePosixPath(self.pdf_path) / self.pdf_name
        if not paper.suffix:
            paper = paper.with_suffix(".pdf")
        return Task(
            id=self.id or default_id,
            title=f"{self.pdf_name}, {self.subplot_name}",
            paper=PaperSource(path=str(paper)),
            target=Target(figure=self.subplot_name),
            request=request,
            backend=self.backend or infer_backend(request),  # type: ignore[arg-type]
            rubric=self.rubrics_name,
            limiting_cases=_as_lines(self.LimitingCases),
            convergence=ConvergenceSettings(notes=_as_lines(self.ConvergenceCases)),
        )
