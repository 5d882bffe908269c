"""Terms of API documentation: words and identifier parts, and their hashed vector.

API documentation is full of exact identifiers, so ``words`` splits them (``StatevectorEstimator`` ->
statevector, estimator; ``run_dmrg`` -> run, dmrg) and keeps the whole identifiers too; BM25 and the
offline hash embedding share this vocabulary.  Pure numpy: importing it costs nothing.
"""

from __future__ import annotations

import re
import zlib

import numpy as np

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
