"""The example task's reference data and assertions, checked by independent exact diagonalisation."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sparse
from scipy.sparse.linalg import eigsh

from physvec.taskfiles.loading import load_assertions

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "heisenberg_chain"


def open_chain_ground_energy(L: int) -> float:
    """E0 of H = sum_i S_i.S_{i+1} (spin 1/2, open) in the Sz = 0 sector, by sparse Lanczos."""
    basis = [state for state in range(2**L) if bin(state).count("1") == L // 2]
    index = {state: i for i, state in enumerate(basis)}
    rows, cols, values = [], [], []
    for i, state in enumerate(basis):
        diagonal = 0.0
        for site in range(L - 1):
            aligned = ((state >> site) & 1) == ((state >> (site + 1)) & 1)
            diagonal += 0.25 if aligned else -0.25
            if not aligned:
                rows.append(index[state ^ (0b11 << site)])
                cols.append(i)
                values.append(0.5)
        rows.append(i)
        cols.append(i)
        values.append(diagonal)
    hamiltonian = sparse.csr_matrix((values, (rows, cols)), shape=(len(basis), len(basis)))
    if len(basis) < 3:
        return float(np.linalg.eigvalsh(hamiltonian.toarray())[0])
    return float(eigsh(hamiltonian, k=1, which="SA")[0][0])


def test_reference_energies_match_exact_diagonalisation():
    reference = json.loads((EXAMPLE / "reference.json").read_text())
    for L, energy in zip(reference["lengths"], reference["energies"]):
        assert energy == pytest.approx(open_chain_ground_energy(L), abs=1e-10)


def test_exact_diagonalisation_matches_a_published_value():
    # E0(L=12) = -5.1420906328, measured with an independent ED in ../shared/BACKENDS.md
    assert open_chain_ground_energy(12) == pytest.approx(-5.1420906328, abs=1e-9)


def test_assertion_values_match_closed_forms_and_exact_diagonalisation():
    assertions = {a.name: a for a in load_assertions(EXAMPLE / "assertions.json").assertions}
    assert assertions["six-site chain"].expected == pytest.approx(open_chain_ground_energy(6), abs=1e-12)
    assert open_chain_ground_energy(2) == -0.75  # the singlet: S1.S2 = (0 - 3/2) / 2
    closed_form_four = -0.75 - math.sqrt(3) / 2
    assert assertions["four-site chain"].expected == pytest.approx(closed_form_four, abs=1e-14)
    assert open_chain_ground_energy(4) == pytest.approx(closed_form_four, abs=1e-12)


def test_the_test_fixture_reference_is_the_four_site_closed_form():
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "tiny_task" / "reference.json"
    assert json.loads(fixture.read_text())["energy"] == pytest.approx(-0.75 - math.sqrt(3) / 2, abs=1e-14)


def test_the_tenpy_fixture_reference_is_the_eight_site_ground_energy():
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "tenpy_task" / "reference.json"
    assert json.loads(fixture.read_text())["energy"] == pytest.approx(open_chain_ground_energy(8), abs=1e-10)
