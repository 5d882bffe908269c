"""Numbers decoded from bytes or text: typed numbers by another spelling.

Constant folding (integrity.py) reads a number typed as a literal, a string or a sum of parts.  A number can
also be typed as the bytes of a double (``struct.unpack("<d", bytes([...]))``), a hex float
(``float.fromhex("-0x1.91b9p+4")``), an integer's bytes (``int.from_bytes``), base64, a pickle, a numpy
buffer (``np.frombuffer``, ``np.ndarray(buffer=...)``), an integer array reinterpreted as floats
(``.view(np.float64)``), a number in another base (``int("7f3a", 16)``) or character codes (``chr(45) +
chr(50)``), and no folding of the source can say which number that makes.  A physics script has no reason to decode its numbers, so the decoding itself is
the finding, whatever value it makes:

- importing a module made for turning bytes into values (struct, base64, binascii, codecs, pickle, marshal,
  array, the compressors);
- naming a decoding attribute of anything (``fromhex``, ``from_bytes``, ``frombuffer``, ``unpack``,
  ``b64decode``, ``literal_eval``, ...), called or passed as a value (``map(float.fromhex, parts)``), or
  looking one up by its name (``getattr(float, "fromhex")``);
- calling ``eval``, ``exec`` or ``compile`` (text run as code), ``chr``, ``bytes`` or ``bytearray`` of
  something, ``.view`` with a dtype, ``int`` with a base, or ``json.loads`` of a string typed in the script
  (``json.loads`` of a file the script wrote is its own results, not decoding).

The script contract (verifiers/programming/surroundings.py) already bans computed attribute names,
``__import__``, importlib and the interpreter's dunders, through which a decoder could be reached without
being named.  Numbers built by arithmetic through variables (``x = 10 * x + d`` over digits) are beyond a
reading of the source; they are left to the checks that move parameters and to the independent values.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

DECODING_MODULES = frozenset({"struct", "_struct", "base64", "binascii", "codecs", "_codecs", "pickle", "_pickle",
                              "cPickle", "marshal", "array", "zlib", "bz2", "lzma", "gzip", "quopri", "shelve",
                              "copyreg", "xdrlib"})
"""Modules whose job is turning bytes or text into values."""
DECODING_ATTRIBUTES = frozenset({
    "fromhex", "from_bytes", "frombuffer", "frombytes", "fromstring", "fromfile", "unpack", "unpack_from",
    "iter_unpack", "literal_eval", "b64decode", "b32decode", "b16decode", "b85decode", "a85decode",
    "urlsafe_b64decode", "standard_b64decode", "decodebytes", "unhexlify", "a2b_hex", "a2b_base64",
    "a2b_uu", "a2b_qp"})
"""Attribute names that decode whatever they belong to: ``float.fromhex``, ``np.frombuffer``, ``s.unpack``."""
TEXT_AS_CODE = frozenset({"eval", "exec", "compile"})
BYTE_BUILDERS = frozenset({"chr", "bytes", "bytearray", "memoryview"})
"""Calls that make characters or bytes out of numbers: the raw material of a decoded number."""


@dataclass(frozen=True)
class Decoding:
    """One place where the script decodes a value instead of computing it."""

    line: int
    what: str


def _imported_modules(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
        yield node.module
        yield from (f"{node.module}.{alias.name}" for alias in node.names)


def _decoding_import(node: ast.AST) -> str | None:
    for module in _imported_modules(node):
        if module.split(".")[0] in DECODING_MODULES:
            return f"imports {module.split('.')[0]}, a module that turns bytes into values"
        if module.rsplit(".", 1)[-1] in DECODING_ATTRIBUTES:
            return f"imports {module}, a decoder"
    return None


def _constant_text(node: ast.AST) -> bool:
    """A string made of constants only: literals, their joins, an f-string of constants."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (str, bytes))
    if isinstance(node, ast.BinOp):
        return _constant_text(node.left) and _constant_text(node.right)
    if isinstance(node, ast.JoinedStr):
        return all(isinstance(part, ast.Constant) or _constant_text(part.value) for part in node.values)
    return False


def _called_name(call: ast.Call) -> str | None:
    function = call.func
    return function.id if isinstance(function, ast.Name) else function.attr if isinstance(function, ast.Attribute) \
        else None


def _decoding_call(call: ast.Call) -> str | None:
    name = _called_name(call)
    if isinstance(call.func, ast.Name) and name in TEXT_AS_CODE:
        return f"runs text as code with {name}()"
    if isinstance(call.func, ast.Name) and name in BYTE_BUILDERS and (call.args or call.keywords):
        return f"builds characters or bytes with {name}()"
    if isinstance(call.func, ast.Name) and name == "int" and (len(call.args) > 1 or call.keywords):
        return "reads an integer in another base with int(text, base)"
    if name == "view" and (call.args or call.keywords):
        return "reinterprets an array's bytes with .view(dtype)"
    if any(keyword.arg == "buffer" for keyword in call.keywords):
        return f"reads an array out of a buffer with {name}(buffer=...)"
    if name in ("getattr", "hasattr") and len(call.args) > 1 and isinstance(call.args[1], ast.Constant) \
            and call.args[1].value in DECODING_ATTRIBUTES:
        return f"looks up the decoder {call.args[1].value} by name"
    if name in ("loads", "load") and call.args and _constant_text(call.args[0]):
        return f"decodes a string typed in the script with {name}()"
    return None


def decodings(tree: ast.AST) -> list[Decoding]:
    """Every place the script decodes a value from bytes or text, in line order."""
    found = []
    for node in ast.walk(tree):
        what = None
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            what = _decoding_import(node)
        elif isinstance(node, ast.Attribute) and node.attr in DECODING_ATTRIBUTES:
            what = f"uses the decoder .{node.attr}"
        elif isinstance(node, ast.Call):
            what = _decoding_call(node)
        if what is not None:
            found.append(Decoding(node.lineno, what))
    return sorted(set(found), key=lambda decoding: (decoding.line, decoding.what))
