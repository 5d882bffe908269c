"""Per-theory memory: every store DualityCert keeps is registered, and clearing them starts a claim cold."""

from __future__ import annotations

from physvec.verifiers.dualitycert import memo
from physvec.verifiers.dualitycert.registry import FINAL, certify


def test_clearing_empties_every_store_and_the_verdict_is_the_same_cold(seed_claims):
    claim = seed_claims["spp_N2_node0"]
    warm = certify(claim, FINAL)
    filled = [store for store in memo._STORES if store.cache_info().currsize]
    assert len(filled) >= 8, "the checks keep what they derive per theory"
    memo.clear()
    assert all(store.cache_info().currsize == 0 for store in memo._STORES)
    cold = certify(claim, FINAL)
    assert [(o.name, o.outcome, o.message) for o in cold.obligations] == \
        [(o.name, o.outcome, o.message) for o in warm.obligations]
    assert cold.verdict is warm.verdict
