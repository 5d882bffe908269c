"""Physically generated Raman spectra: Lorentzian lines at measured positions, a sloping background and noise.

A first-order Raman line of a crystal is a damped phonon, so its shape is Lorentzian with the phonon's
linewidth; a spectrum here is the sum of a material's lines (position, full width at half maximum, relative
height, each with its source), a weak linear fluorescence background, and Gaussian detector noise from a
seeded generator.  The oracle never reads this table: it finds peaks in the spectrum it is given, so the
table is the ground truth that injection validation compares the oracle against.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from physvec.verifiers.matpcr.schema import RamanItem

NOISE = 0.005
"""Standard deviation of the detector noise, relative to the strongest line's height (signal-to-noise 200)."""
STEP_CM1 = 0.5


@dataclass(frozen=True)
class Line:
    position_cm1: float
    fwhm_cm1: float
    height: float
    source: str


PORTO = "S. P. S. Porto, P. A. Fleury and T. C. Damen, Phys. Rev. 154, 522 (1967)"
OHSAKA = "T. Ohsaka, F. Izumi and Y. Fujiki, J. Raman Spectrosc. 7, 321 (1978)"
LINES: dict[str, tuple[Line, ...]] = {
    "Si": (Line(520.7, 3.5, 1.0, "J. H. Parker, D. W. Feldman and M. Ashkin, Phys. Rev. 155, 712 (1967): one-phonon "
                                 "line near 520 cm^-1 at room temperature; 520.7 cm^-1 is the usual calibration value"),),
    "Ge": (Line(300.5, 3.0, 1.0, "J. H. Parker, D. W. Feldman and M. Ashkin, Phys. Rev. 155, 712 (1967)"),),
    "C-diamond": (Line(1332.5, 2.0, 1.0, "S. A. Solin and A. K. Ramdas, Phys. Rev. B 1, 1687 (1970)"),),
    "C-graphite": (Line(1582.0, 15.0, 1.0, "S. Reich and C. Thomsen, Phil. Trans. R. Soc. A 362, 2271 (2004): G band"),),
    "TiO2-anatase": (Line(144.0, 7.0, 1.0, OHSAKA + ": Eg"), Line(399.0, 20.0, 0.25, OHSAKA + ": B1g"),
                     Line(516.0, 20.0, 0.25, OHSAKA + ": A1g + B1g (513, 519)"), Line(639.0, 20.0, 0.3, OHSAKA + ": Eg")),
    "TiO2-rutile": (Line(447.0, 30.0, 1.0, PORTO + ": Eg"), Line(612.0, 40.0, 0.8, PORTO + ": A1g")),
    "MoS2": (Line(383.0, 3.0, 0.6, "T. J. Wieting and J. L. Verble, Phys. Rev. B 3, 4286 (1971): E2g^1"),
             Line(408.0, 4.0, 1.0, "T. J. Wieting and J. L. Verble, Phys. Rev. B 3, 4286 (1971): A1g")),
    "ZnO": (Line(101.0, 2.0, 0.5, "T. C. Damen, S. P. S. Porto and B. Tell, Phys. Rev. 142, 570 (1966): E2 low"),
            Line(437.0, 8.0, 1.0, "T. C. Damen, S. P. S. Porto and B. Tell, Phys. Rev. 142, 570 (1966): E2 high")),
    "SiC-3C": (Line(796.0, 4.0, 1.0, "D. W. Feldman et al., Phys. Rev. 173, 787 (1968): TO"),
               Line(972.0, 5.0, 0.6, "D. W. Feldman et al., Phys. Rev. 173, 787 (1968): LO")),
    "GaN": (Line(568.0, 4.0, 1.0, "H. Harima, J. Phys.: Condens. Matter 14, R967 (2002): E2 high"),
            Line(734.0, 10.0, 0.4, "H. Harima, J. Phys.: Condens. Matter 14, R967 (2002): A1(LO)")),
}


def lorentzian(shift: np.ndarray, line: Line) -> np.ndarray:
    half = line.fwhm_cm1 / 2
    return line.height / (1 + ((shift - line.position_cm1) / half) ** 2)


def spectrum(material: str, seed: int = 0) -> RamanItem:
    """A Raman item for ``material``: its lines on a 0.5 cm^-1 grid reaching 100 cm^-1 beyond them."""
    lines = LINES[material]
    low = max(50.0, min(line.position_cm1 for line in lines) - 100)
    high = max(line.position_cm1 for line in lines) + 100
    shift = np.arange(low, high + STEP_CM1 / 2, STEP_CM1)
    signal = sum((lorentzian(shift, line) for line in lines), np.zeros_like(shift))
    background = 0.02 + 1e-5 * (shift - low)
    noise = np.random.default_rng(seed).normal(0.0, NOISE, shift.size)
    return RamanItem(constraint="raman", id=f"raman:{material}:{seed}", shift_cm1=shift.round(3).tolist(),
                     intensity=(signal + background + noise).round(6).tolist(), material=material)
