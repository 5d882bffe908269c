"""A run folder is opened on other machines (mailed, archived, served by `physvec view`): no file in it names
a folder of the machine that made it."""

from __future__ import annotations

import sys
from pathlib import Path

from physvec.runstore.store import RunDirectory

REPO = Path(__file__).resolve().parents[2]


def machine_paths(run: RunDirectory) -> set[str]:
    """Absolute folders of this machine a run could pick up: where it was made, the checkout, the Python
    installation and the home folder."""
    return {str(run.path.parent), str(REPO), sys.prefix, sys.base_prefix, str(Path.home())}


def test_no_file_of_the_readme_example_run_names_an_absolute_path_of_this_machine(example_runs):
    run = example_runs["readme"]
    found = {f"{path.relative_to(run.path)}: {prefix}" for path in run.path.rglob("*") if path.is_file()
             for prefix in machine_paths(run) if prefix.encode() in path.read_bytes()}
    assert found == set()
