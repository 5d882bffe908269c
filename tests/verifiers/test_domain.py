"""The domain-check node: DualityCert claims judged at final strictness, unreadable claims as errors."""

from __future__ import annotations

import json

from tests.verifiers.dualitycert.conftest import dp0_data
from verifiers.certificate import Outcome
from verifiers.domain import dualitycert_obligations
from verifiers.dualitycert.dualize import dualize
from verifiers.dualitycert.theory import parse_theory


def test_a_claim_file_gives_prefixed_dualitycert_obligations_at_the_final_level(tmp_path):
    dual = dualize(parse_theory(dp0_data()), 2).model_dump(mode="json")
    claim = tmp_path / "claim.json"
    claim.write_text(json.dumps({"theory_a": dp0_data(), "theory_b": dual}))
    obligations = {o.name: o for o in dualitycert_obligations(claim)}
    assert obligations["dualitycert:chiral_ring"].outcome is Outcome.CERTIFIED
    assert obligations["dualitycert:chiral_ring"].evidence["level"] == 5
    assert not any(o.outcome is Outcome.FAILED for o in obligations.values())


def test_an_unreadable_claim_is_an_error_never_a_certificate(tmp_path):
    claim = tmp_path / "claim.json"
    claim.write_text(json.dumps({"theory_a": dp0_data()}))
    (obligation,) = dualitycert_obligations(claim)
    assert obligation.outcome is Outcome.ERROR and "theory_a and theory_b" in obligation.message
