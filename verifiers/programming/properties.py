"""Physical properties a unit test can check on an element function's return value, whatever the
script: a Hamiltonian must be Hermitian.

Only representations whose Hermiticity can be decided cheaply and exactly enough are checked: a Qiskit
operator with ``to_matrix`` (up to 12 qubits, as a sparse matrix) and a NetKet operator's own
``is_hermitian``.  Anything else is left to the integration levels and the scientific checks.
"""

from __future__ import annotations

from typing import Any

MAX_QUBITS = 12
TOLERANCE = 1e-10


def hermiticity_problem(value: Any) -> str | None:
    """Why ``value`` is not a Hermitian operator, or None (also when it cannot be decided here)."""
    flag = getattr(type(value), "is_hermitian", None)
    if isinstance(flag, property):
        return None if value.is_hermitian else "the operator reports is_hermitian = False"
    if hasattr(value, "to_matrix") and hasattr(value, "num_qubits") and value.num_qubits <= MAX_QUBITS:
        matrix = value.to_matrix(sparse=True)
        asymmetry = abs(matrix - matrix.conj().T).max() if matrix.nnz else 0.0
        scale = max(abs(matrix).max() if matrix.nnz else 0.0, 1.0)
        if asymmetry > TOLERANCE * scale:
            return f"H - H^dagger has an entry of size {asymmetry:.3g}: the Hamiltonian is not Hermitian"
    return None
