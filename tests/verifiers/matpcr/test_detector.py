"""The violation detector's metrics on hand-made cases, and its splits: the source-disjoint test set shares no
source with training, and each held-out-type split tests on one type it never trained on."""

from __future__ import annotations

import numpy as np
import pytest

from physvec.verifiers.matpcr.detector import Example, expected_calibration_error, roc_auc, scores, splits


def test_roc_auc_counts_ranked_pairs_and_ties_half():
    y = np.array([1, 1, 0, 0])
    assert roc_auc(y, np.array([0.9, 0.8, 0.2, 0.1])) == 1.0
    assert roc_auc(y, np.array([0.1, 0.2, 0.8, 0.9])) == 0.0
    assert roc_auc(y, np.full(4, 0.5)) == 0.5
    assert roc_auc(np.array([1, 1]), np.array([0.3, 0.4])) is None


def test_expected_calibration_error_by_hand():
    # bin [0.2, 0.3): predicted 0.25, observed 0.5 -> 0.25; bin [0.9, 1.0): predicted 0.95, observed 1 -> 0.05
    y, p = np.array([1, 0, 1, 1]), np.array([0.25, 0.25, 0.95, 0.95])
    assert expected_calibration_error(y, p) == pytest.approx(0.5 * 0.25 + 0.5 * 0.05)


def test_precision_recall_and_f1_at_one_half():
    result = scores(np.array([1, 1, 0, 0]), np.array([0.9, 0.4, 0.6, 0.1]))
    assert (result["precision"], result["recall"], result["f1"]) == (0.5, 0.5, 0.5)


def _examples() -> list[Example]:
    words = {"diffraction": "peak at {} degrees", "raman": "line at {} cm-1", "stability": "{} eV/atom above hull"}
    return [Example(template.format(i), violated=i % 3 == 0, constraint=constraint, source=f"model-{i % 4}")
            for constraint, template in words.items() for i in range(24)]


def test_the_splits_are_source_disjoint_and_hold_out_each_type():
    rows = splits(_examples())
    assert rows[0]["split"] == "source-disjoint (test: model-1, model-3)"
    assert rows[0]["train_claims"] + rows[0]["test_claims"] == 72
    assert [row["split"] for row in rows[1:]] == ["held-out type diffraction", "held-out type raman",
                                                  "held-out type stability"]
    assert all(row["train_claims"] == 48 and row["test_claims"] == 24 for row in rows[1:])


def test_a_training_set_with_one_class_is_not_scored():
    only_consistent = [Example("x", False, "raman", "a"), Example("y", False, "raman", "b")]
    assert "not scored" in splits(only_consistent)[0]["note"]
