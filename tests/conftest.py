from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from physvec.verifiers.isolation import ALLOW_REDUCED_VARIABLE, probe
from tests.support.scripted import FIXTURES


@pytest.fixture(autouse=True)
def no_knowledge_base(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs are hermetic: no test reads a documentation store built on the developer's machine."""
    monkeypatch.setenv("PHYSVEC_KB", str(tmp_path_factory.getbasetemp() / "no-knowledge-base"))


@pytest.fixture(autouse=True)
def accept_reduced_isolation_without_bubblewrap(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where bubblewrap is missing (a developer's machine), runs are judged as if the user accepted reduced
    isolation, so the suite tests everything else; CI installs bubblewrap (.ci/run) and tests the real thing,
    and tests/verifiers/test_isolation.py covers both cases."""
    if not probe().full:
        monkeypatch.setenv(ALLOW_REDUCED_VARIABLE, "1")


@pytest.fixture
def tiny_task(tmp_path: Path) -> Path:
    """A copy of the tiny four-site Heisenberg task; returns its task.json."""
    folder = tmp_path / "tiny_task"
    shutil.copytree(FIXTURES / "tiny_task", folder)
    return folder / "task.json"


@pytest.fixture
def runs_dir(tmp_path: Path) -> Path:
    return tmp_path / "runs"
