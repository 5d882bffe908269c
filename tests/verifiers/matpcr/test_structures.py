"""The reference structures: at least 20, several crystal systems, every constant cited, every orbit the
multiplicity its Wyckoff letter says (a coordinate written for another origin choice would not be)."""

from __future__ import annotations

from collections import Counter

import pytest

from physvec.verifiers.matpcr.structures import STRUCTURES, build, multiplicity


def test_at_least_twenty_materials_in_at_least_four_crystal_systems_each_with_a_source():
    assert len(STRUCTURES) >= 20
    assert len({s.crystal_system for s in STRUCTURES.values()}) >= 4
    assert all(len(s.source) > 20 for s in STRUCTURES.values())


@pytest.mark.parametrize("structure_id", sorted(STRUCTURES))
def test_the_space_group_generates_each_wyckoff_orbit_with_its_multiplicity(structure_id):
    record = STRUCTURES[structure_id]
    expected = Counter()
    for site in record.sites:
        expected[site.species] += multiplicity(site)
    assert Counter(str(site.specie) for site in build(structure_id)) == expected
