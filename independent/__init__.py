"""Independent reference methods for QMP-Bench: exact diagonalisation, free fermions, exact evolution and
a minimal-basis Hartree-Fock written from textbook integrals.

None of these imports a backend library (TeNPy, NetKet, Qiskit, PySCF): a reference computed here and a
reproduction computed with a backend agree only if both are right.
"""
