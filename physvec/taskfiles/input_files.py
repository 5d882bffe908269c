"""Reading a file someone handed us: every way it can be unreadable is one sentence, never a traceback.

Every command reads its JSON inputs (tasks, rubrics, claims, goals, designs, scripted replies) through
``read_json_input``.  What it refuses, and why:

- a folder, a missing file or a broken link: said as such;
- special files, also behind a link (``/dev/zero`` read forever; ``/proc/self/environ`` holds the
  environment, keys included): anything that is not a regular file, or lies under /proc, /sys or /dev;
- more than MAX_INPUT_BYTES (read bounded, so a huge file costs nothing);
- not UTF-8, not JSON, nested deeper than the parser's stack, integers beyond Python's conversion limit;
- non-finite numbers (``NaN``, ``Infinity``): JSON has none, and a tolerance or a time limit of Infinity
  only crashes later, mid-run.
"""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path
from typing import Any

MAX_INPUT_BYTES = 16 * 1024 * 1024
SPECIAL_ROOTS = (Path("/proc"), Path("/sys"), Path("/dev"))


class UnreadableInput(ValueError):
    """The file cannot be used as input; the message names the file and why."""


def file_problem(path: Path, limit: int = MAX_INPUT_BYTES) -> str | None:
    """Why ``path`` is not a readable regular input file, or None when it is one."""
    path = Path(path)
    if path.is_symlink() and not path.exists():
        return "a broken link"
    if not path.exists():
        return "no such file"
    resolved = path.resolve()
    if resolved.is_dir():
        return "a folder, not a file"
    if any(resolved.is_relative_to(root) for root in SPECIAL_ROOTS) or not stat.S_ISREG(resolved.stat().st_mode):
        shown = f" ({resolved})" if resolved != path.absolute() else ""
        return f"a special file{shown}, refused: inputs are regular files"
    size = resolved.stat().st_size
    if size > limit:
        return f"{size:,} bytes, more than the {limit // (1024 * 1024)} MiB an input may have"
    return None


def read_input_text(path: Path, limit: int = MAX_INPUT_BYTES) -> str:
    """The UTF-8 text of a regular file (a byte-order mark dropped); UnreadableInput says why not."""
    problem = file_problem(path, limit)
    if problem is not None:
        raise UnreadableInput(f"{path}: {problem}")
    try:
        with Path(path).open("rb") as stream:
            data = stream.read(limit + 1)
    except OSError as error:
        raise UnreadableInput(f"{path}: cannot be read: {error.strerror or error}") from None
    if len(data) > limit:
        raise UnreadableInput(f"{path}: more than the {limit // (1024 * 1024)} MiB an input may have")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise UnreadableInput(f"{path}: not UTF-8 text (byte {error.start})") from None


class _NonFinite(float):
    """A NaN or infinity as JSON text wrote it, kept until the reader can say where it stands."""

    word: str

    def __new__(cls, word: str) -> _NonFinite:
        number = super().__new__(cls, float(word))
        number.word = word
        return number


def _finite_float(text: str) -> float:
    value = float(text)
    return _NonFinite(text) if value in (float("inf"), float("-inf")) else value


def _first_non_finite(data: Any, where: str) -> tuple[str, str] | None:
    """(path, word) of the first non-finite number in parsed JSON."""
    if isinstance(data, _NonFinite):
        return where, data.word
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        found = _first_non_finite(value, f"{where}.{key}" if where else str(key))
        if found is not None:
            return found
    return None


def parse_json_text(text: str, path: Path, field_prefix: str = "") -> Any:
    """JSON of ``text`` read from ``path``, finite numbers only (a NaN or infinity is named by its field,
    prefixed with ``field_prefix``); UnreadableInput says why not."""
    try:
        data = json.loads(text, parse_constant=_NonFinite, parse_float=_finite_float)
    except json.JSONDecodeError as error:
        raise UnreadableInput(f"{path}: not JSON (line {error.lineno} column {error.colno}: {error.msg})") from None
    except RecursionError:
        raise UnreadableInput(f"{path}: JSON nested too deeply to read") from None
    except ValueError as error:  # an integer with more digits than Python converts
        raise UnreadableInput(f"{path}: unreadable JSON ({str(error).split(';')[0]})") from None
    try:
        found = _first_non_finite(data, field_prefix.rstrip("."))
    except RecursionError:
        raise UnreadableInput(f"{path}: JSON nested too deeply to read") from None
    if found is not None:
        field, word = found
        raise UnreadableInput(f"{path}: {field or '(top level)'}: non-finite number {word} (JSON has none; give a "
                              "finite value)")
    if _SURROGATE.search(text) and _holds_lone_surrogate(data):
        raise UnreadableInput(f"{path}: a string holds a lone surrogate (a \\ud800-\\udfff escape that is half of "
                              "a character): not text, and no report could be written with it")
    return data


_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
"""A surrogate escape in the JSON text: only then can a decoded string hold half of a character."""


def _holds_lone_surrogate(data: Any) -> bool:
    """Whether any string in the decoded JSON cannot be written as UTF-8 (a surrogate without its pair)."""
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def read_json_input(path: Path, limit: int = MAX_INPUT_BYTES, field_prefix: str = "") -> Any:
    """The JSON in ``path``, through every refusal above."""
    return parse_json_text(read_input_text(path, limit), path, field_prefix)
