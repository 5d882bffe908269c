"""`matpcr`: check exits 0/1 on a verdict and 2 on any malformed input (field named, no traceback);
validate-oracles prints FN = 0 with its denominators; schemas exports the file kinds."""

from __future__ import annotations

import json

import pytest

from physvec.cli.conventions import EXIT_BAD_INPUT, EXIT_CERTIFIED, EXIT_NOT_CERTIFIED
from physvec.cli.matpcr import CGSV_FAMILIES, FAMILIES, main
from physvec.verifiers.matpcr.schema import CONSTRAINTS


def _write(tmp_path, data, name="claims.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def test_the_parsers_families_are_the_oracles_constraints():
    from physvec.agents.matpcr_cgsv import FAMILIES as REVISED

    assert FAMILIES == CONSTRAINTS and CGSV_FAMILIES == REVISED


def test_consistent_claims_exit_0_and_a_violation_exits_1(tmp_path, capsys):
    good = _write(tmp_path, {"item": "raman:Si", "reasoning": "one sharp line at 520.7 cm-1"})
    assert main(["check", good, "--json"]) == EXIT_CERTIFIED
    certificate = json.loads(capsys.readouterr().out)
    assert certificate["verdict"] == "certified" and certificate["summary"]["parsed_from_reasoning"] == 1
    bad = _write(tmp_path, {"item": "raman:Si", "claims": [{"constraint": "raman", "value": 480, "unit": "cm-1"}]})
    assert main(["check", bad]) == EXIT_NOT_CERTIFIED


@pytest.mark.parametrize(("data", "named"), [
    ({"item": "raman:Si", "claims": [{"constraint": "raman", "value": 520, "unit": "cm-1", "sure": True}]},
     "claims.0.sure"),
    ({"item": "raman:Si", "claims": [{"constraint": "diffraction", "value": 28.4, "unit": "deg"}]},
     "claims.0.constraint"),
    ({"item": "band_gap:Unobtainium", "reasoning": "a metal"}, "item.material"),
    ({"item": "nothing:here", "reasoning": "x"}, "item: no corpus item"),
    ({"item": {"constraint": "microscopy", "id": "m", "scale_bar_px": 0, "scale_bar_length": 1,
               "scale_bar_unit": "nm", "image_width_px": 10, "image_height_px": 10}, "reasoning": "1 nm"},
     "item.microscopy.scale_bar_px"),
    ('{"item": "raman:Si", "claims": [{"constraint": "raman", "value": NaN, "unit": "cm-1"}]}', "claims.claims.0.value"),
    ("{not json", "not JSON"),
    ([1, 2], "Input should be"),
])
def test_malformed_claims_files_exit_2_naming_the_field(tmp_path, capsys, data, named):
    assert main(["check", _write(tmp_path, data)]) == EXIT_BAD_INPUT
    captured = capsys.readouterr()
    assert named in captured.err and "Traceback" not in captured.err + captured.out


def test_a_missing_file_exits_2(tmp_path, capsys):
    assert main(["check", str(tmp_path / "absent.json")]) == EXIT_BAD_INPUT
    assert "no such file" in capsys.readouterr().err


@pytest.mark.parametrize(("flags", "named"), [(["--rates", "0.1,x"], "--rates"), (["--rates", "1.5"], "--rates"),
                                              (["--n", "0"], "--n")])
def test_bad_validation_settings_exit_2(capsys, flags, named):
    assert main(["validate-oracles", *flags]) == EXIT_BAD_INPUT
    assert named in capsys.readouterr().err


def test_validate_oracles_prints_zero_false_negatives_with_denominators(capsys):
    families = [flag for family in ("microscopy", "band_gap", "magnetisation") for flag in ("--family", family)]
    assert main(["validate-oracles", "--n", "10", *families]) == EXIT_CERTIFIED
    out = capsys.readouterr().out
    for rate, injected in (("10%", 1), ("30%", 3), ("50%", 5)):
        assert f"| microscopy | {rate} | 10 | FN = 0/{injected} | FP = 0/{10 - injected} | 0 |" in out
    assert "false negatives: 0 over 27 injected violations" in out


def test_schemas_are_exported(tmp_path):
    assert main(["schemas", "--out", str(tmp_path)]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["matpcr_claim.schema.json", "matpcr_claims.schema.json", "matpcr_reasoning.schema.json"]
    claims = json.loads((tmp_path / "matpcr_claims.schema.json").read_text())
    assert claims["additionalProperties"] is False


def test_the_materials_project_provider_without_a_key_exits_2(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("MP_API_KEY", raising=False)
    claims = _write(tmp_path, {"item": "band_gap:mp-149", "claims": [{"constraint": "band_gap", "label": "metal"}]})
    assert main(["check", claims, "--provider", "mp"]) == EXIT_BAD_INPUT
    assert "MP_API_KEY" in capsys.readouterr().err


def test_the_committed_schemas_are_the_exported_ones(tmp_path):
    from pathlib import Path

    assert main(["schemas", "--out", str(tmp_path)]) == 0
    committed = Path(__file__).resolve().parents[2] / "schemas"
    for exported in tmp_path.iterdir():
        assert (committed / exported.name).read_text() == exported.read_text(), f"run: matpcr schemas ({exported.name})"


def test_physvec_validate_knows_a_matpcr_claims_file_and_names_the_bad_field(tmp_path, capsys):
    # the shipped examples and a task's matpcr domain-check input are checked like DualityCert and PHACT files
    from pathlib import Path

    from physvec.cli.main import physvec_main

    examples = Path(__file__).resolve().parents[2] / "examples" / "matpcr"
    assert physvec_main(["validate", *map(str, sorted(examples.glob("*.json")))]) == 0
    bad = tmp_path / "claims.json"
    bad.write_text(json.dumps({"item": "si", "claims": [{"bogus": 1}]}))
    assert physvec_main(["validate", str(bad)]) == 2
    assert "claims.0.bogus" in capsys.readouterr().out


@pytest.mark.parametrize(("seed", "shown"), [("²", "'²'"), ("9" * 5000, "(5000 characters)"), ("-1", "'-1'")])
def test_attack_a_raman_seed_int_refuses_exits_2_in_one_line(tmp_path, capsys, seed, shown):
    # '²'.isdigit() is true yet int('²') raises, and int() refuses more than 4300 digits: both were tracebacks
    claims = _write(tmp_path, {"item": f"raman:Si:{seed}", "reasoning": "one line at 520.7 cm-1"})
    assert main(["check", claims]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "item: the seed of a raman item must be 1 to 18 ASCII digits" in err
    assert shown in err and "Traceback" not in err


@pytest.mark.parametrize("command", [["validate-oracles"], ["detector", "--synthetic", "1"]])
def test_attack_a_seed_flag_of_5000_digits_exits_2_without_echoing_it(capsys, command):
    with pytest.raises(SystemExit) as stopped:
        main([*command, "--seed", "9" * 5000])
    err = capsys.readouterr().err
    assert stopped.value.code == EXIT_BAD_INPUT and "--seed: must be 1 to 18 ASCII digits" in err
    assert len(err) < 1000
