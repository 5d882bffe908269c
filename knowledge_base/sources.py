"""Documentation chunks harvested from installed packages, by reading their source (never importing it).

Importing every submodule of Qiskit or PySCF would be slow and can have side effects, so modules are
parsed with ``ast``: module docstrings, public functions and classes (names without a leading
underscore) with their signatures and docstrings, public methods, and the text documentation files a
package ships.  Each chunk starts with
a header naming the package, version and qualified name, and stays under ``CHUNK_CHARS`` (MiniLM-style
encoders truncate at 256 tokens, about 750 characters).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.metadata
import importlib.util
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

CHUNK_CHARS = 750
MAX_PARTS = 3
"""Long docstrings contribute their first parts only: the summary and parameters come first."""
CHUNKER_VERSION = "2"
BACKEND_PACKAGES = {"qiskit": ("qiskit", "qiskit_aer"), "netket": ("netket",), "tenpy": ("tenpy",),
                    "pyscf": ("pyscf",)}
JULIA_PACKAGES = {"itensors": ("ITensors", "ITensorMPS")}
"""Julia packages, harvested from the Julia depot (``JULIA_DEPOT_PATH`` or ~/.julia) where they exist."""
OWN_PACKAGE = "physvec"
OWN_LIBRARY = "physvec.verifiers.library"
"""Our verifier library, harvested beside the backends: the known-good functions an Author may compose."""
DISTRIBUTIONS = {"tenpy": "physics-tenpy", "qiskit_aer": "qiskit-aer"}
"""Import names whose distribution (for the version) is named otherwise."""
DOC_SUFFIXES = (".md", ".rst", ".txt")
_JULIA_DOCSTRING = re.compile(
    r'^"""\n(.*?)\n"""\n(?:@\w+\s+)?(?:function\s+|(?:mutable\s+)?struct\s+|abstract\s+type\s+|macro\s+|const\s+)?'
    r"([A-Za-z_][\w.!]*)([^\n]*)", re.MULTILINE | re.DOTALL)
_SKIPPED_PARTS = {"test", "tests", "testing", "examples", "benchmarks"}


@dataclass(frozen=True)
class Chunk:
    """One retrievable piece of documentation and where it comes from."""

    id: str
    text: str
    package: str
    version: str
    qualname: str
    kind: str
    source: str
    """the source file, as ``package:relative/path``: the unit of incremental rebuilds"""


@dataclass(frozen=True)
class SourceFile:
    """A file to harvest, with the digest that decides whether it must be re-embedded."""

    package: str
    version: str
    root: Path
    path: Path

    @property
    def key(self) -> str:
        return f"{self.package}:{self.path.relative_to(self.root).as_posix()}"

    def digest(self) -> str:
        return hashlib.sha256(self.path.read_bytes() + CHUNKER_VERSION.encode()).hexdigest()


def _package_root(package: str) -> Path | None:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _harvested(relative: Path) -> bool:
    """Test and example folders are skipped; underscore modules are kept, because libraries such as
    NetKet implement their public API there (netket/operator/_ising.py) and re-export it."""
    return not any(part in _SKIPPED_PARTS or part == "__pycache__" for part in relative.parts)


def package_files(package: str) -> list[SourceFile]:
    """The modules and documentation files of an installed package (none if it is not installed)."""
    root = _package_root(package)
    if root is None:
        return []
    version = _version(DISTRIBUTIONS.get(package, package))
    files = [path for path in sorted(root.rglob("*"))
             if path.is_file() and (path.suffix == ".py" or path.suffix in DOC_SUFFIXES)
             and _harvested(path.relative_to(root))]
    return [SourceFile(package, version, root, path) for path in files]


def _julia_version(root: Path) -> str:
    project = root / "Project.toml"
    match = re.search(r'^version\s*=\s*"([^"]+)"', project.read_text(), re.MULTILINE) if project.is_file() else None
    return match.group(1) if match else "unknown"


def julia_package_files(package: str) -> list[SourceFile]:
    """The sources (src/**/*.jl) and manual pages (docs/src/**/*.md) of a Julia package in the depot;
    the most recently installed version when several are there, none when Julia is absent."""
    depots = os.environ.get("JULIA_DEPOT_PATH", "").split(os.pathsep) if os.environ.get("JULIA_DEPOT_PATH") \
        else [str(Path.home() / ".julia")]
    installed = [folder for depot in depots if depot for folder in (Path(depot) / "packages" / package).glob("*")
                 if folder.is_dir()]
    if not installed:
        return []
    root = max(installed, key=lambda folder: folder.stat().st_mtime)
    version = _julia_version(root)
    files = sorted([*(root / "src").rglob("*.jl"), *(root / "docs" / "src").rglob("*.md")])
    return [SourceFile(package, version, root, path) for path in files if path.is_file()]


def searched_packages(backend: str) -> list[str]:
    """The packages a query about ``backend`` searches: the backend's own and our verifier library."""
    return [*BACKEND_PACKAGES.get(backend, ()), *JULIA_PACKAGES.get(backend, ()), OWN_PACKAGE]


def backend_files(backend: str) -> list[SourceFile]:
    return [file for package in BACKEND_PACKAGES.get(backend, ()) for file in package_files(package)] + \
        [file for package in JULIA_PACKAGES.get(backend, ()) for file in julia_package_files(package)]


def library_files() -> list[SourceFile]:
    """Our own verifier library: the known-good background functions an Author may compose."""
    root = _package_root(OWN_LIBRARY)
    if root is None:
        return []
    version = _version(OWN_PACKAGE)
    return [SourceFile(OWN_PACKAGE, version, root, path) for path in sorted(root.glob("*.py"))]


def documentation_files(backends: Iterable[str] = (*BACKEND_PACKAGES, *JULIA_PACKAGES)) -> list[SourceFile]:
    """Every source file a store is built from: the backends' packages and our verifier library."""
    return [file for backend in backends for file in backend_files(backend)] + library_files()


def _module_name(file: SourceFile) -> str:
    relative = file.path.relative_to(file.root).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([file.package, *parts] if file.package != OWN_PACKAGE else [OWN_LIBRARY, *parts])


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    arguments = ast.unparse(node.args)
    returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    return f"({arguments}){returns}"


def _parts(header: str, body: str) -> Iterator[str]:
    """The header, then the body in pieces that keep each chunk under CHUNK_CHARS."""
    room = max(200, CHUNK_CHARS - len(header) - 1)
    body = " ".join(body.split())
    pieces = [body[start:start + room] for start in range(0, len(body), room)] or [""]
    for piece in pieces[:MAX_PARTS]:
        yield f"{header}\n{piece}".strip()


def _items(tree: ast.Module, module: str) -> Iterator[tuple[str, str, str, str]]:
    """(qualified name, kind, signature line, docstring) of the module and its public API."""
    docstring = ast.get_docstring(tree)
    if docstring:
        yield module, "module", f"module {module}", docstring
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            yield f"{module}.{node.name}", "function", f"def {module}.{node.name}{_signature(node)}", \
                ast.get_docstring(node) or ""
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            init = next((child for child in node.body if isinstance(child, ast.FunctionDef)
                         and child.name == "__init__"), None)
            signature = _signature(init).replace("(self, ", "(").replace("(self)", "()") if init else "()"
            yield f"{module}.{node.name}", "class", f"class {module}.{node.name}{signature}", \
                ast.get_docstring(node) or ""
            for child in node.body:
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and not child.name.startswith("_") \
                        and ast.get_docstring(child):
                    yield f"{module}.{node.name}.{child.name}", "method", \
                        f"def {module}.{node.name}.{child.name}{_signature(child)}", ast.get_docstring(child) or ""


def _chunk_id(file: SourceFile, qualname: str, part: int) -> str:
    return hashlib.sha1(f"{file.key}|{qualname}|{part}".encode()).hexdigest()


def chunks_of(file: SourceFile) -> list[Chunk]:
    """Every chunk of one source file (empty for a file that does not parse)."""
    text = file.path.read_text(encoding="utf-8", errors="replace")
    chunks: list[Chunk] = []
    if file.path.suffix in DOC_SUFFIXES:
        name = f"{file.package}/{file.path.relative_to(file.root).as_posix()}"
        paragraphs = [p for p in text.split("\n\n") if p.strip()]
        buffer, index = "", 0
        for paragraph in paragraphs + [""]:
            if buffer and (not paragraph or len(buffer) + len(paragraph) > CHUNK_CHARS - 80):
                chunks.append(Chunk(_chunk_id(file, name, index), f"[{file.package} {file.version}] {name}\n{buffer}",
                                    file.package, file.version, name, "document", file.key))
                buffer, index = "", index + 1
            buffer = f"{buffer}\n\n{paragraph}".strip()[:CHUNK_CHARS - 80]
        return chunks
    if file.path.suffix == ".jl":
        return _api_chunks(file, _julia_items(text, file.package))
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    return _api_chunks(file, _items(tree, _module_name(file)))


def _julia_items(text: str, package: str) -> Iterator[tuple[str, str, str, str]]:
    """(qualified name, kind, signature line, docstring) of each documented definition in Julia source."""
    for match in _JULIA_DOCSTRING.finditer(text):
        docstring, name, rest = match.group(1), match.group(2), match.group(3)
        yield f"{package}.{name}", "function", f"{name}{rest.split(' =')[0].rstrip()}", docstring


def _api_chunks(file: SourceFile, items: Iterable[tuple[str, str, str, str]]) -> list[Chunk]:
    """Chunks of documented API items, each headed by package, version and signature line."""
    chunks: list[Chunk] = []
    seen: set[str] = set()
    for qualname, kind, signature, docstring in items:
        if qualname in seen:  # an overload, a method or a conditional redefinition: the first one documents it
            continue
        seen.add(qualname)
        header = f"[{file.package} {file.version}] {signature}"
        for part, body in enumerate(_parts(header[:CHUNK_CHARS - 200], docstring)):
            chunks.append(Chunk(_chunk_id(file, qualname, part), body, file.package, file.version, qualname, kind,
                                file.key))
    return chunks
