"""Task files: one paper figure to reproduce, with everything needed to judge the reproduction.

Paths inside a task are relative to the task file's folder.  Limits are validated here so a
negative budget is a clear input error, not a surprise halfway through a run.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, NonNegativeInt, PositiveFloat, PositiveInt, field_validator, model_validator

from physvec.taskfiles.base import StrictModel, Tolerances

Backend = Literal["qiskit", "netket", "tenpy", "pyscf", "itensors", "orca"]
"""ORCA is named so that tasks demanding it load; no script contract runs it here (``--substitute orca=pyscf``)."""
DomainChecker = Literal["dualitycert", "phact", "matpcr"]
PAPER_SUFFIXES = (".tex", ".md", ".pdf")


class Citation(StrictModel):
    """Where the result was published: a DOI for an article, an ISBN for a book."""

    authors: list[str] = Field(min_length=1)
    title: str = Field(min_length=1)
    venue: str = Field(min_length=1, description="journal with volume and page, or the publisher of a book")
    year: int = Field(ge=1900, le=2100)
    doi: str | None = Field(None, pattern=r"^10\.\d{4,9}/\S+$")
    isbn: str | None = Field(None, pattern=r"^[0-9Xx-]{10,17}$")

    @model_validator(mode="after")
    def _identified(self) -> Citation:
        if self.doi is None and self.isbn is None:
            raise ValueError("a citation needs a doi (article) or an isbn (book)")
        return self


class PaperSource(StrictModel):
    """The paper (or the relevant part of it) the figure comes from."""

    path: str = Field(min_length=1, description="LaTeX, Markdown or PDF file, relative to the task file")
    citation: Citation | None = None

    @field_validator("path")
    @classmethod
    def _known_format(cls, path: str) -> str:
        if not path.lower().endswith(PAPER_SUFFIXES):
            raise ValueError(f"paper source must end in one of {', '.join(PAPER_SUFFIXES)}")
        return path


class Target(StrictModel):
    """Which figure, and optionally which panel, to reproduce."""

    figure: str = Field(min_length=1)
    panel: str | None = None


class ConvergenceCase(StrictModel):
    """A ladder of one accuracy parameter; converged when the observable stops moving."""

    parameter: str = Field(min_length=1, description="a key of the script's PARAMS")
    run: str | None = Field(None, pattern=r"^run_[A-Za-z0-9_]+$",
                            description="the run_ function to call (default: the script's only one)")
    ladder: list[float] = Field(min_length=2, description="values to climb, from cheap to accurate")
    observable: str = Field(min_length=1, description="dotted key path into the run_ function's results")
    tolerance: PositiveFloat


class ConvergenceSettings(StrictModel):
    """Convergence ladders; ``notes`` hold prose expectations (PhysVEC-shape tasks) never certified."""

    cases: list[ConvergenceCase] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


class ReferenceData(Tolerances):
    """Reference values the reproduction is compared with, and where they came from."""

    path: str = Field(min_length=1, description="JSON file of reference values, relative to the task file")
    observable: str = Field(min_length=1, description="dotted key path into the script's results.json")
    key: str | None = Field(None, description="dotted key path into the reference file (default: observable)")
    also: list[str] = Field(default_factory=list, description=(
        "further results compared with the same file and tolerances, each under its own name in both"))
    source: str = Field(min_length=1, description="provenance: paper, table, or independent method")
    x: str | None = Field(None, description=(
        "dotted key path into the reference file of the values the observable was computed at (the swept "
        "parameter, e.g. lengths): the x axis of the overlay figure (default: the index)"))

    def compared(self) -> list[tuple[str, str]]:
        """(observable in results.json, key in the reference file) of every comparison, the main one first."""
        return [(self.observable, self.key or self.observable), *((name, name) for name in self.also)]


class DomainCheck(StrictModel):
    """A domain checker to run as a further verifier node, with its input file."""

    checker: DomainChecker
    input: str = Field(min_length=1, description="claim file (dualitycert) or design file (phact), relative to the task file")


class Limits(StrictModel):
    """Budgets of one run; defaults follow the issue that introduced the loops."""

    programming_iterations: NonNegativeInt = 8
    scientific_iterations: NonNegativeInt = 5
    author_attempts: PositiveInt = Field(3, description="rounds for the Author's plan and for a first script "
                                                        "that keeps the script contract")
    author_plan: bool = Field(True, description="the Author first writes a structured plan (system, "
                                                "Hamiltonian, parameters with their place in the paper, method, "
                                                "observables, what is scaled down, documentation queries)")
    rubric_votes: NonNegativeInt = Field(3, description="model votes per prose rubric leaf, at rising temperature "
                                                       "(0: prose leaves stay unjudged)")
    unit_glue: bool = Field(True, description="ask the model for argument glue when no background function "
                                              "can make a unit test's inputs (one call per such function)")
    sandbox_wall_s: PositiveFloat = 600.0
    sandbox_memory_gb: PositiveFloat = 6.0
    token_budget: PositiveInt = 200_000


class ProposerSpec(StrictModel):
    """What the no-model library proposer composes a script from: a verified library pipeline, named by
    model, lattice and method, with the script's parameters and the results to return."""

    model: str = Field(min_length=1, description="the physical model, e.g. heisenberg, trapped_hubbard")
    lattice: str = Field(min_length=1, description="e.g. chain, ring, molecule")
    method: str = Field(min_length=1, description="e.g. dmrg, trotter, vmc_rbm, rks")
    parameters: dict[str, Any] = Field(description="PARAMS of the script: every parameter the pipeline reads")
    observables: list[str] = Field(min_length=1, description="pipeline outputs to return as named results")
    run: str | None = Field(None, pattern=r"^run_[A-Za-z0-9_]+$",
                            description="the run_ function's name, where the task's checks call one by name "
                                        "(default: run_<pipeline>)")


class Task(StrictModel):
    """One reproduction task."""

    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", max_length=80)
    title: str = Field(min_length=1)
    paper: PaperSource
    target: Target
    request: str = Field(min_length=1, description="what the user asks for, what may be scaled down")
    backend: Backend
    rubric: str = Field(min_length=1, description="rubric file, relative to the task file or rubrics/")
    assertions: str | None = Field(None, description="assertion file, relative to the task file or assertions/")
    limiting_cases: list[str] = Field(default_factory=list, description="prose expectations, never certified")
    convergence: ConvergenceSettings = Field(default_factory=ConvergenceSettings)
    reference: ReferenceData | None = None
    domain_checks: list[DomainCheck] = Field(default_factory=list)
    limits: Limits = Field(default_factory=Limits)
    spec: ProposerSpec | None = Field(None, description="structured spec for the no-model library proposer")
    substitutions: dict[Backend, Backend] = Field(
        default_factory=dict, description="backends substituted by the user (reproduce --substitute ORIGINAL=USED): "
                                          "the request was rewritten and leaves demanding ORIGINAL are not applicable")
