"""Published QMP-Bench figures reproduced at their published size by the library proposer (no model).

Each figure is an upstream task file read as published (from a checkout or the shared copy), compiled with
physvec's overlay (qmp_bench/upstream/) and run through the whole pipeline: programming verification, the
upstream truths it carries, an independent reference, numbers read from the paper, convergence.  The table
gives the size (published, or scaled with why), the verdict, which checks certified and the minutes on this
machine; each figure's curve is drawn over the published points into <out>/<figure>.png.

    python benchmarks/upstream_figures.py [--dataset DIR] [--figures qcmb/task_qcmb_1_1.json,... | --all qcmb,nnwf]
                                          [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from physvec.agents.runner import start_run  # noqa: E402
from physvec.qmp_bench.upstream import OVERLAYS_ROOT, FigureHint, compile_task, read_upstream  # noqa: E402
from physvec.taskfiles.keypaths import lookup  # noqa: E402
from physvec.taskfiles.loading import load_task  # noqa: E402

SHARED_COPY = Path(__file__).resolve().parents[2] / "shared" / "data" / "upstream_qmp"
LIMIT_MINUTES = 15


@dataclass(frozen=True)
class Checks:
    """Outcomes of one reproduction, grouped by where the expectation comes from."""

    upstream: str
    independent: str
    paper: str
    convergence: str


def _group(obligations: list[dict[str, Any]], select: Any) -> str:
    selected = [o for o in obligations if select(o)]
    chosen = [o for o in selected if o["outcome"] != "not_applicable"]
    if not chosen:
        return "not applicable" if selected else "-"
    return f"{sum(o['outcome'] == 'certified' for o in chosen)}/{len(chosen)} certified"


def _checks(run_dir: Path) -> Checks:
    certificates = {path.stem: json.loads(path.read_text()) for path in (run_dir / "certificates").glob("*.json")}
    latest = {stage: certificates[name] for stage in ("scientific", "convergence")
              for name in sorted(name for name in certificates if name.startswith(f"{stage}-v"))[-1:]}
    scientific = latest.get("scientific", {}).get("obligations", [])
    convergence = latest.get("convergence", {}).get("obligations", [])
    return Checks(
        upstream=_group(scientific, lambda o: o["name"].startswith("assertion:upstream")),
        independent=_group(scientific, lambda o: o["name"].startswith("reference:")
                           or o["name"].startswith("assertion:independent")),
        paper=_group(scientific, lambda o: o["name"].startswith("assertion:paper")),
        convergence=_group(convergence, lambda o: True),
    )


def _plot(run_dir: Path, task_file: Path, name: str, out: Path, hint: FigureHint | None = None) -> Path | None:
    """The reproduction's curves (results.json) with the checks' expected points: upstream truths, the paper's
    numbers and independent references drawn where they fall on the same axes; with the overlay's figure
    hint, the published panel's one curve as the paper draws it."""
    results_file = run_dir / "results.json"
    if not results_file.is_file():
        return None
    results = json.loads(results_file.read_text())
    loaded = load_task(task_file)
    parameters = loaded.task.spec.parameters
    if hint is not None:
        values = [lookup(results, key) for key in (hint.observable, *hint.also)] if hint.also \
            else lookup(results, hint.observable)
        return _plot_as_published(values, hint, parameters, name, out)
    curves = {key: value for key, value in results.items()
              if isinstance(value, list) and value and all(isinstance(v, (int, float)) for v in value)}
    figure, axes = plt.subplots(figsize=(7, 4.5))
    for key, value in curves.items():
        axes.plot(_x_values(parameters, len(value)), value, label=f"physvec: {key}")
    for assertion in loaded.assertions.assertions if loaded.assertions else []:
        _draw_expectation(axes, assertion, curves, parameters)
    axes.set_xlabel("J t" if isinstance(parameters.get("times"), list) else "site (MPS order)")
    return _save(figure, axes, name, out, legend_size=6)


def _plot_as_published(values: Any, hint: FigureHint, parameters: dict[str, Any], name: str, out: Path) -> Path:
    """The panel's curves as the paper draws them: one curve, a list of curves, or (columns) a value per curve at
    each x, against the spec's x values where the hint names them."""
    curves = np.asarray(values, dtype=float)
    curves = np.atleast_2d(curves.T if hint.columns else curves)
    curves = curves[hint.curves] if hint.curves else curves
    x = parameters[hint.x_parameter] if hint.x_parameter else range(hint.x_start, hint.x_start + curves.shape[1])
    figure, axes = plt.subplots(figsize=(7, 4.5))
    for index, curve in enumerate(curves):
        label = hint.labels[index] if index < len(hint.labels) else hint.observable
        axes.plot(x, np.abs(curve) if hint.absolute else curve, "o-", markersize=3, label=f"physvec: {label}")
    if hint.log_y:
        axes.set_yscale("log")
    axes.set_xlabel(hint.x_label)
    axes.set_ylabel(("|" + hint.observable + "|") if hint.absolute else hint.observable)
    return _save(figure, axes, name, out, legend_size=7)


def _save(figure: Any, axes: Any, name: str, out: Path, legend_size: int) -> Path:
    """Title, legend and the PNG <out>/<topic>__<file>.png of one figure."""
    axes.set_title(name, fontsize=9)
    axes.legend(fontsize=legend_size)
    path = out / f"{name.replace('/', '__')}.png"
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path


def _draw_expectation(axes: Any, assertion: Any, curves: dict[str, list[float]], parameters: dict[str, Any]) -> None:
    """A check's expected value on the curve's axes: a list over the same x as a curve, points at given times,
    or one point at a key path's index."""
    expected = getattr(assertion, "expected", getattr(assertion, "value", None))
    key, _, index = assertion.observable.partition(".")
    overrides = getattr(assertion, "overrides", {}) or {}
    if expected is None or key not in curves:
        return
    label = assertion.name + (f" at {overrides}" if overrides else "")
    if index.isdigit() and not isinstance(expected, list):
        axes.plot([_x_values(parameters, len(curves[key]))[int(index)]], [expected], "s", label=label)
    elif isinstance(overrides.get("times"), list) and isinstance(expected, list):
        axes.plot(overrides["times"], expected, "o", label=label)
    elif isinstance(expected, list) and len(expected) == len(curves[key]):
        axes.plot(_x_values(parameters, len(expected)), expected, "--", label=label)


def _x_values(parameters: dict[str, Any], length: int) -> list[float]:
    """The swept parameter of a curve: the times of a quench, else the site index."""
    times = parameters.get("times")
    return list(times) if isinstance(times, list) and len(times) == length else list(range(length))


def reproduce(upstream_file: Path, out: Path, console: Console) -> tuple[str, Checks, float, str, Path | None]:
    upstream = read_upstream(upstream_file)
    assert upstream.overlay is not None, f"{upstream.name} has no overlay"
    task_file = compile_task(upstream, out / "compiled")
    started = time.monotonic()
    outcome = start_run(task_file, "library", out / "runs")
    minutes = (time.monotonic() - started) / 60
    console.print(f"{upstream.name}: {outcome.verdict} in {minutes:.1f} min ({outcome.run.path})")
    return (outcome.verdict or outcome.status, _checks(outcome.run.path), minutes, upstream.overlay.size,
            _plot(outcome.run.path, task_file, upstream.name, out, upstream.overlay.figure))


def _size(size: str) -> str:
    """'published' or 'scaled: ...' with the run's size, short: the overlay's size text up to its citation."""
    return re.sub(r"\s\((?:[^()]|\([^()]*\))*\)$", "", size)


def _chosen(figures: str, topics: str) -> list[str]:
    """topic/file names: those given, every overlay of the topics given, or every overlay."""
    if figures:
        return [name for name in figures.split(",") if name]
    wanted = {topic for topic in topics.split(",") if topic}
    return sorted(f"{path.parent.name}/{path.name}" for path in OVERLAYS_ROOT.glob("*/*.json")
                  if not wanted or path.parent.name in wanted)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, default=SHARED_COPY, help="a copy holding tasks/<topic>/, or a "
                                                                          "checkout's Paper_dataset/")
    parser.add_argument("--figures", default="", help="comma-separated topic/file")
    parser.add_argument("--all", default="", metavar="TOPICS",
                        help="every overlay of these comma-separated topics (qcmb,nnwf); default: every overlay")
    parser.add_argument("--out", type=Path, default=Path("upstream-figures"))
    arguments = parser.parse_args()
    names = _chosen(arguments.figures, arguments.all)
    root = arguments.dataset / "tasks" if (arguments.dataset / "tasks").is_dir() else arguments.dataset
    arguments.out.mkdir(parents=True, exist_ok=True)
    console = Console(width=220)
    columns = ("figure", "size", "verdict", "upstream truths", "independent", "paper's numbers", "convergence",
               "minutes")
    table = Table(*columns, title="published QMP-Bench figures reproduced without a model")
    rows = []
    within = True
    for name in names:
        topic, file = name.split("/")
        path = root / topic / file if (root / topic / file).is_file() else root / topic / "tasks" / file
        verdict, checks, minutes, size, plot = reproduce(path, arguments.out, console)
        within &= minutes <= LIMIT_MINUTES
        rows.append((name, _size(size), verdict, checks.upstream, checks.independent, checks.paper,
                     checks.convergence, f"{minutes:.1f}"))
        table.add_row(*rows[-1])
        if plot is not None:
            console.print(f"  figure: {plot}")
    console.print(table)
    console.print(f"each run within {LIMIT_MINUTES} minutes on this machine: {'yes' if within else 'no'}")
    markdown = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    markdown += ["| " + " | ".join(row) + " |" for row in rows]
    (arguments.out / "figures.md").write_text("\n".join(markdown) + "\n")
    console.print(f"table: {arguments.out / 'figures.md'}")
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main())
