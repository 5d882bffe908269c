"""The published benchmark's files load as published: every one validates (the 95 whose rubric upstream never
published with the default rubric), or fails with exactly the named missing file, and no input gives a traceback.  The files are read from ../shared at run time
(never copied into the project); the tests that need them are skipped where that folder is absent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from physvec.cli.main import physvec_main
from physvec.cli.qmp_bench import main as qmp_bench_main
from physvec.cli.validate import validate_input_file
from physvec.taskfiles.default_rubric import NO_PUBLISHED_RUBRIC
from physvec.taskfiles.loading import load_task
from physvec.taskfiles.physvec_shape import infer_backend

UPSTREAM = Path(__file__).resolve().parents[3] / "shared" / "data" / "upstream_qmp"
needs_upstream = pytest.mark.skipif(not (UPSTREAM / "tasks").is_dir(),
                                    reason=f"the published task files are not at {UPSTREAM}")
TASK_FILES = sorted((UPSTREAM / "tasks").glob("*/*.json")) if (UPSTREAM / "tasks").is_dir() else []
PUBLISHED_RUBRICS = {path.name for path in (UPSTREAM / "rubrics").glob("*.json")} if UPSTREAM.is_dir() else set()


def _upstream(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8-sig"))


def _fields(problems) -> list[str]:
    return sorted(problem.field for problem in problems)


@needs_upstream
def test_the_published_files_are_all_there():
    assert len(TASK_FILES) == 100 and len(PUBLISHED_RUBRICS) == 5


@needs_upstream
@pytest.mark.parametrize("path", TASK_FILES, ids=lambda path: path.name)
def test_each_published_task_fails_only_on_the_paper_the_copy_lacks(path):
    """The shared copy holds no paper sources: that is the one problem named.  The 95 rubrics upstream never
    published are not a problem (the default rubric stands in)."""
    data = _upstream(path)
    problems = validate_input_file(path)
    assert _fields(problems) == ["paper.path"], [str(problem) for problem in problems]
    assert f"'{data['pdf_name']}.tex' does not exist" in problems[0].message


@needs_upstream
@pytest.mark.parametrize("name", sorted(PUBLISHED_RUBRICS))
def test_each_published_rubric_tree_validates(name, capsys):
    assert physvec_main(["validate", str(UPSTREAM / "rubrics" / name)]) == 0, capsys.readouterr().out


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """A checkout in upstream's layout: Paper_dataset/<topic>/tasks, <topic>/<pdf_path>/*.tex (placeholders
    written here, in our words) and Rubrics/dmrg/ with the published trees."""
    if not TASK_FILES:
        pytest.skip(f"the published task files are not at {UPSTREAM}")
    root = tmp_path_factory.mktemp("checkout") / "Paper_dataset"
    for path in TASK_FILES:
        data = _upstream(path)
        topic = root / path.parent.name
        (topic / "tasks").mkdir(parents=True, exist_ok=True)
        shutil.copy(path, topic / "tasks" / path.name)
        (topic / data["pdf_path"]).mkdir(parents=True, exist_ok=True)
        (topic / data["pdf_path"] / f"{data['pdf_name']}.tex").write_text("% placeholder paper source\n")
    (root / "Rubrics" / "dmrg").mkdir(parents=True)
    for name in PUBLISHED_RUBRICS:
        shutil.copy(UPSTREAM / "rubrics" / name, root / "Rubrics" / "dmrg" / name)
    return root


@needs_upstream
def test_in_a_checkout_all_100_tasks_load_and_95_say_their_rubric_is_the_default(checkout):
    published, defaulted = [], []
    for path in sorted(checkout.glob("*/tasks/*.json")):
        assert validate_input_file(path) == [], path.name
        loaded = load_task(path)
        (defaulted if loaded.rubric.note else published).append(path.name)
        if loaded.rubric.note:
            assert loaded.rubric.note == NO_PUBLISHED_RUBRIC and loaded.rubric_path is None
            assert [section.name for section in loaded.rubric.sections] == [
                "reproduction objective", "physical system", "computational method", "parameters"]
            assert [section.weight for section in loaded.rubric.sections] == [0.1, 0.3, 0.3, 0.3]
    assert len(published) == 5 and len(defaulted) == 95
    assert {"task_dmrg_7_2.json", "task_dmrg_2_2.json", "task_dmrg_9_1.json"} <= set(published)


@needs_upstream
def test_a_defaulted_rubric_keeps_every_converted_check_of_the_task(checkout):
    """Loading with the default rubric drops nothing: the converted truths and convergence ladders stay."""
    loaded = load_task(checkout / "dmrg" / "tasks" / "task_dmrg_2_3.json")
    assert loaded.rubric.note == NO_PUBLISHED_RUBRIC
    assert len(loaded.task.convergence.cases) == 1, "the convergence ladder upstream states is kept"
    assert loaded.assertions is not None and len(loaded.assertions.assertions) == 6, "and its six converted truths"
    method = loaded.rubric.sections[2].children
    assert method and all(leaf.name for leaf in method), "the method leaf comes from the rubric library"


def test_a_task_of_our_own_with_a_missing_rubric_is_still_refused(tmp_path):
    """Only a published task gets the default: a user's own task that names a missing rubric file fails."""
    (tmp_path / "paper.md").write_text("# a paper\n")
    (tmp_path / "task.json").write_text(json.dumps({
        "id": "own", "title": "own", "paper": {"path": "paper.md"}, "target": {"figure": "Fig. 1"},
        "request": "the energy", "backend": "tenpy", "rubric": "missing_rubric.json"}))
    assert _fields(validate_input_file(tmp_path / "task.json")) == ["rubric"]


@needs_upstream
def test_a_loaded_upstream_task_demands_itensors_and_carries_converted_checks(checkout):
    loaded = load_task(checkout / "dmrg" / "tasks" / "task_dmrg_7_2.json")
    assert loaded.task.backend == "itensors" and loaded.paper.name == "PhysRevLett.100.110403.tex"
    assert loaded.assertions is not None and len(loaded.assertions.assertions) == 6
    assert [case.parameter for case in loaded.task.convergence.cases] == ["nsweeps"]
    assert "run_figure(**params)" in loaded.task.request and "nsweeps" in loaded.task.request
    assert "-0.236" not in loaded.task.request, "an expected value never reaches the request"


def _quirky_task(folder: Path, **changes) -> Path:
    """A task in upstream's shape and layout, in our own words."""
    (folder / "demo" / "tasks").mkdir(parents=True, exist_ok=True)
    (folder / "demo" / "sources").mkdir(exist_ok=True)
    (folder / "demo" / "tasks" / "rubric.json").write_text(json.dumps({
        "source": "demo", "guide_caption": "demo", "task": "demo", "weight": "1", "children": [
            {"id": str(i), "statement": statement, "weight": "0.25", "children": [
                {"issue": f"A leaf about the {statement}.", "weight": "1", "children": {"judge": "TBD", "support": ""}}]}
            for i, statement in enumerate(("Code correctness", "Model", "Method", "Parameters"))]}))
    data = {"pdf_path": "sources", "pdf_name": "Phys.Rev.1.23", "subplot_name": "Fig._1",
            "User_requests": "Reproduce the energy of the chain with DMRG. You MUST use ITensors.",
            "rubrics_name": "rubric.json", **changes}
    path = folder / "demo" / "tasks" / "task.json"
    path.write_text(json.dumps(data))
    return path


def test_a_dotted_paper_name_finds_its_tex_beside_the_tasks_folder(tmp_path):
    path = _quirky_task(tmp_path)
    (tmp_path / "demo" / "sources" / "Phys.Rev.1.23.tex").write_text("% our placeholder\n")
    assert validate_input_file(path) == []
    assert load_task(path).paper == (tmp_path / "demo" / "sources" / "Phys.Rev.1.23.tex").resolve()


def test_a_missing_tex_is_named_with_every_place_searched(tmp_path):
    problems = validate_input_file(_quirky_task(tmp_path))
    assert _fields(problems) == ["paper.path"]
    assert "'Phys.Rev.1.23.tex' does not exist" in problems[0].message
    assert "../sources/Phys.Rev.1.23.tex" in problems[0].message


def test_crlf_a_byte_order_mark_and_zero_width_characters_are_read_through(tmp_path):
    path = _quirky_task(tmp_path, subplot_name="Fig.\u200b_2\u200d")
    (tmp_path / "demo" / "sources" / "Phys.Rev.1.23.tex").write_text("% placeholder\n")
    path.write_bytes(b"\xef\xbb\xbf" + path.read_text().replace(", ", ",\r\n").encode())
    assert validate_input_file(path) == []
    assert load_task(path).task.target.figure == "Fig._2"


@pytest.mark.parametrize("content", [
    "{\"pdf_path\": 3", "[" * 20000, "\x00\x01binary", '{"pdf_name": "x", "subplot_name": "y"}',
    '{"pdf_name": "x", "subplot_name": "y", "User_requests": "no method here", "rubrics_name": "r"}',
    '{"pdf_name": "x", "subplot_name": "y", "User_requests": 5, "rubrics_name": "r", "LimitingCases": [{"a": 1}]}',
])
def test_no_malformed_upstream_file_gives_a_traceback(tmp_path, capsys, content):
    path = tmp_path / "task.json"
    path.write_text(content)
    assert physvec_main(["validate", str(path)]) == 2
    assert "Traceback" not in capsys.readouterr().out


@pytest.mark.parametrize(("request_text", "backend"), [
    ("Compute the phase diagram with DMRG. You MUST use ITensors and ITensorMPS packages.", "itensors"),
    ("Ground state of the ladder by DMRG.", "tenpy"),
    ("Train an RBM with NetKet (netket) to get the energy.", "netket"),
    ("Simulate the quench with a Trotter circuit in Qiskit.", "qiskit"),
    ("Reproduce the K-edge XAS spectrum with LR-TDDFT.", "orca"),
    ("Compute the valence-to-core XES from the %xes block.", "orca"),
    ("Set up a geometry optimization of the structure.", "orca"),
    ("Compute the HOMO and LUMO of the molecule.", "pyscf"),
    ("Reproduce the figure.", None),
])
def test_the_backend_is_the_one_the_request_demands(request_text, backend):
    assert infer_backend(request_text) == backend


@pytest.mark.parametrize(("topic", "backend"), [("dft_qc", "orca"), ("dmrg", "itensors"), ("qcmb", "qiskit"),
                                                ("nnwf", "netket"), ("elsewhere", "pyscf")])
def test_a_request_naming_no_package_demands_its_topics_package(topic, backend):
    """Upstream runs every dft_qc task in ORCA: HOMO/LUMO words that PySCF also covers do not route it there."""
    assert infer_backend("Compute the HOMO and LUMO of the molecule.", topic) == backend


def test_a_package_the_request_names_wins_over_the_topic():
    assert infer_backend("Use PySCF for the Hartree-Fock energy.", "dft_qc") == "pyscf"


@needs_upstream
def test_every_published_dft_qc_task_demands_orca_and_every_dmrg_task_itensors(checkout):
    demanded = {path.parent.parent.name + "/" + path.name: load_task(path).task.backend
                for path in checkout.glob("*/tasks/*.json")}
    assert demanded["dft_qc/task_dft_qc_4_1.json"] == "orca"
    assert {backend for name, backend in demanded.items() if name.startswith("dft_qc/")} == {"orca"}
    assert {backend for name, backend in demanded.items() if name.startswith("dmrg/")} == {"itensors"}


@needs_upstream
@pytest.mark.parametrize("given", ["root", "Paper_dataset"])
def test_upstream_status_reads_a_checkout_from_its_root_or_its_paper_dataset(checkout, given, capsys):
    """The README says to point `qmp-bench upstream status` at the checkout; its root works like Paper_dataset/."""
    folder = checkout.parent if given == "root" else checkout
    assert qmp_bench_main(["upstream", "status", str(folder), "--campaign", str(checkout.parent / "none")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "100 of 100 load as they are (95 with the default rubric: upstream published none)" in out
