"""What one sandboxed program costs: the median wall time of a trivial program, warm and cold.

    python benchmarks/sandbox_programs.py [--programs 40]

A warm program is forked from a worker that has imported numpy (verifiers/warm_pool.py); a cold one is a
fresh interpreter under bubblewrap.  The trivial program (``print(1)``) measures what the sandbox itself adds to
every program: building its view (fresh root, /dev, /tmp, mounts), its limits, the provenance hook, and the
round trip to the host.  Programs run one at a time so that the figure is per program, not per batch.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from physvec.verifiers.isolation import probe
from physvec.verifiers.sandbox import SandboxJob, SandboxPool, run_program


def _job(folder: Path) -> SandboxJob:
    folder.mkdir(parents=True)
    (folder / "prog.py").write_text("print(1)\n")
    return SandboxJob([sys.executable, "prog.py"], folder)


def _timed(run) -> float:
    started = time.perf_counter()
    result = run()
    if not result.ok:
        raise RuntimeError(f"the trivial program failed: {result.summary()}: {result.stderr[-400:]}")
    return time.perf_counter() - started


def measure(programs: int) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory(prefix="physvec-bench-sandbox-") as scratch:
        root = Path(scratch) / "work"
        pool = SandboxPool(cores=1).warm_for(root, "numpy")
        try:
            pool.prestart(wait=True)
            warm = [_timed(lambda i=i: pool.run_all([_job(root / f"warm-{i}")])[0]) for i in range(programs)]
        finally:
            pool.close()
        cold = [_timed(lambda i=i: run_program(_job(Path(scratch) / f"cold-{i}"))) for i in range(programs // 4 or 1)]
    return {"warm": warm, "cold": cold}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=40)
    arguments = parser.parse_args()
    print(f"isolation: {probe().describe()}")
    for kind, times in measure(arguments.programs).items():
        print(f"{kind:<5} {len(times):>3} programs: median {1000 * statistics.median(times):7.1f} ms, "
              f"min {1000 * min(times):7.1f} ms, max {1000 * max(times):7.1f} ms")


if __name__ == "__main__":
    main()
