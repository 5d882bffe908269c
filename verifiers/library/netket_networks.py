"""The network itself as a result: the feature maps of NetKet's translation-invariant RBM, as Carleo and Troyer
draw them (Science 355, 602 (2017), Fig. 2, left) and Deng, Li and Das Sarma after them (PRX 7, 021021 (2017),
Fig. 7c).

The network is RBMSymm over the ring's translations, with real parameters:
    log psi(s) = a sum_j s_j + sum_f sum_t log cosh(b_f + sum_j W_f((j - t) mod N) s_j),
and its feature maps are the alpha filters W_f(j), one row per f, j the distance along the ring.  The three
observables here read them out of a trained state (effector_vmc_sr's first output).

No two trainings reach the same weights, so the verifier compares these results through the state they define
(verifiers/scientific/representations.py), never entry by entry.
"""

from __future__ import annotations

import netket as nk
import numpy as np


def observable_feature_maps(optimisation: tuple[nk.vqs.MCState, list[float]]) -> list[list[float]]:
    """The trained filters W_f(j): alpha rows of N weights (NetKet's DenseSymm kernel, one input channel)."""
    state, _ = optimisation
    kernel = np.asarray(state.parameters["Dense"]["kernel"])
    return kernel[:, 0, :].tolist()


def observable_hidden_biases(optimisation: tuple[nk.vqs.MCState, list[float]]) -> list[float]:
    """b_f, one per filter."""
    state, _ = optimisation
    return np.asarray(state.parameters["Dense"]["bias"]).tolist()


def observable_visible_bias(optimisation: tuple[nk.vqs.MCState, list[float]]) -> float:
    """a, shared by every site."""
    state, _ = optimisation
    return float(np.asarray(state.parameters["visible_bias"]).ravel()[0])
