"""Every QMP-Bench task reproduced by the library proposer (no model): verdict, problems and wall time.

A task that is not certified here has a wrong task file, reference or verifier.  The cheapest task of
each topic also runs in the default test suite (tests/qmp_bench/test_library_reproduction.py).

    python benchmarks/qmp_library_reproduction.py [--tasks GLOB]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from rich.console import Console
from rich.table import Table

from physvec.qmp_bench.campaign import Campaign
from physvec.qmp_bench.catalogue import bench_tasks
from physvec.qmp_bench.library_reproduction import reproduce_with_library


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="*", help="glob over topic/id (default: every task)")
    arguments = parser.parse_args()
    table = Table(title="QMP-Bench tasks reproduced by the library proposer")
    for column in ("task", "verdict", "failed", "unknown / error / unbuilt", "seconds"):
        table.add_column(column)
    console, reproduced, tasks = Console(), 0, bench_tasks(arguments.tasks)
    with tempfile.TemporaryDirectory(prefix="qmp-library-") as folder:
        for task in tasks:
            console.print(f"reproducing {task.name} ...")
            result = reproduce_with_library(task, Campaign(Path(folder)))
            reproduced += result.reproduced
            table.add_row(task.name, result.verdict, ", ".join(result.failed), ", ".join(result.unfinished),
                          f"{result.seconds:.1f}")
    console.print(table)
    print(f"reproduced: {reproduced}/{len(tasks)}")
    return 0 if reproduced == len(tasks) else 1


if __name__ == "__main__":
    sys.exit(main())
