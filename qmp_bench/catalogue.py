"""The QMP-Bench task catalogue: qmp_bench/tasks/<topic>/<id>/task.json, one topic per backend."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path

TASKS_ROOT = Path(__file__).resolve().parent / "tasks"
TOPIC_BACKENDS = {"dmrg": "tenpy", "nqs": "netket", "qsim": "qiskit", "dft": "pyscf"}
"""Tensor networks, neural quantum states, quantum circuits, density-functional and Hartree-Fock theory."""


@dataclass(frozen=True)
class BenchTask:
    """One benchmark task: its topic, its id (the folder name) and its task file."""

    topic: str
    id: str
    task_file: Path

    @property
    def name(self) -> str:
        return f"{self.topic}/{self.id}"


def bench_tasks(pattern: str = "*", root: Path = TASKS_ROOT) -> list[BenchTask]:
    """The tasks whose ``topic/id`` matches the glob ``pattern``, in topic and id order."""
    found = [BenchTask(path.parent.parent.name, path.parent.name, path)
             for path in sorted(root.glob("*/*/task.json"))]
    return [task for task in found if fnmatch.fnmatch(task.name, pattern)]
