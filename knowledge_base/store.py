"""The knowledge base: a chromadb store of documentation chunks, built incrementally, queried hybrid.

Dense retrieval runs in chromadb (PersistentClient, telemetry off, the embedding function passed
explicitly so chromadb never rebuilds or downloads one); lexical retrieval is BM25 (bm25s) over the
same chunks; a query fuses both by reciprocal rank.  A manifest of source-file digests makes rebuilds
incremental: an unchanged file is not re-embedded, a changed one has its chunks replaced, a vanished
one has them deleted.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from physvec.knowledge_base.sources import Chunk, SourceFile, chunks_of
from physvec.knowledge_base.terms import words

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")  # onnxruntime, imported by chromadb, phones home otherwise
# chromadb and bm25s are imported where a store is opened: they take seconds, and `reproduce` without a
# built store never needs them

COLLECTION = "documentation"
MANIFEST = "manifest.json"
CONFIG = "config.json"
EMBEDDINGS = ("hash", "minilm")
DEFAULT_MODES: dict[str, Mode] = {"hash": "lexical", "minilm": "hybrid"}
"""The query mode measured best per embedding by benchmarks/retrieval_quality.py (hit@5, 48 questions):
hash store lexical 0.79, dense 0.75, hybrid 0.73; MiniLM alone 0.73, MiniLM fused with BM25 0.81."""
BM25_DIR = "bm25"
FUSION_K = 60
"""Reciprocal-rank-fusion constant: a document's score is the sum of 1 / (FUSION_K + rank) over rankings."""
Mode = Literal["hybrid", "dense", "lexical"]

Progress = Callable[[int, int, str], None]
"""(files done, files in all, current file key)."""


def lexical_terms(document: str) -> list[str]:
    """BM25 terms of a chunk: the header (package, kind, qualified name, signature) counts twice.

    Measured on knowledge_base/questions.json: hit@5 0.71 with the header once, 0.79 twice or thrice."""
    header, _, body = document.partition("\n")
    return words(header) * 2 + words(body)


def reciprocal_rank_fusion(rankings: Sequence[Sequence[str]]) -> dict[str, float]:
    """Each id's fused score: the sum of 1 / (FUSION_K + rank) over the rankings it appears in."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking):
            scores[item] = scores.get(item, 0.0) + 1.0 / (FUSION_K + rank + 1)
    return scores


def default_path() -> Path:
    """$PHYSVEC_KB, else the user's cache folder."""
    if os.environ.get("PHYSVEC_KB"):
        return Path(os.environ["PHYSVEC_KB"])
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return cache / "physvec" / "knowledge_base"


@dataclass(frozen=True)
class Snippet:
    """One retrieved chunk with where it comes from."""

    text: str
    package: str
    version: str
    qualname: str
    kind: str
    score: float


@dataclass(frozen=True)
class BuildReport:
    files: int
    embedded_files: int
    embedded_chunks: int
    unchanged_files: int
    removed_files: int
    total_chunks: int


def _embedding_function(name: str) -> Any:
    if name == "minilm":
        from physvec.knowledge_base.minilm import MiniLMEmbedding

        return MiniLMEmbedding()
    from physvec.knowledge_base.embedding import IdentifierHashEmbedding

    return IdentifierHashEmbedding()


class KnowledgeBase:
    """One store folder: the chromadb database, the BM25 index, the manifest and the embedding's name.

    A store keeps the embedding it was built with; asking for another one is an error (the vectors
    would not be comparable), so a second embedding gets a second folder.
    """

    def __init__(self, path: Path | None = None, embedding: str | None = None) -> None:
        self.path = Path(path or default_path())
        self.path.mkdir(parents=True, exist_ok=True)
        config_file = self.path / CONFIG
        built_with = json.loads(config_file.read_text())["embedding"] if config_file.is_file() else None
        if embedding is not None and embedding not in EMBEDDINGS:
            raise ValueError(f"unknown embedding {embedding!r}: use one of {', '.join(EMBEDDINGS)}")
        if built_with and embedding and embedding != built_with:
            raise ValueError(f"the store in {self.path} was built with the {built_with} embedding; "
                             f"use another --path for {embedding}")
        self.embedding = built_with or embedding or "hash"
        config_file.write_text(json.dumps({"embedding": self.embedding}))
        import chromadb
        from chromadb.config import Settings

        self._client = chromadb.PersistentClient(path=str(self.path / "chroma"),
                                                 settings=Settings(anonymized_telemetry=False))
        self._collection = self._client.get_or_create_collection(
            COLLECTION, embedding_function=_embedding_function(self.embedding), metadata={"hnsw:space": "cosine"})
        self._bm25: tuple[Any, list[list[str]]] | None = None

    @property
    def default_mode(self) -> Mode:
        return DEFAULT_MODES[self.embedding]

    def _manifest(self) -> dict[str, str]:
        path = self.path / MANIFEST
        return json.loads(path.read_text()) if path.is_file() else {}

    def build(self, files: Sequence[SourceFile], progress: Progress | None = None) -> BuildReport:
        """Embed the chunks of every new or changed file, and drop the files of the same packages that
        are no longer listed (a module removed by an upgrade)."""
        manifest = self._manifest()
        embedded_files = embedded_chunks = unchanged = 0
        for done, file in enumerate(files, 1):
            digest = file.digest()
            if manifest.get(file.key) == digest:
                unchanged += 1
            else:
                self._collection.delete(where={"source": file.key})
                chunks = chunks_of(file)
                for start in range(0, len(chunks), 1000):
                    self._add(chunks[start:start + 1000])
                manifest[file.key] = digest
                embedded_files, embedded_chunks = embedded_files + 1, embedded_chunks + len(chunks)
                (self.path / MANIFEST).write_text(json.dumps(manifest))  # a crash loses at most one file
            if progress:
                progress(done, len(files), file.key)
        listed, packages = {file.key for file in files}, {file.package for file in files}
        removed = [key for key in manifest if key not in listed and key.split(":")[0] in packages]
        for key in removed:
            self._collection.delete(where={"source": key})
            del manifest[key]
        (self.path / MANIFEST).write_text(json.dumps(manifest))
        if embedded_files or removed or not (self.path / BM25_DIR).is_dir():
            self._index_lexical()
        return BuildReport(len(files), embedded_files, embedded_chunks, unchanged, len(removed),
                           self._collection.count())

    def _add(self, chunks: list[Chunk]) -> None:
        if not chunks:
            return
        self._collection.add(ids=[c.id for c in chunks], documents=[c.text for c in chunks],
                             metadatas=[{"package": c.package, "version": c.version, "qualname": c.qualname,
                                         "kind": c.kind, "source": c.source} for c in chunks])

    def _index_lexical(self) -> None:
        import bm25s

        everything = self._collection.get(include=["documents", "metadatas"])
        retriever = bm25s.BM25()
        retriever.index([lexical_terms(document) for document in everything["documents"]] or [["<empty>"]],
                        show_progress=False)
        retriever.save(str(self.path / BM25_DIR))
        entries = [[chunk_id, meta["package"]] for chunk_id, meta in zip(everything["ids"], everything["metadatas"])]
        (self.path / BM25_DIR / "ids.json").write_text(json.dumps(entries))
        self._bm25 = (retriever, entries)

    def _lexical(self) -> tuple[Any, list[list[str]]]:
        if self._bm25 is None:
            import bm25s

            retriever = bm25s.BM25.load(str(self.path / BM25_DIR))
            self._bm25 = (retriever, json.loads((self.path / BM25_DIR / "ids.json").read_text()))
        return self._bm25

    def count(self) -> int:
        return self._collection.count()

    def _dense_ids(self, query: str, n: int, packages: Sequence[str] | None) -> list[str]:
        where = {"package": {"$in": list(packages)}} if packages else None
        return self._collection.query(query_texts=[query], n_results=min(n, self.count()), where=where,
                                      include=[])["ids"][0]

    def _lexical_ids(self, query: str, n: int, packages: Sequence[str] | None) -> list[str]:
        retriever, entries = self._lexical()
        known = [word for word in words(query) if word in retriever.vocab_dict]
        if not known:
            return []
        wanted = len(entries) if packages else min(n, len(entries))  # filtered afterwards: rank them all
        documents, scores = retriever.retrieve([known], k=wanted, show_progress=False)
        ranked = [entries[index] for index, score in zip(documents[0], scores[0]) if score > 0]
        return [chunk_id for chunk_id, package in ranked if not packages or package in packages][:n]

    def query(self, text: str, k: int = 5, mode: Mode | None = None, packages: Sequence[str] | None = None
              ) -> list[Snippet]:
        """The k best documented items for ``text`` (from ``packages`` only, if given): dense, lexical,
        or both fused by reciprocal rank (default: the mode measured best for the store's embedding)."""
        if not self.count():
            return []
        mode = mode or self.default_mode
        pool = max(50, 4 * k)
        rankings = ([self._dense_ids(text, pool, packages)] if mode != "lexical" else []) \
            + ([self._lexical_ids(text, pool, packages)] if mode != "dense" else [])
        scores = reciprocal_rank_fusion(rankings)
        ranked = sorted(scores, key=scores.__getitem__, reverse=True)
        if not ranked:
            return []
        found = self._collection.get(ids=ranked[:4 * k], include=["documents", "metadatas"])
        by_id = dict(zip(found["ids"], zip(found["documents"], found["metadatas"])))
        snippets: dict[str, Snippet] = {}  # one snippet per documented item: its best-ranked part
        for chunk_id in (i for i in ranked[:4 * k] if i in by_id):
            document, meta = by_id[chunk_id]
            if meta["qualname"] not in snippets:
                snippets[meta["qualname"]] = Snippet(document, meta["package"], meta["version"], meta["qualname"],
                                                     meta["kind"], round(scores[chunk_id], 6))
        return list(snippets.values())[:k]


def snippet_record(snippet: Snippet, chars: int = 300) -> dict:
    """A snippet as a transcript records it: its source in full, its text shortened."""
    record = asdict(snippet)
    record["text"] = snippet.text[:chars]
    return record
