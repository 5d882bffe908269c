"""Every window the stability, band-gap, magnetisation and microscopy oracles judge with, each with its source.

An oracle takes its tolerances from here and from the uncertainty a reference value states (snapshot.json),
never from a number of its own, so a reviewer reads every window in one place.  A default below applies
only where the cited table states no uncertainty of its own.  None of them was chosen to let a case pass:
each is the physics or the table's stated precision, and tests/verifiers/matpcr/test_tolerances.py checks
that every class label fails on some shipped material.
"""

from __future__ import annotations

# Stability: energy above the convex hull -------------------------------------------------------------------

TABLE_ENTHALPY_UNCERTAINTY_KJ_PER_MOL = 2.5
"""The uncertainty of a tabulated formation enthalpy (kJ/mol per formula unit) whose table states none (the
CRC Handbook's 'Standard thermodynamic properties of chemical substances' does not).  The CODATA Key Values
for Thermodynamics (J. D. Cox, D. D. Wagman and V. A. Medvedev, Hemisphere, 1989) state +-1.3 kJ/mol for
corundum, +-1.4 for B2O3 and +-2.5 for BeO; the largest of these is taken for every CRC value."""

DFT_FORMATION_ENERGY_UNCERTAINTY_EV_PER_ATOM = 0.024
"""The uncertainty of a semilocal-DFT formation energy in a hull (the Materials Project's, with its fitted
corrections): the 24 meV/atom error of reaction energies between oxides found by G. Hautier et al., Phys.
Rev. B 85, 155208 (2012)."""

METASTABLE_MAX_EV_PER_ATOM = 0.1
"""The most a 'metastable' material lies above the hull: W. Sun et al., Sci. Adv. 2, e1600225 (2016) find the
known (ICSD) metastable polymorphs at a median of 15 meV/atom above their ground state, nine in ten within
about 70 meV/atom; 0.1 eV/atom bounds nearly all of them."""

# Band gaps --------------------------------------------------------------------------------------------------

METAL_BELOW_EV = 0.1
"""A gap below 0.1 eV (about four times kT at room temperature, 0.026 eV) is bridged thermally: such a crystal
conducts like a semimetal, so it counts as a metal."""

INSULATOR_FROM_EV = 4.0
"""The conventional boundary between wide-gap semiconductors and insulators (ours, stated; it only names
the class of a gap, every numeric gap is judged as a number)."""

EXPERIMENT_GAP_UNCERTAINTY_EV = 0.1
"""The uncertainty of a measured gap whose record states none: a claim rarely says at what temperature, and
the gap of Si is 1.17 eV at 0 K and 1.11 eV at 300 K, that of GaAs 1.52 and 1.43 eV (C. Kittel, Introduction
to Solid State Physics, 8th ed., Table 8.1).  Records whose two temperatures lie further apart state their
own (ZnS, CdS, ZnO)."""

SEMILOCAL_MIN_WIDENING_EV = 1.0
"""A semilocal-functional gap (LDA, GGA/PBE) underestimates the true one, by up to about half in sp
semiconductors and more in correlated oxides, and a zero one can hide a gap near an electronvolt (Ge: PBE
closes it, 0.66 eV measured, Kittel Table 8.1).  Such a gap g stands for the true gaps from g up to
max(2g, g + 1 eV); it is widened upwards only, since semilocal functionals rarely overestimate a gap."""

# Magnetisation ----------------------------------------------------------------------------------------------

ROOM_TEMPERATURE_K = 300.0
"""The warmest claim a table's 'room temperature' column speaks for: between 293 and 300 K the moment of the
shipped ferromagnets changes by a few tenths of a per cent (Ni, the steepest, loses 5 % between 0 and 300 K),
far less than its uncertainty."""

LIQUID_HELIUM_K = 4.2
"""At or below this temperature a moment is the saturation (0 K) one: the tabulated saturation moments are
liquid-helium measurements extrapolated to 0 K, and spin waves (Bloch's T^(3/2) law) reduce the moment of
the shipped ferromagnets by far less than their uncertainty there."""

ORDERING_TEMPERATURE_SPREAD_K = 5.0
"""Within this many kelvin of a Curie or Neel temperature the magnetic state is left unknown: sources differ
by that much (MnO: T_N = 116 K in Kittel's table of antiferromagnetic crystals, 119 K for bulk MnO in
neutron diffraction, arXiv:1106.3090; Gd: T_C = 292 K in Kittel, 293 K in H. E. Nigh, S. Legvold and
F. H. Spedding, Phys. Rev. 132, 1092 (1963))."""

MOMENT_RELATIVE_UNCERTAINTY = 0.02
"""The uncertainty of a measured saturation moment whose record states none, relative to it.  Kittel's table
of ferromagnetic crystals gives both n_B and M_s(0 K), and n_B recomputed from M_s(0 K) and the density
differs from the printed one by up to 0.7 % for Fe, Co and Ni (Ni: 510 G over 9.14e22 atoms/cm^3, from
8.908 g/cm^3, is 0.602 muB against 0.606); that spread, rounded up to 1 %, is taken as the standard
uncertainty and doubled (coverage factor 2, as in the GUM)."""

ZERO_MOMENT_MUB_PER_FU = 0.01
"""How far from zero a claimed moment may lie where the reference has no spontaneous moment (a diamagnet, a
paramagnet, a compensated antiferromagnet, any magnet above its ordering temperature): the resolution of the
tabulated moments, printed to 0.01 muB."""

DFT_MOMENT_ABSOLUTE_MUB_PER_FU = 0.1
DFT_MOMENT_RELATIVE = 0.1
"""A semilocal-DFT moment is spin only: the orbital moment it omits is about (g - 2)/g of the total, 5 to
10 % for Fe, Co and Ni, whose g factors from ferromagnetic resonance are 2.1 to 2.2 (Kittel, ch. 13), so
such a reference stands for +-max(0.1 muB/f.u., 10 %)."""

# Microscopy -------------------------------------------------------------------------------------------------

NYQUIST_PIXELS = 2.0
"""The smallest feature a micrograph can show, in pixels: a periodic feature of period d is resolved only when
sampled at least twice per period (C. E. Shannon, Proc. IRE 37, 10 (1949)), so lattice fringes 0.31 nm apart
need a pixel of at most 0.155 nm."""
