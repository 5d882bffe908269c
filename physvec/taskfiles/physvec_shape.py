"""Tasks in the shape of the published PhysVEC benchmark (QMP-Bench upstream), mapped onto our Task.

The files are read as published, never edited: keys ``pdf_path``, ``pdf_name`` (often dotted, such as
``PhysRevLett.95.240404``, with no extension), ``subplot_name``, ``User_requests``, ``rubrics_name`` and
optionally ``LimitingCases``, ``ConvergenceCases`` (prose strings, or lists of ``{content, truth}`` and
``{content, parameter, criteria}`` objects) and ``ScientificResults`` (``{content, truth}``).  Upstream
keeps tasks in ``<topic>/tasks/``, papers as ``.tex`` in ``<topic>/<pdf_path>/`` and rubrics in
``Rubrics/<topic>/``; the shared copy keeps rubrics in ``rubrics/`` beside ``tasks/``.  Both layouts are
searched in a fixed order.  The backend is the one the request demands (a package it names), else the
package upstream runs the task's topic in (every dft_qc task in ORCA, every dmrg task in ITensors), else the
one its method implies; a file may add ``backend`` (and ``id``) of ours.  A backend that cannot run here is
replaced only where the user asks (``--substitute``), never by inference.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from pydantic import Field, field_validator, model_validator

from physvec.taskfiles.base import StrictModel
from physvec.taskfiles.task import (
    PAPER_SUFFIXES, Backend, ConvergenceCase, ConvergenceSettings, PaperSource, Target, Task,
)

PHYSVEC_KEYS = frozenset({"pdf_path", "pdf_name", "subplot_name", "User_requests", "rubrics_name", "LimitingCases",
                          "ConvergenceCases", "ScientificResults"})
INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")
"""Zero-width and soft-hyphen characters found in upstream names; they are dropped when read."""

_DEMANDED_PACKAGES: tuple[tuple[Backend, str], ...] = (
    ("itensors", r"\bitensors?\b|\bitensormps\b|\bjulia\b"),
    ("tenpy", r"\btenpy\b"),
    ("netket", r"\bnetket\b"),
    ("qiskit", r"\bqiskit\b"),
    ("pyscf", r"\bpyscf\b"),
    ("orca", r"\borca\b"),
)
"""A package the request names: it is demanded, whatever method words come with it."""
_METHOD_WORDS: tuple[tuple[Backend, str], ...] = (
    ("orca", r"\bzora\b|\bxas\b|\bxes\b|\btd-?dft\b|\bk-edge\b|\bpre-edge\b|\bvtc\b|\bherfd\b|spin[-\u2013 ]orbit|"
             r"%\w+ block|geometry optimi[sz]ation|excited[- ]state|\bspectr(?:um|a|al)\b"),
    ("tenpy", r"\b(dmrg|tebd|mps|matrix.product)\b"),
    ("netket", r"\b(rbm|neural.network quantum|variational monte carlo)\b"),
    ("qiskit", r"\b(circuit|qubit|trotter|vqe|phase estimation)\b"),
    ("pyscf", r"\b(dft|b3lyp|hartree.fock|basis set|molecule|homo|lumo|molecular orbital)\b"),
)
"""Method words, in a fixed order: ORCA idioms (relativistic ZORA, X-ray spectra, TDDFT, geometry
optimisation, excited states) before the generic DFT words that PySCF covers."""


TOPIC_PACKAGES: dict[str, Backend] = {"dmrg": "itensors", "dft_qc": "orca", "qcmb": "qiskit", "nnwf": "netket"}
"""The package upstream runs each topic's tasks in (Paper_dataset/<topic>/): a request naming no package still
demands it (dft_qc 4_1 asks for HOMO and LUMO orbitals, words PySCF also covers, and upstream runs it in ORCA)."""


def _first_match(text: str, table: tuple[tuple[Backend, str], ...]) -> Backend | None:
    lowered = text.lower()
    return next((backend for backend, pattern in table if re.search(pattern, lowered)), None)


def infer_backend(text: str, topic: str | None = None) -> Backend | None:
    """The backend the text demands by name, else the package of the upstream ``topic``, else the first whose
    method words the text uses, else None."""
    return _first_match(text, _DEMANDED_PACKAGES) or TOPIC_PACKAGES.get(topic or "") \
        or _first_match(text, _METHOD_WORDS)


def topic_of(path: Path) -> str:
    """The upstream topic of a task file: its folder's parent in a checkout (``<topic>/tasks/``), else its
    folder (a copy's ``tasks/<topic>/``)."""
    return path.parent.parent.name if path.parent.name == "tasks" else path.parent.name


def clean_text(text: str) -> str:
    """Upstream text with CRLF line ends and invisible characters normalised away."""
    return INVISIBLE.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


class ProseCheck(StrictModel):
    """An upstream check in words: what to compute (``content``) and what is true (``truth``)."""

    content: str = Field(min_length=1)
    truth: str = Field(min_length=1)


class ProseConvergence(StrictModel):
    """An upstream convergence check in words: what to watch, which parameter to raise, and when it is stable."""

    content: str = Field(min_length=1)
    parameter: str = Field(min_length=1)
    criteria: str = Field(min_length=1)


def _as_lines(value: str | list[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


class PhysvecPaperTask(StrictModel):
    """The published benchmark's task keys (plus optional ``id`` and ``backend`` of ours)."""

    pdf_path: str = ""
    pdf_name: str = Field(min_length=1)
    subplot_name: str = Field(min_length=1)
    User_requests: str | list[str]
    rubrics_name: str = Field(min_length=1)
    LimitingCases: str | list[str] | list[ProseCheck] = Field(default_factory=list)
    ConvergenceCases: str | list[str] | list[ProseConvergence] = Field(default_factory=list)
    ScientificResults: list[ProseCheck] = Field(default_factory=list)
    id: str | None = None
    backend: Backend | None = None

    @field_validator("pdf_path", "pdf_name", "subplot_name", "rubrics_name")
    @classmethod
    def _visible(cls, value: str) -> str:
        return clean_text(value).strip()

    @model_validator(mode="after")
    def _backend_known(self) -> PhysvecPaperTask:
        if self.backend is None and infer_backend(self.request) is None:
            raise ValueError(
                "backend: the PhysVEC task shape names no backend and the request names no package or method; "
                "add \"backend\": one of qiskit, netket, tenpy, pyscf, itensors, orca"
            )
        return self

    @property
    def request(self) -> str:
        return clean_text("\n".join(_as_lines(self.User_requests)))

    def demanded_backend(self, task_path: Path) -> Backend:
        """The backend this task demands: ours if the file names one, else from its request and topic (the
        validator has made sure the request names one at least)."""
        backend = self.backend or infer_backend(self.request, topic_of(task_path))
        assert backend is not None, "validated: the request implies a backend"
        return backend

    def prose_checks(self) -> list[ProseCheck]:
        """Every check with a truth: the limiting cases first, then the scientific results."""
        limiting = [case for case in self.LimitingCases if isinstance(case, ProseCheck)] \
            if isinstance(self.LimitingCases, list) else []
        return [*limiting, *self.ScientificResults]

    def prose_convergence(self) -> list[ProseConvergence]:
        cases = self.ConvergenceCases
        return [case for case in cases if isinstance(case, ProseConvergence)] if isinstance(cases, list) else []

    def paper_candidates(self, task_dir: Path) -> list[Path]:
        """Where the paper may be, in order: ``pdf_path`` against the topic folder (the parent of ``tasks/``, as
        upstream resolves it) and against the task's own folder, as named or with each paper suffix."""
        name = self.pdf_name
        names = [name] if name.lower().endswith(PAPER_SUFFIXES) else [name + suffix for suffix in PAPER_SUFFIXES]
        return [folder / self.pdf_path / file for folder in (task_dir.parent, task_dir) for file in names]

    def rubric_candidates(self, task_dir: Path) -> list[Path]:
        """Where the rubric may be: next to the task, then in upstream's ``Rubrics/<topic>/`` (tasks in
        ``<topic>/tasks/``) or in the shared copy's ``rubrics/`` (tasks in ``tasks/<topic>/``)."""
        name = self.rubrics_name if self.rubrics_name.endswith(".json") else self.rubrics_name + ".json"
        if task_dir.name == "tasks":
            topic = task_dir.parent
            return [task_dir / name, topic / name, topic.parent / "Rubrics" / topic.name / name]
        root = task_dir.parent.parent
        return [task_dir / name, root / "rubrics" / name, root / "Rubrics" / task_dir.name / name]

    def to_task(self, task_path: Path, convergence: list[ConvergenceCase] | None = None) -> Task:
        """Our Task for this file, with the convergence ladders derived from its prose checks
        (physvec.taskfiles.upstream_checks).  Paths point at the first existing candidate, else at the first
        place searched (the loader names every place it looked)."""
        task_dir = task_path.parent
        paper = _first_existing(self.paper_candidates(task_dir))
        rubric = _first_existing(self.rubric_candidates(task_dir))
        return Task(
            id=self.id or _task_id(task_path.stem),
            title=f"{self.pdf_name}, {self.subplot_name}",
            paper=PaperSource(path=_relative(paper, task_dir)),
            target=Target(figure=self.subplot_name),
            request=self.request,
            backend=self.demanded_backend(task_path),  # type: ignore[arg-type]
            rubric=_relative(rubric, task_dir),
            limiting_cases=[clean_text(line) for line in _as_lines(self.LimitingCases)]
            if not isinstance(self.LimitingCases, list) or all(isinstance(c, str) for c in self.LimitingCases)
            else [],
            convergence=ConvergenceSettings(
                cases=list(convergence or []),
                notes=[clean_text(line) for line in _as_lines(self.ConvergenceCases)]
                if not self.prose_convergence() else []),
        )


def _first_existing(candidates: list[Path]) -> Path:
    return next((candidate for candidate in candidates if candidate.is_file()), candidates[0])


def _relative(path: Path, task_dir: Path) -> str:
    """``path`` relative to the task folder, with ``..`` where it lies above it."""
    return Path(os.path.relpath(path, task_dir)).as_posix()


def _task_id(stem: str) -> str:
    """A task id from the file name: ours allows letters, digits, '_', '.', '-' after a letter or digit."""
    cleaned = re.sub(r"[^A-Za-z0-9_.-]", "-", clean_text(stem)).strip("-_.")
    return cleaned or "upstream-task"
