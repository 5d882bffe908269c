"""The built wheel installs one import namespace, physvec.*, and coexists with packages that own the generic
top-level names (``agents`` is the OpenAI Agents SDK's, ``verifiers`` an RL-environments package's)."""

from __future__ import annotations

import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_NOT_SOURCES = shutil.ignore_patterns(".git", ".venv", "runs", "build", "dist", "*.egg-info", "__pycache__",
                                      ".pytest_cache", "qmp-campaign", "qmp-faults")


def _run(argv: list[str], cwd: Path) -> str:
    result = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"{argv} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from a copy of the sources (the working tree is left untouched)."""
    source = tmp_path_factory.mktemp("source") / "physvec"
    shutil.copytree(REPO, source, ignore=_NOT_SOURCES)
    dist = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), "."],
         source)
    return next(dist.glob("physvec-*.whl"))


@pytest.mark.slow
def test_the_wheel_installs_nothing_but_physvec_at_top_level(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert {name.split("/")[0] for name in names} == {"physvec", wheel.name.split("-py")[0] + ".dist-info"}
    for expected in ("physvec/agents/prompts/author.j2", "physvec/verifiers/phact/goals/rc_filter/mains-hum-low-pass.json",
                     "physvec/rubrics/dmrg.json", "physvec/assertions/symmetries.json",
                     "physvec/runstore/templates/report.html.j2"):
        assert expected in names


@pytest.mark.slow
def test_the_wheel_coexists_with_packages_named_agents_and_verifiers(wheel, tmp_path):
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path)
    python = venv / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], tmp_path)
    packages = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         tmp_path).strip())
    for stub in ("agents", "verifiers"):
        (packages / stub).mkdir()
        (packages / stub / "__init__.py").write_text(f"OWNER = 'the other {stub} package'\n")
    # physvec's dependencies come from this environment, appended after the fresh venv's own packages.
    (packages / "dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    probe = (
        "import agents, verifiers, physvec.agents.pipeline, physvec.verifiers.certificate, physvec.cli.main\n"
        "assert agents.OWNER == 'the other agents package' and verifiers.OWNER == 'the other verifiers package'\n"
        f"assert physvec.agents.__file__.startswith({str(packages)!r}), physvec.agents.__file__\n"
        "print('both import')\n"
    )
    assert "both import" in _run([str(python), "-c", probe], tmp_path)
    # The installed rubric and assertion libraries resolve the templates of a task away from the sources.
    example = tmp_path / "example"
    shutil.copytree(REPO / "examples" / "heisenberg_chain", example)
    output = _run([str(venv / "bin" / "physvec"), "validate", "task.json", "rubric.json", "assertions.json"], example)
    assert "3 file(s) valid" in output
