"""DNA duplex thermodynamics with the unified nearest-neighbour parameters.

SantaLucia, PNAS 95, 1460 (1998): dH (kcal/mol) and dS (cal/mol/K) per Watson-Crick nearest-neighbour
pair, initiation terms for a terminal G.C or A.T pair, and a symmetry term for a self-complementary
duplex.  Two-state melting: Tm = dH / (dS + R ln(C_T / x)), with x = 4 for two different strands at
equal concentration and x = 1 for a self-complementary strand.  Sodium: Owczarzy et al., Biochemistry
43, 3537 (2004), 1/Tm(Na) = 1/Tm(1 M) + (4.29 f_GC - 3.95) 1e-5 ln[Na] + 9.40e-6 ln^2[Na].

Inputs no solution can hold are declined (outside the engine's competence), never evaluated: strands whose
mass per litre exceeds the density of dry DNA, or more sodium than NaCl's solubility in water.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from physvec.verifiers.phact.engines import OutsideCompetence

GAS_CONSTANT_CAL_PER_MOL_K = 1.987
KELVIN_AT_0C = 273.15
BODY_TEMPERATURE_K = 310.15
NUCLEOTIDE_G_PER_MOL = 330.0
"""Average mass of one nucleotide in a single strand."""
DRY_DNA_G_PER_L = 1700.0
"""Density of DNA itself (about 1.7 g/mL): no solution holds more strand mass per litre."""
NACL_SOLUBILITY_M = 6.1
"""NaCl in water at 25 C, about 6.1 mol/kg (CRC Handbook): no aqueous buffer holds more sodium."""
COMPLEMENT = {"A": "T", "T": "A", "G": "C", "C": "G"}

NEAREST_NEIGHBOUR = {
    # 5'-XY-3' / 3'-X'Y'-5': (dH kcal/mol, dS cal/mol/K), SantaLucia 1998 table 2
    "AA": (-7.9, -22.2), "TT": (-7.9, -22.2),
    "AT": (-7.2, -20.4),
    "TA": (-7.2, -21.3),
    "CA": (-8.5, -22.7), "TG": (-8.5, -22.7),
    "GT": (-8.4, -22.4), "AC": (-8.4, -22.4),
    "CT": (-7.8, -21.0), "AG": (-7.8, -21.0),
    "GA": (-8.2, -22.2), "TC": (-8.2, -22.2),
    "CG": (-10.6, -27.2),
    "GC": (-9.8, -24.4),
    "GG": (-8.0, -19.9), "CC": (-8.0, -19.9),
}
INITIATION_GC = (0.1, -2.8)
INITIATION_AT = (2.3, 4.1)
SYMMETRY = (0.0, -1.4)


class SequenceError(ValueError):
    """Not a DNA sequence this engine covers (outside its competence)."""


def checked(sequence: str) -> str:
    bases = sequence.strip().upper()
    if len(bases) < 2 or set(bases) - set(COMPLEMENT):
        raise SequenceError(f"{sequence!r}: the engine covers Watson-Crick duplexes of A, C, G, T, length >= 2")
    return bases


def reverse_complement(sequence: str) -> str:
    return "".join(COMPLEMENT[base] for base in reversed(sequence))


def is_self_complementary(sequence: str) -> bool:
    return sequence == reverse_complement(sequence)


@dataclass(frozen=True)
class Duplex:
    """Enthalpy and entropy of duplex formation at 1 M Na+."""

    dH_kcal_per_mol: float
    dS_cal_per_mol_K: float

    def dG_kcal_per_mol(self, temperature_K: float = BODY_TEMPERATURE_K) -> float:
        return self.dH_kcal_per_mol - temperature_K * self.dS_cal_per_mol_K / 1000


def duplex(sequence: str) -> Duplex:
    """Sum of nearest-neighbour terms, both terminal initiations and (if self-complementary) symmetry."""
    bases = checked(sequence)
    terms = [NEAREST_NEIGHBOUR[bases[i:i + 2]] for i in range(len(bases) - 1)]
    terms += [INITIATION_GC if end in "GC" else INITIATION_AT for end in (bases[0], bases[-1])]
    if is_self_complementary(bases):
        terms.append(SYMMETRY)
    return Duplex(sum(h for h, _ in terms), sum(s for _, s in terms))


def gc_fraction(sequence: str) -> float:
    bases = checked(sequence)
    return sum(base in "GC" for base in bases) / len(bases)


def melting_temperature_1M_K(sequence: str, strand_total_M: float) -> float:
    """Two-state Tm at 1 M Na+; ``strand_total_M`` is C_T, the total strand concentration."""
    if strand_total_M <= 0:
        raise ValueError("strand concentration must be positive")
    bases = checked(sequence)
    densest_M = DRY_DNA_G_PER_L / (NUCLEOTIDE_G_PER_MOL * len(bases))
    if strand_total_M > densest_M:
        raise OutsideCompetence(f"{strand_total_M:.4g} mol/L of a {len(bases)}-mer is denser than DNA itself"
                                f" ({densest_M:.4g} mol/L)")
    energy = duplex(bases)
    factor = 1 if is_self_complementary(bases) else 4
    return 1000 * energy.dH_kcal_per_mol / (
        energy.dS_cal_per_mol_K + GAS_CONSTANT_CAL_PER_MOL_K * math.log(strand_total_M / factor))


def melting_temperature_K(sequence: str, strand_total_M: float, sodium_M: float) -> float:
    """Tm with the Owczarzy 2004 sodium correction."""
    if sodium_M <= 0:
        raise ValueError("sodium concentration must be positive")
    if sodium_M > NACL_SOLUBILITY_M:
        raise OutsideCompetence(f"{sodium_M:.4g} M sodium is above NaCl's solubility in water"
                                f" (about {NACL_SOLUBILITY_M} mol/kg)")
    at_1M = melting_temperature_1M_K(sequence, strand_total_M)
    log_na = math.log(sodium_M)
    correction = (4.29 * gc_fraction(sequence) - 3.95) * 1e-5 * log_na + 9.40e-6 * log_na ** 2
    return 1 / (1 / at_1M + correction)
