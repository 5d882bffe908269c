"""Embedding functions of the knowledge base for chromadb: offline feature hashing, and MiniLM.

chromadb's default embedding downloads an ONNX model at the first ``add``, which fails on machines
without internet, and the packaged MiniLM weights on PyPI pull in PyTorch.  ``IdentifierHashEmbedding``
hashes the words and identifier parts of knowledge_base/terms.py into a fixed-size vector with
sublinear term weights: deterministic, no download, thousands of chunks per second.
benchmarks/retrieval_quality.py measures it, alone and fused with BM25, on knowledge_base/questions.json.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
from chromadb.utils.embedding_functions import register_embedding_function

from physvec.knowledge_base.terms import DIMENSIONS, embed


class CosineEmbedding(EmbeddingFunction[Documents]):
    """Unit vectors, compared by cosine: what every embedding of the knowledge base returns."""

    def default_space(self) -> str:
        return "cosine"

    def supported_spaces(self) -> list[str]:
        return ["cosine"]


@register_embedding_function
class IdentifierHashEmbedding(CosineEmbedding):
    """chromadb embedding function over ``embed``."""

    def __init__(self, dimensions: int = DIMENSIONS) -> None:
        self.dimensions = dimensions

    def __call__(self, input: Documents) -> Embeddings:
        return [embed(text, self.dimensions).astype(np.float32) for text in input]

    @staticmethod
    def name() -> str:
        return "physvec-identifier-hash"

    def get_config(self) -> dict[str, Any]:
        return {"dimensions": self.dimensions}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> IdentifierHashEmbedding:
        return IdentifierHashEmbedding(config.get("dimensions", DIMENSIONS))
