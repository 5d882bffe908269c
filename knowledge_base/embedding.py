"""An offline embedding for API documentation: hashed identifier and word features.

chromadb's default embedding downloads an ONNX model at the first ``add``, which fails on machines
without internet, and the packaged MiniLM weights on PyPI pull in PyTorch.  API documentation is full
of exact identifiers, so this embedding splits them (``StatevectorEstimator`` -> statevector,
estimator; ``run_dmrg`` -> run, dmrg), keeps the whole identifiers too, adds word bigrams, and hashes
the features into a fixed-size vector with sublinear term weights.  It is deterministic, needs no
download, and embeds thousands of chunks per second.  benchmarks/retrieval_quality.py measures it,
alone and fused with BM25, on the question set in knowledge_base/questions.json.
"""

from __future__ import annotations

import re
import zlib
from typing import Any

import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
from chromadb.utils.embedding_functions import register_embedding_function

DIMENSIONS = 1024
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_STOPWORDS = frozenset("a an the of to in on for and or is are be by with as at it this that from how which "
                       "what do does can i my me use using".split())


def words(text: str) -> list[str]:
    """Lower-case words and identifier parts (StatevectorEstimator -> statevector, estimator), with the
    whole identifiers kept too, stop words dropped: the shared vocabulary of both retrievers."""
    found: list[str] = []
    for token in re.findall(r"[A-Za-z0-9_]+", text):
        parts = [part.lower() for piece in token.split("_") for part in _CAMEL.findall(piece)]
        if len(parts) > 1:
            found.append(token.lower())
        found += parts
    return [word for word in found if word not in _STOPWORDS]


def features(text: str) -> list[str]:
    """The words and their adjacent bigrams."""
    unigrams = words(text)
    return unigrams + [f"{a} {b}" for a, b in zip(unigrams, unigrams[1:])]


def embed(text: str, dimensions: int = DIMENSIONS) -> np.ndarray:
    """One unit vector: signed feature hashing with 1 + log(count) weights."""
    vector = np.zeros(dimensions)
    names, counts = np.unique(np.array(features(text) or ["<empty>"]), return_counts=True)
    for name, count in zip(names, counts):
        digest = zlib.crc32(name.encode())
        vector[digest % dimensions] += (1.0 if digest & 0x80000000 else -1.0) * (1.0 + np.log(count))
    norm = np.linalg.norm(vector)
    return vector / norm if norm else vector


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
