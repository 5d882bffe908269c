"""A real sandbox pool that also remembers how many programs each parallel batch held (how checks schedule)."""

from __future__ import annotations

from collections.abc import Sequence

from physvec.verifiers.sandbox import SandboxJob, SandboxPool, SandboxResult


class BatchRecordingPool(SandboxPool):
    def __init__(self, cores: int) -> None:
        super().__init__(cores=cores)
        self.batches: list[int] = []

    def run_all(self, jobs: Sequence[SandboxJob]) -> list[SandboxResult]:
        self.batches.append(len(jobs))
        return super().run_all(jobs)
