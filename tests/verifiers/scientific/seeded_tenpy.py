"""Seeded physics bugs of the TeNPy trapped-Hubbard fixture, shared by its tests and the benchmark.

Each seed is one exact text replacement in the correct script, the verifier that must catch it, and
the named check that must fail.  ``verify`` runs the script's main() in the sandbox and then the
given verifiers directly, so every check sees the bug (in a pipeline run a failed scientific stage
would stop before the convergence stage).
"""

from __future__ import annotations

import sys
from pathlib import Path

from physvec.taskfiles.loading import load_task
from physvec.verifiers.protocol import Subject, Verifier
from physvec.verifiers.sandbox import SandboxJob, SandboxLimits, SandboxPool
from physvec.verifiers.scientific import ConvergenceVerifier, ScientificVerifier

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "tenpy_hubbard_task"
SCRIPT = (FIXTURE / "script.py").read_text()
LIMITS = SandboxLimits(wall_s=120)

SEEDS: dict[str, tuple[tuple[str, str], type[Verifier], str]] = {
    "wrong particle number for half filling": (('"N_up": 4, "N_down": 4', '"N_up": 3, "N_down": 3'),
                                               ScientificVerifier, "rubric:half filling"),
    "trap depth V used where 4A/L^2 was meant": (("return 4 * A / L**2 * (", "return A * ("), ScientificVerifier,
                                                 "assertion:free fermions in the trap"),
    # the figure's density counts both species; one species' density is half of it
    "density not rescaled": (('psi.expectation_value("Ntot")', 'psi.expectation_value("Nu")'), ScientificVerifier,
                             "assertion:uniform density without a trap"),
    # one sweep from the product state leaves the edge density 0.012 off (ladder 1, 2, 4, 8 settles from 2)
    "unconverged sweeps": (('"max_sweeps": 10', '"max_sweeps": 1'), ConvergenceVerifier, "convergence:max_sweeps"),
}


def seeded(seed: str) -> str:
    (old, new), _, _ = SEEDS[seed]
    if old not in SCRIPT:
        raise ValueError(f"the fixture script has no {old!r} for seed {seed!r}")
    return SCRIPT.replace(old, new)


def verify(folder: Path, source: str, verifiers: tuple[Verifier, ...]) -> dict[str, str]:
    """Execute main() of ``source`` in the sandbox, then run ``verifiers``: outcomes by obligation name,
    and each certificate's verdict under ``verdict:<verifier>``."""
    executed = folder / "executed"
    executed.mkdir(parents=True)
    script = executed / "script.py"
    script.write_text(source)
    pool = SandboxPool()
    (result,) = pool.run_all([SandboxJob([sys.executable, "script.py"], executed, LIMITS)])
    if result.returncode != 0:
        raise RuntimeError(f"the script did not run: {result.stderr[-2000:]}")
    subject = Subject(script=script, task=load_task(FIXTURE / "task.json"), pool=pool, limits=LIMITS,
                      workdir=folder / "work", executed_dir=executed)
    outcomes: dict[str, str] = {}
    for verifier in verifiers:
        certificate = verifier.verify(subject)
        outcomes |= {o.name: o.outcome.value for o in certificate.obligations}
        outcomes[f"verdict:{verifier.name}"] = certificate.verdict.value
    return outcomes
