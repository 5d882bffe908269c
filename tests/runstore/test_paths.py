"""Machine paths in what a run stores become relative or named, so a run folder reads the same anywhere."""

from __future__ import annotations

import sysconfig
from pathlib import Path

from physvec.runstore.paths import SOURCE_ROOT, portable, portable_text


def test_a_traceback_names_the_run_folder_relatively_and_physvec_by_its_own_paths(tmp_path):
    run = tmp_path / "runs" / "20260101-000000-task-0000"
    harness = SOURCE_ROOT / "verifiers" / "programming" / "harness.py"
    numpy = Path(sysconfig.get_paths()["purelib"]) / "numpy" / "linalg" / "_linalg.py"
    traceback = (f'  File "{harness}", line 348, in _attempt\n  File "{run}/work/v01-programming/script.py", line 3\n'
                 f'  File "{numpy}", line 9\n')
    assert portable_text(traceback, run) == (
        '  File "verifiers/programming/harness.py", line 348, in _attempt\n'
        '  File "work/v01-programming/script.py", line 3\n  File "<site-packages>/numpy/linalg/_linalg.py", line 9\n')


def test_nested_evidence_is_rewritten_and_other_values_are_left_alone(tmp_path):
    evidence = {"returncode": 1, "tail": [f"{tmp_path}/work/out.txt", "a/b"], "ok": True, "sandbox": "/sandbox/work"}
    assert portable(evidence, tmp_path) == {"returncode": 1, "tail": ["work/out.txt", "a/b"], "ok": True,
                                            "sandbox": "/sandbox/work"}
