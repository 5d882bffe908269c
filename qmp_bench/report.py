"""The campaign's results: a table per (method, model) in CSV and markdown, and pass@k plots."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

from physvec.qmp_bench.campaign import TrialRecord
from physvec.qmp_bench.metrics import mean_pass_at_k, summary


def _groups(records: list[TrialRecord]) -> dict[tuple[str, str], list[TrialRecord]]:
    grouped: dict[tuple[str, str], list[TrialRecord]] = defaultdict(list)
    for record in records:
        grouped[(record.method, record.model)].append(record)
    return dict(sorted(grouped.items()))


def results_rows(records: list[TrialRecord], k_values: tuple[int, ...] = (1, 8)) -> list[dict[str, object]]:
    return [{"method": method, "model": model, **summary(group, k_values)}
            for (method, model), group in _groups(records).items()]


def _cell(value: object) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def write_results(records: list[TrialRecord], folder: Path, k_values: tuple[int, ...] = (1, 8)) -> list[Path]:
    """results.csv, results.md and pass_at_k.png in ``folder``; the paths written."""
    rows = results_rows(records, k_values)
    columns = list(rows[0]) if rows else ["method", "model"]
    with (folder / "results.csv").open("w", newline="") as stream:
        writer = csv.DictWriter(stream, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(_cell(row[c]) for c in columns) + " |" for row in rows]
    (folder / "results.md").write_text("\n".join(lines) + "\n")
    return [folder / "results.csv", folder / "results.md", _plot_pass_at_k(records, folder / "pass_at_k.png")]


def _plot_pass_at_k(records: list[TrialRecord], path: Path) -> Path:
    """Scientific pass@k against k, one curve per method and model, for k up to the fewest trials per task."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(5, 3.5))
    for (method, model), group in _groups(records).items():
        per_task: dict[str, int] = defaultdict(int)
        for record in group:
            per_task[record.task] += 1
        ks = list(range(1, min(per_task.values()) + 1))
        axis.plot(ks, [mean_pass_at_k(group, k, lambda r: r.scientific_completion) for k in ks], marker="o",
                  label=f"{method} ({model})")
    axis.set_xlabel("trials k")
    axis.set_ylabel("scientific pass@k")
    axis.set_ylim(-0.02, 1.02)
    axis.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path
