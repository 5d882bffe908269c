"""The registry benchmark accounts for its time."""

from __future__ import annotations

import pytest

from physvec.verifiers.dualitycert.bench import bench
from physvec.verifiers.dualitycert.dualize import dualize
from physvec.verifiers.dualitycert.theory import Claim


def test_each_level_reports_throughput_and_shares_that_sum_to_the_whole(dp0):
    rows = bench([Claim(theory_a=dp0, theory_b=dualize(dp0, 0))] * 2, levels=(3, 5))
    assert [row["level"] for row in rows] == [3, 5]
    for row in rows:
        assert row["claims"] == 2 and row["claims_per_second"] > 0
        assert sum(row["share"].values()) == pytest.approx(1.0, abs=0.05)
        assert "chiral_ring" in row["share"]
