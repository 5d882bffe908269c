"""Scripted stand-ins for a language model: reply fixtures built from our fixture scripts.

The fixture script is correct; faults are injected by exact text replacement, so each variant
differs from it in one known place.
"""

from __future__ import annotations

import json
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
GOOD_SCRIPT = (FIXTURES / "tiny_task" / "script_good.py").read_text()


def variant(old: str, new: str, script: str = GOOD_SCRIPT) -> str:
    """The script with one exact replacement (fails loudly if ``old`` is not there)."""
    assert old in script, f"fixture script has no {old!r}"
    return script.replace(old, new, 1)


MISSPELLED = variant("np.linalg.eigvalsh(H)", "np.linalg.eigvalsh_(H)")
SLOW_AND_BROKEN = variant("def main() -> None:\n", "def main() -> None:\n    import time; time.sleep(4)\n    raise RuntimeError('broken')\n")
WRONG_SIGN = variant('PARAMS = {"L": 4, "J": 1.0}', 'PARAMS = {"L": 4, "J": -1.0}')


def fenced(script: str) -> str:
    return f"Here is the script.\n\n```python\n{script}```\n"


def write_replies(path: Path, *replies: str) -> Path:
    """A scripted-replies fixture file; a reply that looks like a script is fenced."""
    path.write_text(json.dumps({"replies": [fenced(r) if "def main" in r else r for r in replies]}))
    return path
