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


def test_every_seed_cell_certifies_at_level_eight_in_seconds():
    from physvec.verifiers.dualitycert.bench import bench_seed_cells

    rows = bench_seed_cells((8,))
    assert len(rows) == 14
    for row in rows:
        assert row["verdict_L8"] == "certified", row
        assert row["seconds_L8"] < 10, row  # about 0.3 s on a shared 2-core machine; dP2 node 4 took 864 s before
