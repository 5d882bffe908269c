"""Networks as results: a figure of learned weights, checked through the state the weights define.

A feature map of a trained network (Carleo and Troyer, Science 355, 602 (2017), Fig. 2; Deng, Li and Das Sarma,
PRX 7, 021021 (2017), Fig. 7c) is no number physvec can recompute: a second network trained at the same
parameters reaches other weights (another seed, another sign of a filter, another local optimum of equal
energy), so comparing weights entry by entry would fail every honest script.  What the weights claim is that
they represent the ground state.  So physvec rebuilds the wave function from the script's weights alone, with
numpy and nothing of the script's or of NetKet's, and computes its energy exactly by summing over every basis
state; that energy is what is compared with the energy of physvec's own network at the same parameters.

The network is NetKet's translation-invariant RBM, in Pauli spins s_j = +-1 of an N-site ring or an L x L torus
(N = L^2 sites numbered x L + y, as nk.graph.Square numbers them):
    log psi(s) = a sum_j s_j + sum_f sum_t log cosh(b_f + sum_j W_f(j - t) s_j),
with j - t the site j translated back by the translation t (mod N on the ring, mod L in each direction on the
torus), feature maps W (alpha x N), hidden biases b (alpha), one visible bias a.  The energy is unchanged by the
conventions a script may read them in: a filter reversed (t - j for j - t) is the inverted network, a torus read
with x and y swapped the transposed one, every spin flipped the flipped one, and the Hamiltonians here are
invariant under all three.

Hamiltonians, Pauli operators on the lattice, given by their couplings:
    H = sum_(i<j) [zz_ij sigma^z_i sigma^z_j + xy_ij (sigma^x_i sigma^x_j + sigma^y_i sigma^y_j)] - h sum_i sigma^x_i,
where xy sigma^x sigma^x + xy sigma^y sigma^y flips an antiparallel pair with amplitude 2 xy.  A Heisenberg ring
under Marshall's sign rule (NetKet's default for a bipartite lattice) has xy = -J in place of +J: the network then
represents the rotated ground state, which is positive.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

MAX_SITES = 22
"""Exact sums over every basis state: 2^22 amplitudes (4 million) at most, seconds and a few hundred MB."""
_CHUNK = 1 << 16


class RepresentationError(ValueError):
    """The results do not describe a network of the task's lattice (shape, size or values)."""


class NotEvaluable(RepresentationError):
    """A network physvec cannot sum (too large, or complex): no fault of the script's, only of physvec's reach."""


LATTICES = ("ring", "square")
"""The lattices whose translations the sums know: a ring, and a square torus of L x L sites."""


def translation_table(lattice: str, sites: int) -> np.ndarray:
    """[t, j] -> the site j translated back by the t-th translation: (j - t) mod N on a ring; on the L x L torus,
    t = (a, b) and j = (x, y) give ((x - a) mod L, (y - b) mod L), sites numbered x L + y."""
    if lattice == "ring":
        return (np.arange(sites)[None, :] - np.arange(sites)[:, None]) % sites
    if lattice == "square":
        side = round(np.sqrt(sites))
        if side * side != sites:
            raise RepresentationError(f"feature maps over {sites} sites are no square torus")
        x, y = np.divmod(np.arange(sites), side)
        return ((x[None, :] - x[:, None]) % side) * side + (y[None, :] - y[:, None]) % side
    raise RepresentationError(f"no translations of a {lattice!r} lattice here (only {', '.join(LATTICES)})")


@dataclass(frozen=True)
class TranslationInvariantRBM:
    """NetKet's RBMSymm on a ring of N sites or an L x L torus, with real parameters."""

    feature_maps: np.ndarray
    """alpha x N: W_f(j), the f-th filter's weight at distance j"""
    hidden_biases: np.ndarray
    visible_bias: float

    @classmethod
    def from_values(cls, feature_maps: Any, hidden_biases: Any, visible_bias: Any) -> TranslationInvariantRBM:
        """The network from a result's three values, checked for shape and finiteness."""
        if any(np.iscomplexobj(np.asarray(value)) for value in (feature_maps, hidden_biases, visible_bias)):
            raise NotEvaluable("complex weights: the exact sum here takes a real network (a positive state, as in "
                               "NetKet's basis with Marshall's rule), so a complex one is neither checked nor refused")
        try:
            maps = np.atleast_2d(np.asarray(feature_maps, dtype=float))
            biases = np.atleast_1d(np.asarray(hidden_biases, dtype=float)).ravel()
            visible = np.asarray(visible_bias, dtype=float).ravel()
        except (TypeError, ValueError) as error:
            raise RepresentationError(f"the network's values are not real numbers: {error}") from error
        if maps.ndim != 2 or biases.shape != (maps.shape[0],) or visible.size != 1:
            raise RepresentationError(f"feature maps {maps.shape}, hidden biases {biases.shape} and visible bias "
                                      f"{visible.shape} do not make one network (alpha x N, alpha, one number)")
        if not (np.all(np.isfinite(maps)) and np.all(np.isfinite(biases)) and np.isfinite(visible[0])):
            raise RepresentationError("the network holds a value that is not finite")
        return cls(maps, biases, float(visible[0]))

    @property
    def sites(self) -> int:
        return self.feature_maps.shape[1]

    def log_amplitudes(self, spins: np.ndarray, lattice: str = "ring") -> np.ndarray:
        """log psi of each row of ``spins`` (+-1), up to one constant."""
        n = self.sites
        filters = self.feature_maps[:, translation_table(lattice, n)]  # alpha x t x j
        theta = spins @ filters.reshape(-1, n).T + np.repeat(self.hidden_biases, n)[None, :]
        return self.visible_bias * spins.sum(axis=1) + _log_cosh(theta).sum(axis=1)


def _log_cosh(x: np.ndarray) -> np.ndarray:
    """log cosh x without overflow for large |x|."""
    a = np.abs(x)
    return a + np.log1p(np.exp(-2 * a)) - np.log(2.0)


@dataclass(frozen=True)
class Couplings:
    """The Hamiltonian of the module docstring: symmetric N x N zz and xy couplings and a transverse field h."""

    zz: np.ndarray
    xy: np.ndarray
    h: float = 0.0
    zero_magnetisation: bool = False
    """whether the state lives in the sector sum_j s_j = 0 (a Hamiltonian that conserves it, sampled there)"""


def _bonds(lattice: str, sites: int) -> list[tuple[int, int]]:
    """The nearest-neighbour bonds: (i, i + 1) around the ring; (x, y) to (x + 1, y) and (x, y + 1) on the torus."""
    if lattice == "ring":
        return [(i, (i + 1) % sites) for i in range(sites)]
    side = round(np.sqrt(sites))
    return [(x * side + y, ((x + dx) % side) * side + (y + dy) % side)
            for x in range(side) for y in range(side) for dx, dy in ((1, 0), (0, 1))]


def _nearest_neighbours(lattice: str, sites: int, value: float) -> np.ndarray:
    couplings = np.zeros((sites, sites))
    for i, j in _bonds(lattice, sites):
        couplings[i, j] = couplings[j, i] = value
    return couplings


def lattice_couplings(model: str, params: dict[str, Any], sites: int, lattice: str = "ring") -> Couplings:
    """The couplings of a library model, in the library's conventions (verifiers/library):
    transverse_field_ising: H = -h sum sigma^x + J sum sigma^z sigma^z (NetKet's Ising);
    heisenberg: H = J sum sigma . sigma at zero magnetisation, under Marshall's sign rule;
    modified_haldane_shastry (ring only): H = J sum_(j<k) (-X X - Y Y + Z Z) / d_jk^2,
    d_jk = (N / pi) |sin(pi (j - k) / N)|."""
    translation_table(lattice, sites)
    if model == "transverse_field_ising":
        return Couplings(_nearest_neighbours(lattice, sites, float(params["J"])), np.zeros((sites, sites)),
                         float(params["h"]))
    if model == "heisenberg":
        if int(params.get("total_sz", 0)) != 0:
            raise NotEvaluable(f"total_sz = {params['total_sz']}: the exact sum here covers zero magnetisation only")
        J = float(params["J"])
        return Couplings(_nearest_neighbours(lattice, sites, J), _nearest_neighbours(lattice, sites, -J),
                         zero_magnetisation=True)
    if model == "modified_haldane_shastry" and lattice == "ring":
        distance = np.abs(np.subtract.outer(np.arange(sites), np.arange(sites)))
        chord = (sites / np.pi) * np.abs(np.sin(np.pi * distance / sites))
        inverse_square = np.divide(1.0, chord ** 2, out=np.zeros((sites, sites)), where=distance > 0)
        J = float(params["J"])
        return Couplings(J * inverse_square, -J * inverse_square, zero_magnetisation=True)
    raise RepresentationError(f"no Hamiltonian for model {model!r} on a {lattice} here")


def _basis(sites: int, zero_magnetisation: bool) -> np.ndarray:
    """Integer codes of the basis states, bit j set where s_j = +1; sorted."""
    codes = np.arange(1 << sites, dtype=np.int64)
    if zero_magnetisation:
        ones = np.zeros(codes.shape, dtype=np.int64)
        for j in range(sites):
            ones += (codes >> j) & 1
        codes = codes[ones == sites // 2]
    return codes


def _spins(codes: np.ndarray, sites: int) -> np.ndarray:
    return (2 * ((codes[:, None] >> np.arange(sites)[None, :]) & 1) - 1).astype(float)


def exact_energy(network: TranslationInvariantRBM, couplings: Couplings, lattice: str = "ring") -> float:
    """<psi|H|psi> / <psi|psi> of the network's state, summed over every basis state (of the zero-magnetisation
    sector where the couplings say so)."""
    sites = network.sites
    if couplings.zz.shape != (sites, sites):
        raise RepresentationError(f"a network of {sites} sites for a Hamiltonian of {couplings.zz.shape[0]}")
    if couplings.zero_magnetisation and sites % 2:
        raise RepresentationError(f"{sites} sites: an odd number of spins has no zero-magnetisation sector")
    if sites > MAX_SITES:
        raise NotEvaluable(f"{sites} sites: the exact sum reaches {MAX_SITES} sites")
    codes = _basis(sites, couplings.zero_magnetisation)
    log_psi = np.concatenate([network.log_amplitudes(_spins(codes[start:start + _CHUNK], sites), lattice)
                              for start in range(0, codes.size, _CHUNK)])
    psi = np.exp(log_psi - log_psi.max())
    weight = psi @ psi
    energy = 0.0
    for start in range(0, codes.size, _CHUNK):
        spins = _spins(codes[start:start + _CHUNK], sites)
        diagonal = 0.5 * np.einsum("mi,ij,mj->m", spins, couplings.zz, spins)
        energy += float(psi[start:start + _CHUNK] ** 2 @ diagonal)
    for i, j in zip(*np.nonzero(np.triu(couplings.xy))):
        flipped = codes ^ ((1 << int(i)) | (1 << int(j)))
        antiparallel = ((codes >> int(i)) & 1) != ((codes >> int(j)) & 1)
        partner = np.searchsorted(codes, flipped[antiparallel])
        energy += 2 * couplings.xy[i, j] * float(psi[antiparallel] @ psi[partner])
    if couplings.h:
        for i in range(sites):
            partner = np.searchsorted(codes, codes ^ (1 << i))
            energy -= couplings.h * float(psi @ psi[partner])
    return energy / weight


def network_energy(model: str, params: dict[str, Any], values: dict[str, Any], lattice: str = "ring") -> float:
    """The exact energy of the network whose feature_maps, hidden_biases and visible_bias are ``values``, under the
    model's Hamiltonian at ``params`` on the lattice (a ring of N or L sites, or an L x L torus, which the network
    must cover)."""
    missing = [name for name in REPRESENTATION if name not in values]
    if missing:
        raise RepresentationError(f"the results hold no {', '.join(missing)}")
    network = TranslationInvariantRBM.from_values(*(values[name] for name in REPRESENTATION))
    size = params.get("N", params.get("L"))
    sites = None if size is None else int(size) ** (2 if lattice == "square" else 1)
    if sites is not None and sites != network.sites:
        raise RepresentationError(f"feature maps over {network.sites} sites for a {lattice} of {sites}")
    return exact_energy(network, lattice_couplings(model, params, network.sites, lattice), lattice)


REPRESENTATION = ("feature_maps", "hidden_biases", "visible_bias")
"""The observables that together are a network: compared through the state they define, never entry by entry."""
