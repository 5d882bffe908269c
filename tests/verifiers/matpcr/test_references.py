"""The offline snapshot: every value states its source, and a record without one is refused.  The Materials
Project provider runs only with a key and an explicit opt-in (tests never touch the network)."""

from __future__ import annotations

import json
import os

import pytest

from physvec.verifiers.matpcr.references import SNAPSHOT, UnknownMaterial, offline_snapshot


def test_every_value_in_the_snapshot_names_its_source():
    for record in offline_snapshot().records.values():
        for value in (record.formation_enthalpy, record.band_gap, record.magnetisation, record.magnetic_order):
            assert value is None or len(value.source) > 10, record.id


def test_a_record_without_a_source_is_refused_naming_the_field(tmp_path):
    data = json.loads(SNAPSHOT.read_text())
    del data["materials"][0]["formation_enthalpy"]["source"]
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"materials\.0\.formation_enthalpy\.source: Field required"):
        offline_snapshot(path)


@pytest.mark.parametrize(("path", "named"), [
    (("band_gap", "uncertainty_source"), "give uncertainty and uncertainty_source together"),
    (("magnetic_order", "ordering_temperature_K"), "needs ordering_temperature_K")])
def test_an_uncertainty_without_its_source_or_an_order_without_its_temperature_is_refused(tmp_path, path, named):
    data = json.loads(SNAPSHOT.read_text())
    zns = next(record for record in data["materials"] if record["id"] == "ZnS")
    ni = next(record for record in data["materials"] if record["id"] == "Ni")
    del (zns if path[0] == "band_gap" else ni)[path[0]][path[1]]
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=named):
        offline_snapshot(snapshot)


def test_every_ordered_magnet_states_its_ordering_temperature_and_every_moment_an_order():
    # the magnetisation oracle judges a moment at a temperature: without the order it could not
    for record in offline_snapshot().records.values():
        order = record.magnetic_order
        if order is not None and order.order in ("ferromagnetic", "ferrimagnetic"):
            assert record.magnetisation is not None and record.magnetisation.value > 0, record.id
        if record.magnetisation is not None and record.magnetisation.value > 0:
            assert order is not None and order.ordering_temperature_K is not None, record.id


def test_atoms_are_counted_per_element():
    assert offline_snapshot().record("Fe3O4").counts() == {"Fe": 3, "O": 4}


def test_an_unknown_material_is_said_as_such():
    with pytest.raises(UnknownMaterial):
        offline_snapshot().record("unobtainium")


@pytest.mark.skipif(not (os.environ.get("MP_API_KEY") and os.environ.get("PHYSVEC_NETWORK_TESTS") == "1"),
                    reason="needs MP_API_KEY, network, and PHYSVEC_NETWORK_TESTS=1")
def test_the_materials_project_provider_returns_sourced_records():  # pragma: no cover - network
    from physvec.verifiers.matpcr.references import MaterialsProject

    record = MaterialsProject(os.environ["MP_API_KEY"]).record("mp-149")
    assert record.formula == "Si" and record.band_gap.method == "semilocal_dft"
