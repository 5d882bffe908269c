"""A label-free violation detector: logistic regression over hashed character n-grams of a claim's sentence,
trained on oracle labels only, and its evaluation on splits it was not trained on.

It reads text and nothing else (no reference, no oracle at prediction time), so it says how far the wording
of a claim gives its violation away.  It is evaluated source-disjointly (the claims of some sources, for
example models, train it; the others test it) and on six held-out-constraint-type splits (trained on five
types, tested on the sixth), with precision, recall and F1 at 0.5, ROC AUC and the expected calibration
error over ten equal-width bins.  It never certifies anything: its output is a report.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

DIMENSION = 2**12
NGRAMS = (3, 4, 5)
L2 = 1.0
BINS = 10


@dataclass(frozen=True)
class Example:
    text: str
    violated: bool
    constraint: str
    source: str


def features(texts: Sequence[str]) -> np.ndarray:
    """Hashed counts of character 3- to 5-grams (lower case), each row scaled to unit length."""
    matrix = np.zeros((len(texts), DIMENSION))
    for row, text in enumerate(texts):
        padded = f" {text.lower()} "
        for size in NGRAMS:
            for start in range(len(padded) - size + 1):
                matrix[row, zlib.crc32(padded[start:start + size].encode()) % DIMENSION] += 1
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms > 0, norms, 1)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1 + np.tanh(z / 2))


def fit(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Weights (bias last) of L2-regularised logistic regression, by L-BFGS."""
    from scipy.optimize import minimize

    design = np.hstack([x, np.ones((x.shape[0], 1))])

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        p = np.clip(_sigmoid(design @ w), 1e-12, 1 - 1e-12)
        penalty = 0.5 * L2 * float(w[:-1] @ w[:-1])
        value = -float(np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))) + penalty / len(y)
        gradient = design.T @ (p - y) / len(y)
        gradient[:-1] += L2 * w[:-1] / len(y)
        return value, gradient

    return minimize(loss, np.zeros(design.shape[1]), jac=True, method="L-BFGS-B").x


def predict(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    return _sigmoid(np.hstack([x, np.ones((x.shape[0], 1))]) @ w)


def roc_auc(y: np.ndarray, p: np.ndarray) -> float | None:
    """The probability that a violation scores above a consistent claim (ties count half); None with one class."""
    positives, negatives = p[y == 1], p[y == 0]
    if positives.size == 0 or negatives.size == 0:
        return None
    greater = (positives[:, None] > negatives[None, :]).sum() + 0.5 * (positives[:, None] == negatives[None, :]).sum()
    return float(greater / (positives.size * negatives.size))


def expected_calibration_error(y: np.ndarray, p: np.ndarray) -> float:
    """Sum over ten equal-width probability bins of (bin share) x |mean predicted - observed rate|."""
    bins = np.minimum((p * BINS).astype(int), BINS - 1)
    return float(sum((bins == b).mean() * abs(p[bins == b].mean() - y[bins == b].mean())
                     for b in range(BINS) if (bins == b).any()))


def scores(y: np.ndarray, p: np.ndarray) -> dict[str, float | int | None]:
    predicted = p >= 0.5
    tp, fp, fn = int((predicted & (y == 1)).sum()), int((predicted & (y == 0)).sum()), int((~predicted & (y == 1)).sum())
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    f1 = 2 * precision * recall / (precision + recall) if precision and recall else (0.0 if tp + fn else None)
    return {"test_claims": int(y.size), "violations": int(y.sum()), "precision": precision, "recall": recall,
            "f1": f1, "roc_auc": roc_auc(y, p), "ece": expected_calibration_error(y, p) if y.size else None}


def train_and_test(train: Sequence[Example], test: Sequence[Example]) -> dict[str, float | int | None]:
    """Scores on ``test`` of a detector fitted on ``train`` (None scores when a side lacks a class)."""
    y_train = np.array([e.violated for e in train], dtype=float)
    if not test or y_train.size == 0 or y_train.min() == y_train.max():
        return {"test_claims": len(test), "note": "a split without both classes in training is not scored"}
    w = fit(features([e.text for e in train]), y_train)
    y_test = np.array([e.violated for e in test], dtype=float)
    return {"train_claims": len(train), **scores(y_test, predict(w, features([e.text for e in test])))}


def splits(examples: Sequence[Example]) -> list[dict[str, object]]:
    """The source-disjoint split (sources sorted, every other one held out) and one split per held-out type."""
    sources = sorted({e.source for e in examples})
    held = set(sources[1::2])
    rows: list[dict[str, object]] = [{"split": f"source-disjoint (test: {', '.join(sorted(held)) or 'none'})",
                                      **train_and_test([e for e in examples if e.source not in held],
                                                       [e for e in examples if e.source in held])}]
    for constraint in sorted({e.constraint for e in examples}):
        rows.append({"split": f"held-out type {constraint}",
                     **train_and_test([e for e in examples if e.constraint != constraint],
                                      [e for e in examples if e.constraint == constraint])})
    return rows


def markdown(rows: Sequence[dict[str, object]], title: str) -> str:
    def shown(value: object) -> str:
        return "n/a" if value is None else f"{value:.3f}" if isinstance(value, float) and not math.isnan(value) \
            else str(value)
    keys = ("train_claims", "test_claims", "violations", "precision", "recall", "f1", "roc_auc", "ece")
    lines = [f"# {title}", "", "| split | " + " | ".join(keys) + " |", "|---" * (len(keys) + 1) + "|"]
    lines += [f"| {row['split']} | " + " | ".join(shown(row.get(key)) for key in keys) + " |" for row in rows]
    return "\n".join(lines) + "\n"
