"""How fast commands start: median user CPU over 5 runs of `--help` of every command and of the quick
commands on the README's examples.

    python benchmarks/startup.py [--repeats 5]

User CPU (the children's ``ru_utime``), not wall time, is what is compared with the targets (0.3 s for
`--help`, 0.6 s for a quick command), so that a busy machine does not flatter or punish a command; the
wall time is printed beside it.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
HELP_TARGET_S, QUICK_TARGET_S = 0.3, 0.6


def commands(scratch: Path) -> list[tuple[str, list[str], float]]:
    """(label, argv, target seconds of user CPU) for every measured command."""
    claim = ROOT / "examples" / "dualitycert" / "dp0_node0_claim.json"
    theory = scratch / "theory.json"
    theory.write_text(json.dumps(json.loads(claim.read_text())["theory_a"]))
    (scratch / "runs").mkdir(exist_ok=True)
    helps = [(f"{name} --help", [str(BIN / name), "--help"], HELP_TARGET_S)
             for name in ("reproduce", "physvec", "qmp-bench", "dualitycert", "phact", "matpcr")]
    quick = [
        ("physvec validate (README task)", [str(BIN / "physvec"), "validate",
                                            str(ROOT / "examples" / "heisenberg_chain" / "task.json")]),
        ("dualitycert verify (dP0 claim)", [str(BIN / "dualitycert"), "verify", str(claim)]),
        ("dualitycert dualize (dP0, node 0)", [str(BIN / "dualitycert"), "dualize", str(theory), "--node", "0"]),
        ("phact certify (mains hum)", [str(BIN / "phact"), "certify",
                                       str(ROOT / "verifiers" / "phact" / "goals" / "rc_filter" / "mains-hum-low-pass.json"),
                                       str(ROOT / "examples" / "phact" / "mains_hum_design.json")]),
        ("physvec runs list", [str(BIN / "physvec"), "runs", "--runs-dir", str(scratch / "runs"), "list"]),
    ]
    return helps + [(label, argv, QUICK_TARGET_S) for label, argv in quick]


def measured(argv: list[str]) -> tuple[float, float, int]:
    """(user CPU seconds, wall seconds, exit code) of one run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    started = time.perf_counter()
    completed = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - started
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before, wall, completed.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    arguments = parser.parse_args()
    table = Table("command", "exit", "user CPU s (median)", "wall s (median)", "target s", "met",
                  title=f"command start-up, median of {arguments.repeats}")
    missed = 0
    with tempfile.TemporaryDirectory(prefix="physvec-startup-") as scratch:
        for label, argv, target in commands(Path(scratch)):
            runs = [measured(argv) for _ in range(arguments.repeats)]
            cpu = statistics.median(run[0] for run in runs)
            wall = statistics.median(run[1] for run in runs)
            met = cpu <= target
            missed += not met
            table.add_row(label, str(runs[-1][2]), f"{cpu:.2f}", f"{wall:.2f}", f"{target:g}", "yes" if met else "NO")
    Console().print(table)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
