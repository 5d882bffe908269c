"""Task, rubric and assertion files: valid files load, every malformed one names its problem."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from physvec.cli.main import physvec_main, reproduce_main
from physvec.taskfiles.loading import load_assertions, load_rubric, load_task
from physvec.taskfiles.physvec_shape import infer_backend
from physvec.taskfiles.schemas import schema_texts

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "heisenberg_chain" / "task.json"


def test_the_example_task_loads_with_everything_it_references():
    loaded = load_task(EXAMPLE)
    assert loaded.task.backend == "tenpy"
    assert [s.name for s in loaded.rubric.sections][0] == "reproduction objective"
    assert loaded.assertions is not None and {a.kind for a in loaded.assertions.assertions} == {
        "limiting_case", "analytic_regime"}
    assert loaded.reference_path is not None and loaded.reference_path.name == "reference.json"


def test_rubric_leaves_are_depth_first():
    rubric = load_task(EXAMPLE).rubric
    leaves = [leaf.name for section in rubric.sections for leaf in section.leaves()]
    assert leaves[:2] == ["energies of every requested length", "isotropic antiferromagnet"]


def test_exported_schemas_are_up_to_date():
    for name, text in schema_texts().items():
        assert (REPO / "schemas" / name).read_text() == text, f"run `physvec schemas` to refresh {name}"


def _physvec_paper_task(folder: Path, **changes) -> Path:
    from pypdf import PdfWriter

    (folder / "papers").mkdir(parents=True, exist_ok=True)
    writer = PdfWriter()
    writer.add_blank_page(width=200, height=200)
    with (folder / "papers" / "white1992.pdf").open("wb") as stream:
        writer.write(stream)
    (folder / "white_rubric.json").write_text((REPO / "examples/heisenberg_chain/rubric.json").read_text())
    data = {"pdf_path": "papers", "pdf_name": "white1992.pdf", "subplot_name": "Fig. 2",
            "User_requests": ["Reproduce the DMRG energies of the Heisenberg chain."],
            "rubrics_name": "white_rubric", "LimitingCases": ["E(L=2) = -3/4"],
            "ConvergenceCases": "Energy converged in the number of kept states", **changes}
    path = folder / "paper_task.json"
    path.write_text(json.dumps(data))
    return path


def test_the_physvec_paper_task_shape_loads(tmp_path):
    loaded = load_task(_physvec_paper_task(tmp_path))
    task = loaded.task
    assert task.id == "paper_task" and task.backend == "tenpy"
    assert task.target.figure == "Fig. 2"
    assert task.limiting_cases == ["E(L=2) = -3/4"]
    assert task.convergence.notes == ["Energy converged in the number of kept states"]
    assert loaded.paper.name == "white1992.pdf" and loaded.rubric_path.name == "white_rubric.json"


@pytest.mark.parametrize(("text", "backend"), [
    ("ground state by DMRG", "tenpy"), ("an RBM ansatz", "netket"), ("Trotter circuit", "qiskit"),
    ("B3LYP dissociation", "pyscf"), ("a figure", None),
])
def test_backend_inference(text, backend):
    assert infer_backend(text) == backend


def _task_data() -> dict:
    return json.loads(EXAMPLE.read_text())


def _write_example_copy(folder: Path) -> None:
    for name in ("paper.md", "rubric.json", "assertions.json", "reference.json"):
        (folder / name).write_text((EXAMPLE.parent / name).read_text())


def _with(data: dict, path: str, value) -> dict:
    """A deep copy of ``data`` with the dotted ``path`` set (or deleted when value is ...)."""
    copy = json.loads(json.dumps(data))
    *parents, last = path.split(".")
    target = copy
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    if value is ...:
        del target[last]
    elif isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return copy


def _rubric() -> dict:
    """The example's rubric with its library templates filled in: a valid rubric written out in full."""
    return load_rubric(EXAMPLE.parent / "rubric.json").model_dump(mode="json", exclude_none=True)


def _assertions() -> dict:
    """The example's assertions with their library templates filled in."""
    return load_assertions(EXAMPLE.parent / "assertions.json").model_dump(mode="json", exclude_none=True)


# (case id, file name, file content, words the problem line must contain)
MALFORMED = [
    ("missing field", "task.json", _with(_task_data(), "request", ...), ["request", "Field required"]),
    ("wrong type", "task.json", _with(_task_data(), "limits.token_budget", "lots"), ["limits.token_budget"]),
    ("unknown key", "task.json", {**_task_data(), "requst": "x"}, ["requst", "unknown key"]),
    ("negative limit", "task.json", _with(_task_data(), "limits.programming_iterations", -1),
     ["limits.programming_iterations", "greater than or equal to 0"]),
    ("unknown backend", "task.json", _with(_task_data(), "backend", "lammps"), ["backend"]),
    ("paper format", "task.json", _with(_task_data(), "paper.path", "paper.docx"), ["paper.path", ".pdf"]),
    ("missing rubric file", "task.json", _with(_task_data(), "rubric", "nope.json"), ["rubric", "does not exist"]),
    ("missing paper file", "task.json", _with(_task_data(), "paper.path", "absent.tex"), ["paper.path", "does not exist"]),
    ("reference without tolerance", "task.json", _with(_task_data(), "reference.rtol", 0),
     ["reference", "rtol or atol"]),
    ("one-rung convergence ladder", "task.json", _with(_task_data(), "convergence.cases.0.ladder", [16]),
     ["convergence.cases.0.ladder"]),
    ("broken json", "task.json", '{"id": "x", "title": ', ["(json)", "line 1"]),
    ("not an object", "task.json", "[1, 2]", ["(json)", "object"]),
    ("rubric missing a section", "rubric.json", {"sections": _rubric()["sections"][:3]}, ["sections", "exactly"]),
    ("rubric check not a comparison", "rubric.json",
     _with(_rubric(), "sections.3.children.0.check", "__import__('os').system('x')"), ["check"]),
    ("rubric negative weight", "rubric.json", _with(_rubric(), "sections.0.weight", -2), ["sections.0.weight"]),
    ("assertion without tolerance", "assertions.json", _with(_assertions(), "assertions.0.atol", 0),
     ["assertions.0", "rtol or atol"]),
    ("assertion of unknown kind", "assertions.json", _with(_assertions(), "assertions.0.kind", "vibes"),
     ["assertions.0"]),
    ("assertion naming no run_ function", "assertions.json", _with(_assertions(), "assertions.1.run", "main"),
     ["assertions.1.analytic_regime.run"]),
    ("empty assertion file", "assertions.json", {"assertions": []}, ["assertions", "at least 1"]),
    ("unknown file kind", "other.json", {"hello": 1}, ["cannot tell the file kind"]),
]


@pytest.mark.parametrize(("name", "content", "words"), [case[1:] for case in MALFORMED],
                         ids=[case[0] for case in MALFORMED])
def test_malformed_files_exit_2_naming_the_problem(tmp_path, capsys, name, content, words):
    _write_example_copy(tmp_path)
    (tmp_path / "task.json").write_text(json.dumps(_task_data()))
    target = tmp_path / name
    target.write_text(content if isinstance(content, str) else json.dumps(content))
    checked = tmp_path / "task.json" if name in ("rubric.json", "assertions.json") else target
    assert physvec_main(["validate", str(checked)]) == 2
    output = capsys.readouterr().out
    line = next((line for line in output.splitlines() if all(word in line for word in words)), None)
    assert line is not None, f"no problem line with {words} in:\n{output}"
    assert line.startswith(str(target)), "the problem line must name the file at fault"


def test_all_problems_of_a_file_are_listed(tmp_path, capsys):
    _write_example_copy(tmp_path)
    data = _with(_with(_task_data(), "backend", "lammps"), "limits.sandbox_wall_s", -5)
    (tmp_path / "task.json").write_text(json.dumps(data))
    assert physvec_main(["validate", str(tmp_path / "task.json")]) == 2
    lines = capsys.readouterr().out.splitlines()
    assert any("backend" in line for line in lines) and any("limits.sandbox_wall_s" in line for line in lines)


def test_validate_accepts_valid_files(capsys):
    files = [EXAMPLE, EXAMPLE.parent / "rubric.json", EXAMPLE.parent / "assertions.json"]
    assert physvec_main(["validate", *map(str, files)]) == 0
    assert "3 file(s) valid" in capsys.readouterr().out


def test_physvec_paper_shape_without_a_method_needs_a_backend(tmp_path, capsys):
    path = _physvec_paper_task(tmp_path, User_requests="Reproduce the figure.")
    assert physvec_main(["validate", str(path)]) == 2
    assert "add \"backend\"" in capsys.readouterr().out


def test_reproduce_on_a_malformed_task_exits_2_without_traceback(tmp_path):
    _write_example_copy(tmp_path)
    (tmp_path / "task.json").write_text(json.dumps(_with(_task_data(), "rubric", "nope.json")))
    completed = subprocess.run(
        [sys.executable, "-c", "import sys; from physvec.cli.main import reproduce_main; sys.exit(reproduce_main())",
         str(tmp_path / "task.json"), "--model", "scripted:none.json", "--runs-dir", str(tmp_path / "runs")],
        capture_output=True, text=True, timeout=120,
    )
    assert completed.returncode == 2
    assert "rubric" in completed.stderr and "does not exist" in completed.stderr
    assert "Traceback" not in completed.stderr
    assert not (tmp_path / "runs").exists(), "no run directory for bad input"


@pytest.mark.parametrize(("arguments", "words"), [
    ([], "exactly one of"),
    (["{task}", "--model", "gpt4"], "must look like"),
    (["{task}", "--model", "claude:x"], "unknown model provider"),
    (["{task}", "--model", "scripted:/absent/replies.json"], "no such file"),
    (["{task}"], "no model configured"),
    (["--resume", "no-such-run"], "no run"),
    (["--replay", "/absent/run"], "not a run directory"),
])
def test_reproduce_bad_invocations_exit_2(tmp_path, capsys, monkeypatch, arguments, words):
    monkeypatch.delenv("PHYSVEC_MODEL", raising=False)
    arguments = [a.format(task=EXAMPLE) for a in arguments]
    assert reproduce_main([*arguments, "--runs-dir", str(tmp_path / "runs")]) == 2
    assert words in capsys.readouterr().err
