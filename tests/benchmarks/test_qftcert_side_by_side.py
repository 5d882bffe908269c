"""The side-by-side benchmark against QFTCert runs, small, when a QFTCert checkout is named by $QFTCERT_PATH
(github xingyang-yu/QFTCert; benchmarks/qftcert_side_by_side.py runs every seed cell and fixture)."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "qftcert_side_by_side.py"
CHECKOUT = os.environ.get("QFTCERT_PATH")

pytestmark = pytest.mark.skipif(not CHECKOUT or not Path(CHECKOUT).is_dir(),
                                reason="set QFTCERT_PATH to a QFTCert checkout to compare against it")


def _benchmark():
    spec = importlib.util.spec_from_file_location("qftcert_side_by_side", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_two_seed_cells_and_two_fixtures_are_compared_at_level_3(tmp_path):
    bench = _benchmark()
    qft = bench.import_qftcert(Path(CHECKOUT))
    claims = bench.claims_to_compare(None, 2)
    rows = bench.compare(qft, claims, (3,))
    assert [(r.kind, r.level) for r in rows] == [("seed", 3)] * 2 + [("fixture", 3)] * 2
    # the seed cells are Seiberg duals (dualize.py), the fixtures are wrong by construction (fixtures.py)
    assert [r.ours_verdict for r in rows] == ["certified", "certified", "failed", "failed"]
    assert all(r.theirs_seconds is not None for r in rows), [r.theirs_verdict for r in rows]
    table = {line["kind"]: line for line in bench.aggregates(rows)}
    assert table["fixture"]["ours_certified"] == 0 and table["seed"]["bridged"] == 2


def test_the_bridge_keeps_every_field_and_term(tmp_path):
    bench = _benchmark()
    qft = bench.import_qftcert(Path(CHECKOUT))
    _, _, claim = bench.claims_to_compare(None, 1)[0]
    theirs = bench.bridge_theory(qft, claim.theory_b)
    ours = claim.theory_b
    assert len(theirs.fields) == len(ours.arrows) + len(ours.singlets)
    assert len(theirs.superpotential_terms) == len(ours.superpotential)
    assert len(theirs.gauge_nodes) == len(ours.ranks)
