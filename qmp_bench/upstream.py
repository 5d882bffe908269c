"""The published QMP-Bench run as it is: upstream task files compiled into runnable tasks of ours.

An upstream task file is read as published (never edited) from the user's checkout or copy, its prose
checks are converted by code (physvec.taskfiles.upstream_checks) and it is compiled into a task folder
of ours: ``task.json``, the paper (copied from the checkout, or a note that it is absent), the rubric
(upstream's tree where published, otherwise physvec's default for the backend, said so), the converted
``assertions.json`` and ``upstream.json`` (the source file, its SHA-256, every check and what became of
it).  That folder runs like any task (``reproduce``, the campaign harness).

An overlay (``qmp_bench/upstream/<topic>/<stem>.json``, our own data) adds what a run without a model
needs and upstream does not say: the library spec at the published parameters, the names the library's
script uses for upstream's prose names, which result answers a check upstream states in words, numbers
read from the paper with where they come from, an independent reference, a substitution, and whether
the size is the published one.  An overlay never changes an upstream truth or tolerance.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError

from physvec.taskfiles.base import StrictModel, Tolerances
from physvec.taskfiles.default_rubric import NO_PUBLISHED_RUBRIC, default_rubric
from physvec.verifiers.library.composer import library_problem
from physvec.qmp_bench.campaign import TrialRecord
from physvec.qmp_bench.overlay_checks import INDEPENDENT, IndependentChecks
from physvec.taskfiles.loading import (
    InputFileError, Problem, load_rubric, load_task, parse_upstream, read_json_object,
)
from physvec.taskfiles.physvec_shape import PhysvecPaperTask, topic_of
from physvec.taskfiles.rubric import Rubric, RubricNode, parse_check, rubric_keys
from physvec.taskfiles.substitution import substituted, substitutions_for
from physvec.taskfiles.task import Backend, Limits, ProposerSpec, Task
from physvec.taskfiles.upstream_checks import RUN_FUNCTION, Conversion, ConversionRow, renamed

OVERLAYS_ROOT = Path(__file__).resolve().parent / "upstream"


class CheckAnswer(StrictModel):
    """How the library's script answers a check upstream states in words: a key path of its results, and the
    PARAMS key that takes each of the observable's own arguments (a time grid), or null for an argument the key
    path itself fixes (the distance r = 2 as item 1 of a list over r = 1, 2, ...)."""

    observable: str = Field(min_length=1)
    arguments: dict[str, str | None] = Field(default_factory=dict)


class PublishedPoint(Tolerances):
    """A number read from the paper, compared with the reproduction's result at a key path: equal within the
    tolerance, or (``op``) a bound the result must respect."""

    name: str = Field(min_length=1)
    observable: str = Field(min_length=1)
    expected: float | list[float]
    op: Literal["==", "<=", ">="] = "=="
    overrides: dict[str, Any] = Field(default_factory=dict)
    where: str = Field(min_length=1, description="the paper's section, figure or text the number comes from")

    def assertion(self, run: str) -> dict[str, Any]:
        common = {"name": f"paper {self.name}", "run": run, "overrides": self.overrides, "observable": self.observable,
                  "rtol": self.rtol, "atol": self.atol, "reference": f"read from the paper: {self.where}"}
        if self.op == "==":
            return {**common, "kind": "published_value", "expected": self.expected}
        return {**common, "kind": "bound", "op": self.op, "value": self.expected}


class FigureHint(StrictModel):
    """How the published figure draws its curves, so the benchmark's overlay looks like the paper's panel."""

    observable: str = Field(min_length=1, description="the result key path the panel plots")
    also: list[str] = Field(default_factory=list, description="further result key paths the panel draws as further "
                                                              "curves of the same length (a second state's density)")
    x_label: str = Field(min_length=1)
    x_start: int = Field(0, description="the x value of the curve's first entry (a distance starting at 1)")
    x_parameter: str | None = Field(None, description="the spec parameter holding the x values (times)")
    labels: list[str] = Field(default_factory=list, description="one legend entry per curve when the result holds "
                                                                "several (a list per curve)")
    columns: bool = Field(False, description="the result is a list over x of values per curve (a value per site)")
    curves: list[int] = Field(default_factory=list, description="the curves the panel draws, by index (default all)")
    absolute: bool = False
    log_y: bool = False


class PublishedSize(StrictModel):
    """A scaled overlay's run at the paper's size: one campaign trial (qmp-bench upstream run --published-size),
    too long for this machine's bound but runnable where a cluster has the time."""

    size: str = Field(min_length=1, description="'published: ...': the paper's size, with its citation")
    parameters: dict[str, Any] = Field(min_length=1, description="spec parameters that differ at that size")
    estimated_minutes: float = Field(gt=0, description="one run's cost on this 2-core machine")
    estimate: str = Field(min_length=1, description="how the cost was estimated")
    published: list[PublishedPoint] = Field(default_factory=list, description="numbers the paper states at that size")
    observables: list[str] = Field(default_factory=list, description="observables only that size can show (a "
                                                                     "skyrmion number, zero on every smaller torus)")
    sandbox_wall_s: float = Field(gt=0, description="the script's wall-clock limit at that size")


class Overlay(StrictModel):
    """What physvec adds to one upstream task to run it without a model (see the module docstring)."""

    upstream: str = Field(min_length=1, description="topic/file of the upstream task, e.g. qcmb/task_qcmb_1_1.json")
    size: str = Field(min_length=1, description="'published: ...' with the parameters, or 'scaled: ...' with why")
    substitutions: dict[Backend, Backend] = Field(default_factory=dict)
    aliases: dict[str, str] = Field(default_factory=dict)
    fixed: dict[str, float] = Field(default_factory=dict)
    answers: dict[str, CheckAnswer] = Field(default_factory=dict)
    rubric_aliases: dict[str, str] = Field(
        default_factory=dict, description="name in an upstream rubric check -> PARAMS key of the same meaning "
                                          "(maxdim -> chi_max); a check on a name the script lacks stays prose")
    implied: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="check source -> PARAMS a check implies but does not write, in the "
                                          "script's names (half filling of a 2 x 2 ladder: N_up = N_down = 2)")
    spec: ProposerSpec
    returns: dict[str, str] = Field(
        default_factory=dict, description="result key -> what it holds, in words (no values): the request tells a "
                                          "model's script which keys physvec compares at the published parameters")
    note: str = Field("", description="what the reproduction chose where the paper is ambiguous, and why")
    published: list[PublishedPoint] = Field(default_factory=list)
    independent: str | None = Field(None, description="name of an independent reference in INDEPENDENT")
    limits: Limits = Field(default_factory=Limits)
    figure: FigureHint | None = None
    at_published_size: PublishedSize | None = None

    @property
    def published_size(self) -> bool:
        return self.size.startswith("published")


@dataclass(frozen=True)
class UpstreamTask:
    """One upstream task file, read and converted, with its overlay where physvec has one."""

    path: Path
    topic: str
    task: PhysvecPaperTask
    conversion: Conversion
    overlay: Overlay | None
    variant: str = ""
    """"" for the overlay as written, "published-size" for its run at the paper's size (its own task id)"""

    @property
    def name(self) -> str:
        return f"{self.topic}/{self.path.name}"

    @property
    def id(self) -> str:
        return "upstream-" + self.path.stem.removeprefix("task_").replace("_", "-") + (
            f"-{self.variant}" if self.variant else "")


def at_published_size(upstream: UpstreamTask) -> UpstreamTask:
    """The task with its overlay moved to the paper's size: the spec's parameters there, the numbers the paper states
    there, the script's wall-clock limit for that size.  The independent checks are computed for that spec (where
    no independent method reaches the size, there are none, and the run can end unknown, not certified)."""
    overlay = upstream.overlay
    if overlay is None or overlay.at_published_size is None:
        raise ValueError(f"{upstream.name} has no run at a published size beyond its own "
                         + ("(no overlay)" if overlay is None else f"(its size: {overlay.size[:80]})"))
    full = overlay.at_published_size
    spec = overlay.spec.model_copy(update={"parameters": {**overlay.spec.parameters, **full.parameters},
                                           "observables": [*overlay.spec.observables, *full.observables]})
    limits = overlay.limits.model_copy(update={"sandbox_wall_s": full.sandbox_wall_s})
    moved = overlay.model_copy(update={"spec": spec, "size": full.size, "published": full.published, "limits": limits,
                                       "at_published_size": None})
    return UpstreamTask(upstream.path, upstream.topic, upstream.task, upstream.conversion, moved, "published-size")


def upstream_files(root: Path) -> list[Path]:
    """The task files under a checkout's root (``Paper_dataset/<topic>/tasks/``), its ``Paper_dataset/``, a copy
    (``tasks/<topic>/``), a topic folder, or a single file."""
    root = Path(root)
    if root.is_file():
        return [root]
    patterns = ("Paper_dataset/*/tasks/*.json", "*/tasks/*.json", "tasks/*/*.json", "tasks/*.json", "*.json")
    return next((sorted(root.glob(pattern)) for pattern in patterns if list(root.glob(pattern))), [])


def overlay_for(path: Path, root: Path = OVERLAYS_ROOT) -> Overlay | None:
    """physvec's overlay for an upstream task file, if it has one."""
    candidate = root / topic_of(path) / path.name
    if not candidate.is_file():
        return None
    try:
        return Overlay.model_validate(read_json_object(candidate))
    except ValidationError as error:
        raise InputFileError([Problem(candidate, ".".join(map(str, detail["loc"])) or "(top level)", detail["msg"])
                              for detail in error.errors()]) from None


def read_upstream(path: Path, overlay_root: Path = OVERLAYS_ROOT) -> UpstreamTask:
    """An upstream task read and converted (InputFileError if it is not one), in its overlay's names."""
    task, conversion = parse_upstream(path)
    overlay = overlay_for(path, overlay_root)
    if overlay is not None:
        answers = {source: (answer.observable, answer.arguments) for source, answer in overlay.answers.items()}
        conversion = renamed(conversion, overlay.aliases, overlay.fixed, answers, overlay.implied)
    return UpstreamTask(path, topic_of(path), task, conversion, overlay)


def _paper(upstream: UpstreamTask, folder: Path) -> str:
    """The paper copied from the checkout, or a note saying it is absent (the Author then works from the
    request alone)."""
    source = next((path for path in upstream.task.paper_candidates(upstream.path.parent) if path.is_file()), None)
    if source is not None:
        shutil.copy2(source, folder / f"paper{source.suffix}")
        return f"paper{source.suffix}"
    (folder / "paper.md").write_text(
        f"# {upstream.task.pdf_name}, {upstream.task.subplot_name}\n\nThe paper source "
        f"({upstream.task.pdf_name}.tex) is not in this checkout; the request is all the Author sees.\n")
    return "paper.md"


def _rubric(upstream: UpstreamTask, backend: str) -> tuple[dict[str, Any], str, set[str]]:
    """Our rubric JSON, where it comes from (upstream's published tree, or physvec's default) and the PARAMS keys
    its machine checks read."""
    published = next((path for path in upstream.task.rubric_candidates(upstream.path.parent) if path.is_file()), None)
    if published is not None:
        rubric = load_rubric(published)
        if upstream.overlay is not None:
            rubric = _in_script_names(rubric, upstream.overlay)
        return rubric.model_dump(mode="json", exclude_none=True), f"upstream: {published.name}", rubric_keys(rubric)
    rubric = default_rubric(upstream.task.subplot_name, backend)
    return rubric, f"{NO_PUBLISHED_RUBRIC} ({upstream.task.rubrics_name}, physvec's for {backend})", set()


def _as_library_use(assertion: dict[str, Any]) -> dict[str, Any]:
    """An expected-value check written as the assertion library's known_value template where it fits (no
    adapter, no reduction); anything else stays written out."""
    fits = assertion["kind"] in ("limiting_case", "analytic_regime") and not assertion.get("adapter") \
        and not assertion.get("arguments") and not assertion.get("reduce")
    if not fits:
        return assertion
    values = {key: assertion[key] for key in ("name", "run", "observable", "reference", "kind", "expected",
                                               "overrides")}
    values.update({key: assertion[key] for key in ("atol", "rtol") if assertion.get(key)})
    return {"use": "assertions/limits.json#known_value", "with": values}


def _in_script_names(rubric: Rubric, overlay: Overlay) -> Rubric:
    """The rubric's machine checks in the library script's names; a check naming anything else (ITensors'
    cutoff, which TeNPy does not share) is dropped and its leaf stays prose, judged by vote or unknown."""
    known = set(overlay.spec.parameters)

    def renamed(node: RubricNode) -> RubricNode:
        if node.children:
            return node.model_copy(update={"children": [renamed(child) for child in node.children]})
        if not node.check:
            return node
        check = re.sub(r"[A-Za-z_][A-Za-z0-9_]*", lambda m: overlay.rubric_aliases.get(m.group(0), m.group(0)),
                       node.check)
        names = {n.id for n in ast.walk(parse_check(check)) if isinstance(n, ast.Name)}
        return node.model_copy(update={"check": check if names <= known else None})

    return rubric.model_copy(update={"sections": [renamed(section) for section in rubric.sections]})


def _assertions(upstream: UpstreamTask, independent: IndependentChecks) -> list[dict[str, Any]]:
    assertions = [_as_library_use(assertion.model_dump(mode="json", exclude_none=True))
                  for assertion in upstream.conversion.assertions]
    overlay = upstream.overlay
    run = overlay.spec.run if overlay and overlay.spec.run else RUN_FUNCTION
    assertions += [point.assertion(run) for point in (overlay.published if overlay else [])]
    return assertions + independent.assertions


def compile_task(upstream: UpstreamTask, out: Path, substitutions: dict[str, str] | None = None,
                 overlay_substitutions: bool = True) -> Path:
    """The upstream task as a task folder of ours under ``out/<topic>/<id>/``, with ``substitutions`` (the user's)
    and, with ``overlay_substitutions``, the overlay's applied, all recorded in the task; returns its task.json.
    The overlay's substitution is the backend of physvec's library reproduction, so only a run by the library
    proposer takes it; a model's run is switched only where the user asks."""
    folder = out / upstream.topic / upstream.id
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    overlay = upstream.overlay
    independent = INDEPENDENT[overlay.independent](overlay.spec) if overlay and overlay.independent \
        else IndependentChecks()
    backend = upstream.task.demanded_backend(upstream.path)
    rubric, rubric_source, rubric_checks = _rubric(upstream, backend)
    (folder / "rubric.json").write_text(json.dumps(rubric, indent=1) + "\n")
    interface = "\n\n".join(sentence for sentence in (upstream.conversion.interface(rubric_checks),
                                                        overlay_interface(overlay)) if sentence)
    task: dict[str, Any] = {
        "id": upstream.id, "title": f"{upstream.task.pdf_name}, {upstream.task.subplot_name} (published QMP-Bench)",
        "paper": {"path": _paper(upstream, folder)}, "target": {"figure": upstream.task.subplot_name},
        "request": upstream.task.request + (f"\n\n{interface}" if interface else ""),
        "backend": backend, "rubric": "rubric.json",
        "convergence": {"cases": [case.model_dump(mode="json", exclude_none=True)
                                  for case in upstream.conversion.convergence]},
    }
    assertions = _assertions(upstream, independent)
    if assertions:
        (folder / "assertions.json").write_text(json.dumps({"assertions": assertions}, indent=1) + "\n")
        task["assertions"] = "assertions.json"
    if independent.reference is not None:
        reference = dict(independent.reference)
        (folder / "reference.json").write_text(json.dumps(reference.pop("values"), indent=1) + "\n")
        task["reference"] = {"path": "reference.json", **reference}
    if overlay is not None:
        task.update(spec=overlay.spec.model_dump(mode="json", exclude_none=True),
                    limits=overlay.limits.model_dump(mode="json"))
    wanted = {**(overlay.substitutions if overlay and overlay_substitutions else {}), **(substitutions or {})}
    unsubstituted = Task.model_validate(task)
    compiled = substituted(unsubstituted, substitutions_for(unsubstituted, wanted))
    (folder / "task.json").write_text(compiled.model_dump_json(indent=1, exclude_none=True) + "\n")
    (folder / "upstream.json").write_text(json.dumps(_provenance(upstream, rubric_source), indent=1) + "\n")
    return folder / "task.json"


def overlay_interface(overlay: Overlay | None) -> str | None:
    """The sentence that tells a script which names physvec's comparison at the published parameters reads: the
    run function, the PARAMS keys and each returned key in words (never a value it is compared with)."""
    if overlay is None or not overlay.returns:
        return None
    run = overlay.spec.run or RUN_FUNCTION
    keys = "; ".join(f"'{key}': {meaning}" for key, meaning in overlay.returns.items())
    return (f"Interface for physvec's comparison at the published parameters: define {run}(**params) returning a "
            f"dict with {keys}; PARAMS must hold the keys {', '.join(overlay.spec.parameters)}.")


def _provenance(upstream: UpstreamTask, rubric_source: str) -> dict[str, Any]:
    return {
        "source": str(upstream.path), "sha256": hashlib.sha256(upstream.path.read_bytes()).hexdigest(),
        "rubric": rubric_source, "overlay": upstream.overlay.model_dump(mode="json") if upstream.overlay else None,
        "size": upstream.overlay.size if upstream.overlay else "as the request states",
        "checks": [row.__dict__ for row in upstream.conversion.rows],
    }


def conversion_rows(root: Path) -> list[tuple[str, ConversionRow]]:
    """(task, row) for every upstream check under ``root``; a file that does not load is one row saying why."""
    rows = []
    for path in upstream_files(root):
        try:
            upstream = read_upstream(path)
        except InputFileError as error:
            rows.append((path.name, ConversionRow("(file)", "", "kept as prose", f"does not load: {error.problems[0]}")))
            continue
        rows += [(upstream.name, row) for row in upstream.conversion.rows]
    return rows


@dataclass(frozen=True)
class StatusRow:
    """One upstream task in the status table."""

    task: str
    loads: str
    converted: str
    runnable: str
    verdict: str


def _loads(path: Path) -> str:
    try:
        loaded = load_task(path)
    except InputFileError as error:
        return "no: missing " + ", ".join(sorted({problem.field for problem in error.problems}))
    return f"yes ({loaded.rubric.note})" if loaded.rubric.note else "yes"


def _runnable(upstream: UpstreamTask) -> str:
    overlay = upstream.overlay
    if overlay is None:
        return "no: no overlay (a model is needed)"
    demanded = upstream.task.demanded_backend(upstream.path)
    backend = overlay.substitutions.get(demanded, demanded)
    problem = library_problem(overlay.spec, backend)
    return f"no: {problem}" if problem else "yes" + ("" if overlay.published_size else " (scaled)")


def status_rows(root: Path, records: list[TrialRecord]) -> list[StatusRow]:
    """Every upstream task under ``root``: does it load, how many checks became code, can the library run it,
    and the last verdict a campaign's ``records`` hold for it."""
    verdicts = {record.task: record.verdict for record in records}
    rows = []
    for path in upstream_files(root):
        try:
            upstream = read_upstream(path)
        except InputFileError as error:
            rows.append(StatusRow(f"{topic_of(path)}/{path.name}", f"no: {error.problems[0]}", "-", "no", "-"))
            continue
        checks = upstream.conversion.rows
        converted = f"{sum(row.converted for row in checks)}/{len(checks)}" if checks else "-"
        rows.append(StatusRow(upstream.name, _loads(path), converted, _runnable(upstream),
                              verdicts.get(f"{upstream.topic}/{upstream.id}", "-")))
    return rows
