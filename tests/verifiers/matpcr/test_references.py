"""The offline snapshot: every value states its source, and a record without one is refused.  The Materials
Project provider runs only with a key and an explicit opt-in (tests never touch the network)."""

from __future__ import annotations

import json
import os

import pytest

from physvec.verifiers.matpcr.references import SNAPSHOT, UnknownMaterial, offline_snapshot


def test_every_value_in_the_snapshot_names_its_source():
    for record in offline_snapshot().records.values():
        for value in (record.formation_enthalpy, record.band_gap, record.magnetisation):
            assert value is None or len(value.source) > 10, record.id


def test_a_record_without_a_source_is_refused_naming_the_field(tmp_path):
    data = json.loads(SNAPSHOT.read_text())
    del data["materials"][0]["formation_enthalpy"]["source"]
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"materials\.0\.formation_enthalpy\.source: Field required"):
        offline_snapshot(path)


def test_an_unknown_material_is_said_as_such():
    with pytest.raises(UnknownMaterial):
        offline_snapshot().record("unobtainium")


@pytest.mark.skipif(not (os.environ.get("MP_API_KEY") and os.environ.get("PHYSVEC_NETWORK_TESTS") == "1"),
                    reason="needs MP_API_KEY, network, and PHYSVEC_NETWORK_TESTS=1")
def test_the_materials_project_provider_returns_sourced_records():  # pragma: no cover - network
    from physvec.verifiers.matpcr.references import MaterialsProject

    record = MaterialsProject(os.environ["MP_API_KEY"]).record("mp-149")
    assert record.formula == "Si" and record.band_gap.method == "semilocal_dft"
