"""Canonical forms of element-function outputs, and the facts of comparing two of them (runs in the sandbox).

A differential unit test (differential.py) compares what a script's element function returns with what the
library function of the same role returns on the same inputs.  The two may be written in different
representations, so each output is first brought to a canonical form, a numpy array with the basis it is
written in:

- a Hamiltonian becomes its dense matrix: a TeNPy model or MPO by contracting its MPO (site 0 the most
  significant factor), a Qiskit operator by ``to_matrix`` (qubit 0 the least significant), a NetKet operator
  by ``to_dense`` on its Hilbert space, a numpy or scipy matrix as it is;
- an initial state becomes its state vector, normalised: a TeNPy MPS contracted, a Qiskit circuit simulated;
- a lattice, an observable or a molecule becomes numbers: an array as it is, a NetKet graph its node count and
  sorted edges, a PySCF molecule its invariants (electrons, spin, charge, basis size, nuclear repulsion, the
  sorted eigenvalues of the core Hamiltonian and of the overlap), a list of molecules one row each.

The basis descriptor says when two arrays are written in the same basis.  TeNPy sites are put into one order,
that of their state labels (SpinSite lists down before up, SpinHalfSite up before down: both become down, up),
so that models built from different site classes compare entry by entry; NetKet operators on one Hilbert
space share a basis, but NetKet's Heisenberg applies the Marshall sign rule, a change of basis that an
equivalent operator written by hand does not, so there the basis does not fix the operator's entries.
Nothing here decides an outcome: ``compare`` records numbers for the verifier to judge.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

MAX_DIMENSION = 1024
"""The largest Hilbert-space dimension densified (a 1024 x 1024 complex matrix is 16 MB; its spectrum 0.3 s)."""


class Incomparable(ValueError):
    """The value has no canonical form for its role; the message says why."""


@dataclass(frozen=True)
class Form:
    """An output in canonical form."""

    kind: str
    """operator, state or values"""
    array: np.ndarray
    basis: str
    """what the array's indices mean; empty where the representation does not say"""
    fixes_entries: bool
    """whether, in this basis, different entries with the same spectrum still mean a different operator"""
    representation: str


def type_name(value: Any) -> str:
    kind = type(value)
    return f"{kind.__module__}.{kind.__qualname__}"


def _check_dimension(dimension: int) -> None:
    if dimension > MAX_DIMENSION:
        raise Incomparable(f"Hilbert-space dimension {dimension} exceeds {MAX_DIMENSION}")


def _site_order(site: Any) -> tuple[list[int], str]:
    """A TeNPy site's basis in the order of its state labels, and the labels in that order."""
    labels: dict[int, list[str]] = {}
    for label, index in getattr(site, "state_labels", {}).items():
        labels.setdefault(int(index), []).append(str(label))
    keys = [tuple(sorted(labels.get(index, [f"#{index}"]))) for index in range(site.dim)]
    order = sorted(range(site.dim), key=lambda index: keys[index])
    return order, "/".join("|".join(keys[index]) for index in order)


def _tenpy_basis(sites: list[Any], order: Any = None) -> tuple[list[list[int]], str]:
    orders, labels = zip(*(_site_order(site) for site in sites))
    where = np.asarray(order).tolist() if order is not None else "mps"
    return list(orders), "tenpy:" + json.dumps({"sites": labels, "order": where})


def _permute(array: np.ndarray, orders: list[list[int]], copies: int) -> np.ndarray:
    """``array`` over the product basis (``copies`` = 1 for a vector, 2 for a matrix) with each site reordered."""
    dims = [len(order) for order in orders]
    tensor = array.reshape(dims * copies)
    for copy in range(copies):
        for site, order in enumerate(orders):
            tensor = np.take(tensor, order, axis=copy * len(orders) + site)
    return tensor.reshape(array.shape)


def mpo_matrix(mpo: Any) -> np.ndarray:
    """The dense matrix of a finite TeNPy MPO, site 0 the most significant factor of the product basis."""
    _check_dimension(int(np.prod([site.dim for site in mpo.sites])))
    tensors = [mpo.get_W(i).transpose(["wL", "wR", "p", "p*"]).to_ndarray() for i in range(mpo.L)]
    product = np.transpose(tensors[0][mpo.IdL[0]], (1, 2, 0))
    for tensor in tensors[1:]:
        rows, columns, _ = product.shape
        product = np.einsum("abw,wvpq->apbqv", product, tensor)
        product = product.reshape(rows * tensor.shape[2], columns * tensor.shape[3], tensor.shape[1])
    return product[:, :, mpo.IdR[mpo.L]]


def operator_form(value: Any) -> Form:
    """A Hamiltonian's dense matrix and its basis."""
    name = type_name(value)
    if hasattr(value, "H_MPO") and hasattr(value, "lat"):
        orders, basis = _tenpy_basis(value.lat.mps_sites(), value.lat.order)
        return Form("operator", _permute(mpo_matrix(value.H_MPO), orders, 2), basis, True, name)
    if hasattr(value, "get_W") and hasattr(value, "sites"):
        orders, basis = _tenpy_basis(value.sites)
        return Form("operator", _permute(mpo_matrix(value), orders, 2), basis, True, name)
    if hasattr(value, "num_qubits") and hasattr(value, "to_matrix"):
        _check_dimension(2 ** int(value.num_qubits))
        return Form("operator", np.asarray(value.to_matrix()), f"qiskit:{value.num_qubits} qubits", True, name)
    if hasattr(value, "to_dense") and hasattr(value, "hilbert"):
        _check_dimension(int(value.hilbert.n_states))
        return Form("operator", np.asarray(value.to_dense()), f"netket:{value.hilbert!r}", False, name)
    matrix = value.toarray() if hasattr(value, "toarray") else value
    if isinstance(matrix, np.ndarray) and matrix.ndim == 2 and matrix.shape[0] == matrix.shape[1]:
        _check_dimension(matrix.shape[0])
        return Form("operator", np.asarray(matrix, dtype=complex), "", False, name)
    raise Incomparable(f"{name} is no Hamiltonian representation the comparison knows")


def _normalised(vector: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(vector)
    return vector / norm if norm > 0 else vector


def state_form(value: Any) -> Form:
    """An initial state's normalised vector and its basis."""
    name = type_name(value)
    if hasattr(value, "get_theta") and hasattr(value, "sites"):
        _check_dimension(int(np.prod([site.dim for site in value.sites])))
        orders, basis = _tenpy_basis(value.sites)
        vector = value.get_theta(0, value.L).to_ndarray().reshape(-1)
        return Form("state", _normalised(_permute(vector, orders, 1)), basis, True, name)
    if hasattr(value, "num_qubits") and hasattr(value, "data") and hasattr(value, "probabilities"):
        return Form("state", _normalised(np.asarray(value.data)), f"qiskit:{value.num_qubits} qubits", True, name)
    if hasattr(value, "num_qubits") and hasattr(value, "compose"):
        from qiskit.quantum_info import Statevector

        _check_dimension(2 ** int(value.num_qubits))
        return Form("state", _normalised(np.asarray(Statevector(value).data)), f"qiskit:{value.num_qubits} qubits",
                    True, name)
    if isinstance(value, np.ndarray) and value.ndim == 1:
        return Form("state", _normalised(value.astype(complex)), "", True, name)
    raise Incomparable(f"{name} is no state representation the comparison knows")


def _molecule_numbers(mol: Any) -> list[float]:
    core = mol.intor("int1e_kin") + mol.intor("int1e_nuc")
    return [float(mol.nelectron), float(mol.spin), float(mol.charge), float(mol.nao_nr()), float(mol.energy_nuc()),
            *np.linalg.eigvalsh(core).tolist(), *np.linalg.eigvalsh(mol.intor("int1e_ovlp")).tolist()]


def values_form(value: Any) -> Form:
    """Numbers: an array, a graph's node count and sorted edges, a molecule's invariants (one row each)."""
    name = type_name(value)
    if hasattr(value, "edges") and hasattr(value, "n_nodes"):
        edges = sorted(tuple(sorted(edge)) for edge in value.edges())
        return Form("values", np.asarray([[value.n_nodes, value.n_nodes], *edges], dtype=float), "edges", True, name)
    several = isinstance(value, (list, tuple)) and value and all(hasattr(m, "intor") for m in value)
    molecules = list(value) if several else None
    if molecules is not None or hasattr(value, "intor"):
        return Form("values", np.asarray([_molecule_numbers(m) for m in (molecules or [value])]), "molecule", True,
                    name)
    try:
        array = np.asarray(value)
    except Exception as error:
        raise Incomparable(f"{name} is not an array of numbers: {error}") from error
    if array.dtype.kind not in "biufc":
        raise Incomparable(f"{name} is not an array of numbers (dtype {array.dtype})")
    return Form("values", array.astype(complex), "", True, name)


FORMS = {"hamiltonian": operator_form, "initialstate": state_form, "lattice": values_form, "item": values_form,
         "observable": values_form}
"""The canonical form of each compared role."""


def _number(value: complex) -> float | list[float]:
    value = complex(value)
    return value.real if value.imag == 0 else [value.real, value.imag]


def entry_facts(script: np.ndarray, library: np.ndarray, rtol: float, atol: float) -> dict[str, Any]:
    """How two arrays of one shape differ: the largest difference, how many entries lie outside
    ``|script - library| <= atol + rtol |library|``, and the first of them (index, both values)."""
    close = np.isclose(script, library, rtol=rtol, atol=atol)
    facts: dict[str, Any] = {"size": int(close.size), "differing": int(close.size - np.count_nonzero(close)),
                             "max_abs_difference": float(np.max(np.abs(script - library))) if close.size else 0.0}
    if facts["differing"]:
        index = tuple(int(i) for i in np.argwhere(~close)[0])
        facts["first"] = {"index": list(index), "script": _number(script[index]), "library": _number(library[index])}
    return facts


def spectrum(matrix: np.ndarray) -> np.ndarray:
    return np.linalg.eigvalsh((matrix + matrix.conj().T) / 2)


def compare(script: Form, library: Form, rtol: float, atol: float) -> dict[str, Any]:
    """The facts of comparing two canonical forms of one role (entries, spectra, shapes, bases), undecided."""
    facts: dict[str, Any] = {
        "script": {"representation": script.representation, "shape": list(script.array.shape), "basis": script.basis},
        "library": {"representation": library.representation, "shape": list(library.array.shape),
                    "basis": library.basis},
        "same_basis": bool(library.basis) and script.basis == library.basis,
        "fixes_entries": script.fixes_entries and library.fixes_entries,
        "same_shape": script.array.shape == library.array.shape,
    }
    if not facts["same_shape"]:
        return facts
    theirs, ours = script.array, library.array
    if library.kind == "state" and facts["same_basis"]:
        overlap = np.vdot(ours, theirs)
        facts["overlap"] = float(abs(overlap))
        if abs(overlap) > 0:
            theirs = theirs * (abs(overlap) / overlap)  # the global phase is no physics
    if facts["same_basis"] or library.kind == "values":
        facts["entries"] = entry_facts(theirs, ours, rtol, atol)
    if library.kind == "operator" and facts.get("entries", {"differing": 1})["differing"]:
        facts["spectrum"] = entry_facts(spectrum(theirs), spectrum(ours), rtol, atol)
    return facts
