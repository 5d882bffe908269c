"""The pipeline's graph state and run context.

The state holds only small values and file names: it is copied into every checkpoint, so scripts,
outputs and certificates live in the run directory.  The context holds what nodes need but a
checkpoint must not (the model client, the sandbox pool).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from enum import StrEnum
from typing import TypedDict

from physvec.agents.model_client import ModelClient
from physvec.runstore.store import RunDirectory
from physvec.runstore.transcript import Transcript
from physvec.taskfiles.loading import LoadedTask
from physvec.verifiers.feedback import Projection
from physvec.verifiers.sandbox import GiB, SandboxLimits, SandboxPool
from physvec.verifiers.sandbox_check import SandboxCheck


class Status(StrEnum):
    """How a run ended (or that it has not)."""

    RUNNING = "running"
    FINISHED = "finished"
    BUDGET_EXHAUSTED = "budget_exhausted"
    AUTHOR_FAILED = "author_failed"
    MODEL_UNAVAILABLE = "model_unavailable"
    MODEL_REPEATS = "model_repeats"
    """the model gave the same answer again, also with another seed and temperature: the loop that asked stopped"""
    ERROR = "error"
    """the run could not be verified here (the sandbox fails on this machine): the cause says why, and no script
    is blamed"""


class PipelineState(TypedDict, total=False):
    step: int
    status: str
    script_version: int
    programming_iteration: int
    scientific_iteration: int
    certificates: dict[str, str]
    executed_dir: str
    """the sandbox folder the current script last ran in, relative to the run folder (an absolute one, from a
    checkpoint written before paths were relative, still works: the run folder joined with it is itself)"""
    execution_error: str
    """the end of the current script's error output when it last ran (ReAct baselines; empty: it ran)"""
    verdict: str
    error: str


@dataclass
class RunContext:
    """Everything a node needs besides the state."""

    run: RunDirectory
    task: LoadedTask
    transcript: Transcript
    client: ModelClient
    pool: SandboxPool
    feedback: Projection = Projection.FULL
    language_model: bool = True
    """False for the library proposer: nothing may ask the model (no repairs, glue, adapters or votes)."""
    knowledge_base: Path | None = None
    """The documentation store's folder (None: $PHYSVEC_KB or the user's cache folder)."""
    sandbox_check: SandboxCheck | None = None
    """What the probe program found before the first verification (None: not run yet in this process)."""

    @property
    def sandbox_limits(self) -> SandboxLimits:
        limits = self.task.task.limits
        return SandboxLimits(wall_s=limits.sandbox_wall_s, memory_bytes=int(limits.sandbox_memory_gb * GiB))
