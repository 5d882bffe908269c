"""The script contract's output files: main() writes results.json and figure.png in its directory.

Checked by code after a sandboxed execution: results must be a JSON object of finite numbers, the
figure a PNG image.
"""

from __future__ import annotations

import json
from pathlib import Path

from physvec.verifiers.certificate import Obligation, Outcome
from physvec.verifiers.finite import non_finite_paths

RESULTS_FILE = "results.json"
FIGURE_FILE = "figure.png"
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def results_obligation(workdir: Path) -> Obligation:
    """results.json exists, is a JSON object, and holds only finite numbers."""
    name, category = "results_written", "execution"
    path = workdir / RESULTS_FILE
    if not path.is_file():
        return Obligation(name=name, category=category, outcome=Outcome.FAILED,
                          message=f"main() wrote no {RESULTS_FILE}")
    try:
        results = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        return Obligation(name=name, category=category, outcome=Outcome.FAILED,
                          message=f"{RESULTS_FILE} is not valid JSON: {error}")
    if not isinstance(results, dict):
        return Obligation(name=name, category=category, outcome=Outcome.FAILED,
                          message=f"{RESULTS_FILE} must hold an object of named results")
    bad = non_finite_paths(results, "results")
    if bad:
        return Obligation(name=name, category=category, outcome=Outcome.FAILED,
                          message=f"non-finite numbers in results: {', '.join(bad[:5])}", evidence={"paths": bad})
    return Obligation(name=name, category=category, outcome=Outcome.CERTIFIED,
                      message=f"{len(results)} named results", evidence={"keys": sorted(results)})


def figure_obligation(workdir: Path) -> Obligation:
    """figure.png exists and is a PNG image."""
    path = workdir / FIGURE_FILE
    is_png = path.is_file() and path.read_bytes()[:8] == _PNG_SIGNATURE
    return Obligation(name="figure_written", category="execution",
                      outcome=Outcome.CERTIFIED if is_png else Outcome.FAILED,
                      message=f"{FIGURE_FILE} written" if is_png else f"main() wrote no PNG {FIGURE_FILE}")
