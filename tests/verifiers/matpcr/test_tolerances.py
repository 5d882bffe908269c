"""The tolerances: every class label can fail and can hold on the data that ships (a label that never fails
checks nothing), and the numbers tolerances.py cites reproduce from their sources."""

from __future__ import annotations

import pytest

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.matpcr import tolerances
from physvec.verifiers.matpcr.corpus import corpus_item
from physvec.verifiers.matpcr.oracles import judge
from physvec.verifiers.matpcr.references import offline_snapshot
from physvec.verifiers.matpcr.schema import LABELS, Claim

LABELLED = [(constraint, label) for constraint, labels in LABELS.items() for label in labels]


def _outcomes(constraint: str, label: str) -> dict[str, Outcome]:
    """The label judged, at no stated temperature, for every shipped material."""
    claim = Claim(constraint=constraint, label=label)  # type: ignore[arg-type]
    return {material: judge(corpus_item(f"{constraint}:{material}"), claim, offline_snapshot()).outcome
            for material in offline_snapshot().records}


@pytest.mark.parametrize(("constraint", "label"), LABELLED)
def test_every_label_fails_on_some_shipped_material(constraint, label):
    # the red team's finding: with a 0.05 eV/atom window no shipped material could make 'stable' fail
    assert Outcome.FAILED in _outcomes(constraint, label).values()


@pytest.mark.parametrize(("constraint", "label"), LABELLED)
def test_every_label_holds_for_some_shipped_material(constraint, label):
    assert Outcome.CERTIFIED in _outcomes(constraint, label).values()


def test_the_metal_boundary_is_about_four_kt_at_room_temperature():
    # k_B = 8.617333e-5 eV/K (CODATA 2018): kT at 300 K is 0.02585 eV
    assert tolerances.METAL_BELOW_EV / (8.617333e-5 * 300) == pytest.approx(3.87, abs=0.01)


def test_the_gap_spread_covers_kittels_zero_and_room_temperature_gaps_of_si_and_gaas():
    # Kittel, Introduction to Solid State Physics, 8th ed., Table 8.1: (0 K, 300 K) gaps in eV
    for zero_kelvin, room in ((1.17, 1.11), (1.52, 1.43), (0.744, 0.66)):
        assert zero_kelvin - room <= tolerances.EXPERIMENT_GAP_UNCERTAINTY_EV


def test_the_moment_uncertainty_covers_kittels_internal_spread_for_fe_co_ni():
    # n_B recomputed from Kittel's M_s(0 K) (gauss, i.e. emu/cm^3) and the density (CRC Handbook: Fe 7.874,
    # Co 8.90, Ni 8.908 g/cm^3; molar masses 55.845, 58.933, 58.693 g/mol); mu_B = 9.2740e-21 emu (CODATA 2018)
    avogadro, bohr = 6.02214076e23, 9.2740100783e-21
    for gauss, density, molar, printed in ((1740, 7.874, 55.845, 2.22), (1446, 8.90, 58.933, 1.72),
                                           (510, 8.908, 58.693, 0.606)):
        recomputed = gauss / (density / molar * avogadro * bohr)
        spread = abs(recomputed - printed) / printed
        assert spread <= 0.01 and 2 * spread <= tolerances.MOMENT_RELATIVE_UNCERTAINTY


def test_the_enthalpy_default_is_as_large_as_the_codata_oxide_uncertainties_it_cites():
    # CODATA Key Values (Cox, Wagman & Medvedev 1989): Al2O3 +-1.3, B2O3 +-1.4, BeO +-2.5 kJ/mol
    assert tolerances.TABLE_ENTHALPY_UNCERTAINTY_KJ_PER_MOL >= max(1.3, 1.4, 2.5)


def test_the_nyquist_floor_refuses_the_red_teams_fringes():
    # 0.31 nm fringes need a pixel of at most 0.155 nm; 0.2 nm per pixel is too coarse
    assert 0.31 / 0.2 < tolerances.NYQUIST_PIXELS <= 0.31 / 0.155

