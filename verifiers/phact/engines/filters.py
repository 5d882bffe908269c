"""First-order RC filters and standard component values.

Cutoff f_c = 1 / (2 pi R C); a low-pass passes |H| = 1 / sqrt(1 + (f/f_c)^2), a high-pass
|H| = (f/f_c) / sqrt(1 + (f/f_c)^2); attenuation in dB is -20 log10 |H|.  Components come in the IEC
60063 E-series (E12, E24) of preferred values per decade.
"""

from __future__ import annotations

import math

E_SERIES = {
    "E12": (1.0, 1.2, 1.5, 1.8, 2.2, 2.7, 3.3, 3.9, 4.7, 5.6, 6.8, 8.2),
    "E24": (1.0, 1.1, 1.2, 1.3, 1.5, 1.6, 1.8, 2.0, 2.2, 2.4, 2.7, 3.0,
            3.3, 3.6, 3.9, 4.3, 4.7, 5.1, 5.6, 6.2, 6.8, 7.5, 8.2, 9.1),
}


def cutoff_Hz(resistance_ohm: float, capacitance_F: float) -> float:
    if resistance_ohm <= 0 or capacitance_F <= 0:
        raise ValueError("R and C must be positive")
    return 1 / (2 * math.pi * resistance_ohm * capacitance_F)


def attenuation_dB(kind: str, cutoff_Hz_: float, signal_Hz: float) -> float:
    """How far below the passband a signal at ``signal_Hz`` lies (positive dB = weaker)."""
    ratio = signal_Hz / cutoff_Hz_
    if kind == "low_pass":
        gain = 1 / math.sqrt(1 + ratio ** 2)
    elif kind == "high_pass":
        gain = ratio / math.sqrt(1 + ratio ** 2)
    else:
        raise ValueError(f"unknown filter kind {kind!r} (low_pass or high_pass)")
    return -20 * math.log10(gain)


def snap(value: float, series: str = "E12") -> float:
    """The preferred value nearest to ``value`` on a logarithmic scale."""
    if value <= 0:
        raise ValueError("a component value must be positive")
    decade = math.floor(math.log10(value))
    candidates = [m * 10.0 ** (decade + shift) for shift in (-1, 0, 1) for m in E_SERIES[series]]
    return min(candidates, key=lambda candidate: abs(math.log(candidate / value)))


def snap_cells(low: float, high: float, series: str = "E12") -> list[tuple[float, float]]:
    """[low, high] cut where ``snap`` changes value: on the inside of each cell it takes one preferred value.

    The cuts are the geometric means of neighbouring preferred values (nearest on a logarithmic scale), so
    the cells cover [low, high] and every value ``snap`` takes there is taken inside a cell or at an end.
    A search over snapped parts enumerates the cells instead of hoping a grid lands in each of them.
    """
    if not 0 < low <= high:
        raise ValueError("snapped component values need 0 < low <= high")
    decades = range(math.floor(math.log10(low)) - 1, math.floor(math.log10(high)) + 2)
    preferred = sorted(m * 10.0 ** decade for decade in decades for m in E_SERIES[series])
    cuts = [math.sqrt(a) * math.sqrt(b) for a, b in zip(preferred, preferred[1:])]  # a * b may overflow
    points = [low, *(cut for cut in cuts if low < cut < high), high]
    return list(zip(points, points[1:])) if high > low else [(low, high)]
