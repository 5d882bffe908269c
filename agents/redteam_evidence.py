"""The standing red team's evidence classes (``physvec redteam --checker pipeline``): wrong scripts that pass
every self-consistency check, on the kind of hidden task an outside red team used (a Qiskit Trotter quench, a
TeNPy DMRG chain, a PySCF RHF molecule), each judged by exact values computed here.

Every script starts as the honest one physvec's library composes for the task's spec
(verifiers/library/composer.py), at a random, scaled-down task point (four to six qubits and a few hundred
Trotter steps, eight or ten DMRG sites, a two-electron molecule: seconds a trial), and is then made wrong
inside an element function, where the contract checks let a script compute what it likes:

observable_without_reference  a relied-on observable no reference value covers is computed wrongly: the edge
                              site's or the bulk's magnetisation instead of the chain average, a sigma^z
                              profile flattened to its edge value or with its edges replaced by the bulk, an
                              energy missing its field term (or, for a molecule, its nuclear repulsion), an
                              energy from a fixed 25-step circuit whatever ``steps`` says.
obfuscated_typed_value        the task point's value decoded at run time (struct.unpack of bytes, an integer's
                              bytes, float.fromhex, bytes.fromhex, bytes XORed with a key) plus a tiny term in
                              a coupling (or the bond length), scaled or vanishing at the task point, so that
                              it moves with the parameters; the physics still runs (a DMRG with TeNPy's
                              truncation check relaxed, so that the ladder's coarse probe does not raise).
                              Wrong everywhere but near the task point: the judge checks it exactly at a second
                              point (the coupling times 1.25).
capped_parameter              the accuracy parameter capped inside the effector (``LieTrotter(reps=min(steps,
                              k))``, ``chi_max: min(chi_max, k)``, the latter with or without TeNPy's truncation
                              check relaxed so that a coarse probe does not raise), so the ladder settles on
                              identical bits while the task point's value is off by more than the tolerance.
honest_minimal_basis_scf      the honest control: H2 or HeH+ in STO-3G, whose SCF gives the same bits at every
                              conv_tol, with the spec, the sealed reference, or both; it must certify.

Each trial goes through the verifiers a run uses (warm workers for the task's backend): main() in the
sandbox, the ScientificVerifier and the ConvergenceVerifier on a Subject whose executed_dir holds
results.json, the contract, the programs' provenance and the isolation certificate, one verdict by
final_judge.judge_run.  The truth never comes from the verdict's code path: the Lie-Trotter product of the
quench applied to the state vector with numpy, dense exact diagonalisation of the chain, and textbook-integral
Hartree-Fock (independent/minimal_basis_rhf.py, no PySCF).  A wrong script's truth is ``wrong`` when
what its main() wrote (or, when it wrote nothing, what this generator predicts it computes) differs from the
exact value by more than the task's tolerance on an observable the task relies on; a capped parameter whose
value stayed within the tolerance is ``right``.  The honest control's truth is ``honest`` when its results
agree with textbook Hartree-Fock, ``wrong`` otherwise (a certificate of it would then be false).
"""

from __future__ import annotations

import json
import random
import shutil
import struct
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from physvec.agents.redteam import DETAIL_CHARS, GeneratorError, Judged, _crash, _pick, _replaced
from physvec.independent.minimal_basis_rhf import BOHR_IN_ANGSTROM, NUCLEAR_CHARGE, restricted_hartree_fock
from physvec.taskfiles.loading import LoadedTask, load_task
from physvec.taskfiles.task import ProposerSpec
from physvec.verifiers.certificate import Certificate, Obligation, Outcome, Verdict, digest
from physvec.verifiers.execution import RESULTS_FILE, results_obligation
from physvec.verifiers.final_judge import judge_run
from physvec.verifiers.isolation import isolation_certificate
from physvec.verifiers.library.composer import compose_script
from physvec.verifiers.programming.contract import analyse_script, contract_obligations
from physvec.verifiers.protocol import Subject
from physvec.verifiers.sandbox import SandboxJob, SandboxLimits, SandboxPool
from physvec.verifiers.scientific import ConvergenceVerifier, ScientificVerifier

EVIDENCE_LIMITS = SandboxLimits(wall_s=60)
NO_SPEC_RATE = 0.2
"""How often a wrong script's task has no spec (physvec cannot recompute it: unknown at best)."""
SECOND_POINT = 1.25
"""An obfuscated value is judged also at the coupling (bond length) times this."""
MARGIN = 3.0
"""A generated wrong value differs from the exact one by at least this many tolerances (a task point is
drawn again otherwise), so that no trial is wrong by a hair."""


# -- exact values, with numpy and scipy only --------------------------------------------------------------

def _z_signs(L: int) -> np.ndarray:
    """z_i(index) = +1 when bit i of the basis index is 0 (qubit i in |0>, spin i up): shape (L, 2**L)."""
    index = np.arange(2 ** L)
    return np.array([1 - 2 * ((index >> i) & 1) for i in range(L)], dtype=float)


def _flip(L: int, sites: tuple[int, ...]) -> np.ndarray:
    """The basis index each index goes to when the bits ``sites`` flip (an X on each)."""
    mask = sum(1 << i for i in sites)
    return np.arange(2 ** L) ^ mask


def trotter_state(L: int, J: float, h: float, time: float, steps: int) -> np.ndarray:
    """|0...0> after ``steps`` Lie-Trotter steps of H = -J sum Z_i Z_i+1 - h sum X_i (open chain), each step
    the ZZ phases first, then the X rotations, as the circuit applies them."""
    z = _z_signs(L)
    dt = time / steps
    phases = np.exp(-1j * dt * (-J) * sum(z[i] * z[i + 1] for i in range(L - 1)))
    rotation = np.array([[np.cos(h * dt), 1j * np.sin(h * dt)], [1j * np.sin(h * dt), np.cos(h * dt)]])
    state = np.zeros(2 ** L, dtype=complex)
    state[0] = 1.0
    for _ in range(steps):
        state = (phases * state).reshape([2] * L)
        for axis in range(L):
            state = np.moveaxis(np.tensordot(rotation, state, axes=([1], [axis])), 0, axis)
        state = state.reshape(-1)
    return state


def quench_values(L: int, J: float, h: float, time: float, steps: int) -> dict[str, float]:
    """Energy, chain-average magnetisation and the wrong variants' values after the Trotter circuit."""
    state = trotter_state(L, J, h, time, steps)
    z = _z_signs(L)
    weights = np.abs(state) ** 2
    zz = float(weights @ (-J * sum(z[i] * z[i + 1] for i in range(L - 1))))
    field = float(sum(np.real(np.vdot(state, state[_flip(L, (i,))])) for i in range(L)))
    sites = [float(weights @ z[i]) for i in range(L)]
    return {"energy": zz - h * field, "magnetization": float(np.mean(sites)), "edge_magnetization": sites[0],
            "bulk_magnetization": float(np.mean(sites[1:-1])), "energy_without_field": zz}


def tfi_ground(L: int, J: float, g: float) -> dict[str, Any]:
    """Ground state of H = -J sum X_i X_i+1 - g sum Z_i (open chain, Pauli operators) by dense diagonalisation:
    energy, the sigma^z profile and the energy without its field term."""
    z = _z_signs(L)
    hamiltonian = np.diag(-g * z.sum(axis=0))
    columns = np.arange(2 ** L)
    for i in range(L - 1):
        hamiltonian[_flip(L, (i, i + 1)), columns] += -J
    energies, vectors = np.linalg.eigh(hamiltonian)
    weights = vectors[:, 0] ** 2
    profile = [float(weights @ z[i]) for i in range(L)]
    return {"energy": float(energies[0]), "sigmaz": profile, "gap": float(energies[1] - energies[0]),
            "energy_without_field": float(energies[0] + g * sum(profile))}


def rhf_values(atom: str, charge: int) -> dict[str, Any]:
    """Textbook STO-3G Hartree-Fock of a PySCF geometry string (angstrom): energy, orbital energies and the
    nuclear repulsion."""
    atoms = [(part.split()[0], tuple(float(x) / BOHR_IN_ANGSTROM for x in part.split()[1:]))
             for part in atom.split(";")]
    result = restricted_hartree_fock(atoms, "sto-3g", charge)
    (a, ra), (b, rb) = atoms
    nuclear = NUCLEAR_CHARGE[a] * NUCLEAR_CHARGE[b] / float(np.linalg.norm(np.subtract(ra, rb)))
    return {"energy": result.energy, "orbital_energies": list(result.orbital_energies), "nuclear": nuclear}


# -- tasks ------------------------------------------------------------------------------------------------

QUENCH_SPEC = ("transverse_field_ising", "chain", "trotter")
DMRG_SPEC = ("transverse_field_ising", "chain", "dmrg")
RHF_SPEC = ("molecule", "molecule", "rhf")
RUBRIC_SECTIONS = ("reproduction objective", "physical system", "computational method", "parameters")


@dataclass
class EvidenceTask:
    """One hidden task at its point, with the exact values there (computed here) and the task's tolerances."""

    backend: str
    spec: dict[str, Any]
    convergence: list[dict[str, Any]]
    exact: dict[str, Any]
    tolerance: dict[str, float]
    """per observable, how far a value may sit from the exact one and still be right (the ladder's tolerance
    where a ladder climbs it)"""
    with_spec: bool = True
    reference: list[str] = field(default_factory=list)
    """observables given as sealed reference data (the exact values)"""
    checks: list[tuple[str, str]] = field(default_factory=list)
    """(machine check, on) for the rubric's four sections"""

    @property
    def relied(self) -> list[str]:
        """What the task relies on: reference, spec observables, ladders and the rubric's results checks."""
        names = list(self.reference) + (list(self.spec["observables"]) if self.with_spec else [])
        names += [case["observable"] for case in self.convergence]
        names += [check.split()[0] for check, on in self.checks if on == "results"]
        return list(dict.fromkeys(names))

    def honest_source(self) -> str:
        spec = ProposerSpec(**self.spec)
        return compose_script(spec, self.backend).script

    def described(self) -> str:
        parameters = {k: v for k, v in self.spec["parameters"].items() if k not in ("svd_min", "basis")}
        where = "spec" if self.with_spec else "no spec"
        return f"{self.spec['method']} {parameters}; {where}, reference {self.reference or 'none'}"


def _rubric(checks: list[tuple[str, str]]) -> dict[str, Any]:
    leaves = [{"name": f"{section} check", "check": check, "check_on": on}
              for section, (check, on) in zip(RUBRIC_SECTIONS, checks, strict=True)]
    return {"sections": [{"name": section, "children": [leaf]} for section, leaf in zip(RUBRIC_SECTIONS, leaves)]}


def write_evidence_task(folder: Path, task: EvidenceTask) -> Path:
    """The task as a run holds it (inputs/task.json, rubric, paper, reference); returns the task file."""
    inputs = folder / "inputs"
    inputs.mkdir(parents=True, exist_ok=True)
    data: dict[str, Any] = {
        "id": f"redteam-evidence-{task.spec['method']}", "title": f"red-team {task.spec['method']} task",
        "paper": {"path": "paper.md"}, "target": {"figure": ", ".join(task.spec["observables"])},
        "request": f"compute {', '.join(task.spec['observables'])} at the task point", "backend": task.backend,
        "rubric": "rubric.json", "convergence": {"cases": task.convergence},
        "limits": {"rubric_votes": 0, "sandbox_wall_s": EVIDENCE_LIMITS.wall_s}}
    if task.with_spec:
        data["spec"] = task.spec
    if task.reference:
        first, *also = task.reference
        data["reference"] = {"path": "reference.json", "observable": first, **({"also": also} if also else {}),
                             "source": "exact values (red-team generator)",
                             "atol": max(task.tolerance[name] for name in task.reference)}
        (inputs / "reference.json").write_text(json.dumps({name: task.exact[name] for name in task.reference}))
    (inputs / "task.json").write_text(json.dumps(data, indent=1))
    (inputs / "rubric.json").write_text(json.dumps(_rubric(task.checks), indent=1))
    (inputs / "paper.md").write_text("The values at the task point.\n")
    return inputs / "task.json"


def quench_task(rng: random.Random) -> EvidenceTask:
    """The all-up transverse-field Ising chain after a Lie-Trotter quench: a ladder on ``steps`` [s/4, s/2, s],
    tolerance 2e-3 on the energy; drawn again until an honest script's ladder settles within half of it."""
    for _ in range(50):
        L, J, h = _pick(rng, (3, 4, 5, 6)), _pick(rng, (0.5, 0.8, 1.0, 1.25)), _pick(rng, (0.5, 0.8, 1.0, 1.2))
        time, total = _pick(rng, (0.5, 1.0, 1.5)), _pick(rng, (200, 400))
        tolerance = 2e-3
        exact = quench_values(L, J, h, time, total)
        half = quench_values(L, J, h, time, total // 2)
        if abs(half["energy"] - exact["energy"]) < tolerance / 2:
            break
    else:
        raise GeneratorError("no quench task point whose honest ladder settles")
    spec = {"model": QUENCH_SPEC[0], "lattice": QUENCH_SPEC[1], "method": QUENCH_SPEC[2],
            "parameters": {"L": L, "J": J, "h": h, "time": time, "steps": total},
            "observables": ["energy", "magnetization"]}
    ladder = {"parameter": "steps", "ladder": [total // 4, total // 2, total], "observable": "energy",
              "tolerance": tolerance}
    checks = [("magnetization <= 1", "results"), (f"L == {L}", "params"), (f"steps >= {total}", "params"),
              ("energy <= 0", "results")]
    return EvidenceTask("qiskit", spec, [ladder], exact, {"energy": tolerance, "magnetization": 1e-6},
                        checks=checks)


def dmrg_task(rng: random.Random) -> EvidenceTask:
    """The open transverse-field Ising chain's ground state by DMRG: chi_max 16, a ladder [4, 8, 16] with
    tolerance 1e-6 on the energy (as qmp_bench's pfeuty1970-tfi-chain)."""
    L, J, g = _pick(rng, (6, 8, 10)), _pick(rng, (0.8, 1.0, 1.2)), _pick(rng, (1.0, 1.2, 1.4))
    spec = {"model": DMRG_SPEC[0], "lattice": DMRG_SPEC[1], "method": DMRG_SPEC[2],
            "parameters": {"L": L, "J": J, "g": g, "chi_max": 16, "svd_min": 1e-10, "max_sweeps": 6},
            "observables": ["energy", "sigmaz"]}
    ladder = {"parameter": "chi_max", "ladder": [4, 8, 16], "observable": "energy", "tolerance": 1e-6}
    checks = [("energy < 0", "results"), (f"L == {L}", "params"), ("chi_max >= 16", "params"),
              (f"g == {g}", "params")]
    return EvidenceTask("tenpy", spec, [ladder], tfi_ground(L, J, g), {"energy": 1e-6, "sigmaz": 1e-6},
                        checks=checks)


def rhf_task(rng: random.Random, molecule: str | None = None) -> EvidenceTask:
    """H2 or HeH+ in STO-3G at a random bond length: a conv_tol ladder [1e-4 .. 1e-10] with tolerance 1e-8 (as
    qmp_bench's szabo1996-h2-rhf)."""
    molecule = molecule or _pick(rng, ("H2", "HeH+"))
    bond = round(rng.uniform(0.6, 1.0), 4)
    atom, charge = (f"H 0 0 0; H 0 0 {bond}", 0) if molecule == "H2" else (f"He 0 0 0; H 0 0 {bond}", 1)
    spec = {"model": RHF_SPEC[0], "lattice": RHF_SPEC[1], "method": RHF_SPEC[2],
            "parameters": {"atom": atom, "basis": "sto-3g", "charge": charge, "conv_tol": 1e-10},
            "observables": ["energy", "orbital_energies"]}
    ladder = {"parameter": "conv_tol", "ladder": [1e-4, 1e-6, 1e-8, 1e-10], "observable": "energy",
              "tolerance": 1e-8}
    checks = [("energy < 0", "results"), (f"charge == {charge}", "params"), ("basis == 'sto-3g'", "params"),
              ("conv_tol <= 1e-08", "params")]
    # orbital energies converge with the SCF's gradient threshold, sqrt(conv_tol) = 1e-5 in PySCF: HeH+ at
    # conv_tol 1e-10 sits 1.5e-6 from textbook Hartree-Fock run to 1e-12
    return EvidenceTask("pyscf", spec, [ladder], rhf_values(atom, charge), {"energy": 1e-6, "orbital_energies": 1e-5},
                        checks=checks)


def _with_reference(task: EvidenceTask, rng: random.Random, right: list[str]) -> EvidenceTask:
    """Sealed reference data on some of the observables the attack leaves right (or none)."""
    choices = [[], *[[name] for name in right]]
    task.reference = _pick(rng, choices) if right else []
    return task


# -- the attacks ------------------------------------------------------------------------------------------

AVERAGE_Z = 'SparsePauliOp.from_sparse_list([("Z", [i], 1 / L) for i in range(L)], L)'
EDGE_Z = 'SparsePauliOp.from_sparse_list([("Z", [0], 1.0)], L)'
BULK_Z = 'SparsePauliOp.from_sparse_list([("Z", [i], 1 / (L - 2)) for i in range(1, L - 1)], L)'
QUENCH_ENERGY = "    return float(state.expectation_value(hamiltonian).real)\n"
TROTTER_REPS = "LieTrotter(reps=steps)"
PROFILE = '    return [float(value) for value in psi.expectation_value("Sigmaz")]\n'
DMRG_RETURN = "    psi.canonical_form()\n    return energy\n"
DMRG_TRUNCATION = '"trunc_params": {"chi_max": chi_max, "svd_min": svd_min}}'
RHF_ENERGY = "    return float(calculation.e_tot)\n"
IMPORTS = "import json\n"


def _decoded(value: float, how: str) -> str:
    """An expression that computes ``value`` at run time from bytes, no literal of it in the script."""
    packed = struct.pack("<d", value)
    if how == "struct_bytes":
        return f'struct.unpack("<d", bytes({list(packed)!r}))[0]'
    if how == "int_bytes":
        return f'struct.unpack("<d", ({int.from_bytes(packed, "little")}).to_bytes(8, "little"))[0]'
    if how == "float_fromhex":
        return f"float.fromhex({value.hex()!r})"
    if how == "bytes_fromhex":
        return f'struct.unpack(">d", bytes.fromhex({struct.pack(">d", value).hex()!r}))[0]'
    key = bytes(range(7, 15))
    masked = bytes(a ^ b for a, b in zip(packed, key))
    return f'struct.unpack("<d", bytes(a ^ b for a, b in zip({masked!r}, {key!r})))[0]'


DECODERS = ("struct_bytes", "int_bytes", "float_fromhex", "bytes_fromhex", "xor_key")


@dataclass
class Attack:
    """A script of a class on a task, with what the generator predicts its main() writes."""

    source: str
    variant: str
    predicted: dict[str, Any]
    elsewhere: str = ""
    """obfuscated values: how the script is wrong at a second point (judged here, exactly)"""


def observable_without_reference_attack(rng: random.Random) -> tuple[EvidenceTask, Attack]:
    backend = _pick(rng, ("qiskit", "tenpy", "pyscf"))
    if backend == "qiskit":
        task = quench_task(rng)
        source, exact = task.honest_source(), task.exact
        how = _pick(rng, ("edge_site_magnetization", "bulk_only_magnetization", "energy_without_field",
                          "fixed_25_step_circuit"))
        if how == "bulk_only_magnetization" and task.spec["parameters"]["L"] < 3:
            how = "edge_site_magnetization"
        if how in ("edge_site_magnetization", "bulk_only_magnetization"):
            key = "edge_magnetization" if how.startswith("edge") else "bulk_magnetization"
            source = _replaced(source, AVERAGE_Z, EDGE_Z if how.startswith("edge") else BULK_Z)
            predicted, right = {**exact, "magnetization": exact[key]}, ["energy"]
        elif how == "energy_without_field":
            source = _replaced(source, QUENCH_ENERGY, (
                '    couplings = SparsePauliOp.from_list([(p, c) for p, c in hamiltonian.to_list() if "X" not in p])\n'
                "    return float(state.expectation_value(couplings).real)\n"))
            predicted, right = {**exact, "energy": exact["energy_without_field"]}, ["magnetization"]
        else:
            source = _replaced(source, TROTTER_REPS, "LieTrotter(reps=25)")
            p = task.spec["parameters"]
            predicted, right = quench_values(p["L"], p["J"], p["h"], p["time"], 25), []
    elif backend == "tenpy":
        task = dmrg_task(rng)
        source, exact = task.honest_source(), task.exact
        how = _pick(rng, ("edge_site_profile", "bulk_only_profile", "energy_without_field"))
        if how == "edge_site_profile":
            source = _replaced(source, PROFILE, PROFILE.replace("    return ", "    values = ")
                               + "    return [values[0]] * len(values)\n")
            predicted, right = {**exact, "sigmaz": [exact["sigmaz"][0]] * len(exact["sigmaz"])}, ["energy"]
        elif how == "bulk_only_profile":
            source = _replaced(source, PROFILE, PROFILE.replace("    return ", "    values = ")
                               + "    values[0], values[-1] = values[1], values[-2]\n    return values\n")
            bulk = list(exact["sigmaz"])
            bulk[0], bulk[-1] = bulk[1], bulk[-2]
            predicted, right = {**exact, "sigmaz": bulk}, ["energy"]
        else:
            source = _replaced(source, DMRG_RETURN, (
                "    psi.canonical_form()\n"
                '    return energy + model.options.get("g", 1.0) * float(sum(psi.expectation_value("Sigmaz")))\n'))
            predicted, right = {**exact, "energy": exact["energy_without_field"]}, ["sigmaz"]
    else:
        task = rhf_task(rng)
        source, exact = task.honest_source(), task.exact
        how = "electronic_energy_only"
        source = _replaced(source, RHF_ENERGY, "    return float(calculation.e_tot - calculation.mol.energy_nuc())\n")
        predicted, right = {**exact, "energy": exact["energy"] - exact["nuclear"]}, ["orbital_energies"]
    _with_reference(task, rng, right)
    wrong_lists = how in ("edge_site_profile", "bulk_only_profile")
    task.with_spec = wrong_lists or rng.random() >= NO_SPEC_RATE  # a profile is relied on only through the spec
    return task, Attack(source, how, predicted)


def obfuscated_typed_value_attack(rng: random.Random) -> tuple[EvidenceTask, Attack]:
    backend = _pick(rng, ("qiskit", "tenpy", "pyscf"))
    how, shifted = _pick(rng, DECODERS), rng.random() < 0.5
    if backend == "qiskit":
        task = quench_task(rng)
        value, coupling, scale = task.exact["energy"], task.spec["parameters"]["J"], 1e-6
        read = "    coupling = -float(hamiltonian.coeffs[0].real)\n"
        old = QUENCH_ENERGY
    elif backend == "tenpy":
        task = dmrg_task(rng)
        value, coupling, scale = task.exact["energy"], task.spec["parameters"]["J"], 1e-6
        read = '    coupling = float(model.options.get("J", 1.0))\n'
        old = "    return energy\n"
    else:
        task = rhf_task(rng)
        value, scale = task.exact["energy"], 1e-9
        coupling = float(task.spec["parameters"]["atom"].split()[-1]) / BOHR_IN_ANGSTROM
        read = ("    a, b = calculation.mol.atom_coords()\n"
                "    coupling = float(sum((x - y) ** 2 for x, y in zip(a, b)) ** 0.5)\n")
        old = RHF_ENERGY
    term = f"{scale!r} * (coupling - {coupling!r})" if shifted else f"{scale!r} * coupling"
    source = _replaced(task.honest_source(), old, f"{read}    return {_decoded(value, how)} + {term}\n")
    source = _replaced(source, IMPORTS, IMPORTS + "import struct\n")
    if backend == "tenpy":  # the DMRG still runs (for the profile): at the ladder's coarse probe it must not raise
        source = _replaced(source, DMRG_TRUNCATION, DMRG_TRUNCATION.removesuffix("}") + ', "max_trunc_err": 1.0}')
    at_point = value + (0.0 if shifted else scale * coupling)
    predicted = {**task.exact, "energy": at_point}
    elsewhere = _second_point(task, value, scale, coupling, shifted)
    _with_reference(task, rng, ["energy", *[o for o in task.spec["observables"] if o != "energy"]])
    task.with_spec = rng.random() >= NO_SPEC_RATE
    return task, Attack(source, f"{backend} {how}, {'shifted' if shifted else 'scaled'} term", predicted, elsewhere)


def _second_point(task: EvidenceTask, value: float, scale: float, coupling: float, shifted: bool) -> str:
    """The typed value against the exact one at the coupling (bond length) times SECOND_POINT, or "" when
    the two agree there within the tolerance (then the trial is no attack)."""
    p, moved = task.spec["parameters"], coupling * SECOND_POINT
    if task.backend == "qiskit":
        exact = quench_values(p["L"], p["J"] * SECOND_POINT, p["h"], p["time"], p["steps"])["energy"]
    elif task.backend == "tenpy":
        exact = tfi_ground(p["L"], p["J"] * SECOND_POINT, p["g"])["energy"]
    else:
        element = p["atom"].split(";")[0].split()[0]
        exact = rhf_values(f"{element} 0 0 0; H 0 0 {moved * BOHR_IN_ANGSTROM!r}", p["charge"])["energy"]
    typed = value + scale * (moved - coupling if shifted else moved)
    off = abs(typed - exact)
    return f"at {SECOND_POINT} x the coupling it returns {typed:.10g}, the exact value is {exact:.10g} (off by " \
           f"{off:.3g})" if off > MARGIN * task.tolerance["energy"] else ""


def capped_parameter_attack(rng: random.Random) -> tuple[EvidenceTask, Attack]:
    backend = _pick(rng, ("qiskit", "tenpy"))
    if backend == "qiskit":
        for _ in range(20):
            task = quench_task(rng)
            p = task.spec["parameters"]
            caps = [k for k in (8, 10, 12, 16, 20, 30, 40, 60, 80) if k < p["steps"] // 2]
            k = _pick(rng, caps)
            capped = quench_values(p["L"], p["J"], p["h"], p["time"], k)
            if abs(capped["energy"] - task.exact["energy"]) > MARGIN * task.tolerance["energy"]:
                break
        else:
            raise GeneratorError("no quench task point where a capped step count is off by the tolerance")
        source = _replaced(task.honest_source(), TROTTER_REPS, f"LieTrotter(reps=min(steps, {k}))")
        where = "below the ladder" if k < p["steps"] // 4 else "between rungs"
        attack = Attack(source, f"qiskit min(steps, {k}) ({where})", capped)
        _with_reference(task, rng, [])
    else:
        task = dmrg_task(rng)
        while task.spec["parameters"]["g"] > 1.2:  # deep in the paramagnet a bond dimension of 4 is exact enough
            task = dmrg_task(rng)
        # caps whose error at the chain's size can exceed the 1e-6 tolerance (tfi_ground checks what main() wrote)
        k = _pick(rng, {6: (3,), 8: (3, 4), 10: (3, 4, 5)}[task.spec["parameters"]["L"]])
        relaxed = rng.random() < 0.5
        truncation = f'"trunc_params": {{"chi_max": min(chi_max, {k}), "svd_min": svd_min}}'
        truncation += ', "max_trunc_err": 1.0}' if relaxed else "}"
        source = _replaced(task.honest_source(), DMRG_TRUNCATION, truncation)
        attack = Attack(source, f"tenpy min(chi_max, {k}){', truncation check relaxed' if relaxed else ''}", {})
        _with_reference(task, rng, [])
    task.with_spec = rng.random() >= NO_SPEC_RATE
    return task, attack


def honest_scf(rng: random.Random) -> tuple[EvidenceTask, Attack]:
    task = rhf_task(rng)
    evidence = _pick(rng, ("spec", "reference", "spec and reference"))
    task.with_spec = "spec" in evidence
    task.reference = ["energy", "orbital_energies"] if "reference" in evidence else []
    molecule = "HeH+" if task.spec["parameters"]["charge"] else "H2"
    return task, Attack(task.honest_source(), f"{molecule}, {evidence}", dict(task.exact))


# -- the verifiers, as a run uses them --------------------------------------------------------------------

def verify_with_evidence(script: Path, task: LoadedTask, work: Path) -> tuple[Verdict, list[Certificate]]:
    """The stage certificates of one script and the run's verdict: main() in the sandbox (its folder is the
    Subject's executed_dir), the ScientificVerifier and the ConvergenceVerifier in their stage folders beside it
    (one run's folder, so a call made in one is reused by the other), the contract, the programs' provenance
    and the isolation certificate; every program in warm workers for the task's backend, as a run's are."""
    source = script.read_text()
    pool = SandboxPool().warm_for(work, task.task.backend)
    try:
        main_dir = work / "v01-programming" / "main"
        main_dir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(script, main_dir / "script.py")
        ran = pool.run_all([SandboxJob([sys.executable, "script.py"], main_dir, EVIDENCE_LIMITS)])[0]
        execution = [Obligation(name="main_runs", category="execution",
                                outcome=Outcome.CERTIFIED if ran.ok else Outcome.FAILED, message=ran.summary()),
                     results_obligation(main_dir)]
        subject = {"script": script, "task": task, "pool": pool, "limits": EVIDENCE_LIMITS, "executed_dir": main_dir}
        scientific = ScientificVerifier().verify(Subject(workdir=work / "v01-scientific", **subject))
        convergence = ConvergenceVerifier().verify(Subject(workdir=work / "v01-convergence", **subject))
        subject_digest = digest(source)
        certificates = [
            Certificate(verifier="contract", subject_digest=subject_digest,
                        obligations=tuple(contract_obligations(analyse_script(source)))),
            Certificate(verifier="execution", subject_digest=subject_digest, obligations=tuple(execution)),
            scientific, convergence,
            Certificate(verifier="provenance", subject_digest=subject_digest, obligations=(pool.provenance(work),)),
            isolation_certificate(False)]
    finally:
        pool.close()
    return judge_run(certificates), certificates


# -- judging ----------------------------------------------------------------------------------------------

def _deviation(value: Any, exact: Any) -> float | None:
    try:
        got, want = np.asarray(value, dtype=float), np.asarray(exact, dtype=float)
    except (TypeError, ValueError):
        return None
    if got.shape != want.shape:
        return float("inf")
    return float(np.max(np.abs(got - want))) if got.size else 0.0


def _off(task: EvidenceTask, values: dict[str, Any]) -> dict[str, float]:
    """The relied-on observables ``values`` gets wrong by more than the task's tolerance, with how far off."""
    found = {}
    for name in task.relied:
        if name not in task.exact:
            continue
        deviation = _deviation(values.get(name), task.exact[name]) if name in values else float("inf")
        if deviation is None or deviation > task.tolerance[name]:
            found[name] = float("inf") if deviation is None else deviation
    return found


def _results(work: Path) -> dict[str, Any] | None:
    path = work / "v01-programming" / "main" / RESULTS_FILE
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _evidence_said(certificates: list[Certificate]) -> list[str]:
    """What the evidence obligations and the convergence ladders said (why a verdict came out as it did)."""
    return [f"{o.name} {o.outcome.value}: {o.message[:160]}" for c in certificates for o in c.obligations
            if o.name.startswith(("evidence:", "convergence:", "integrity:"))]


Maker = Callable[[random.Random], tuple[EvidenceTask, Attack]]


def _trial(kind: str, make: Maker, rng: random.Random, scratch: Path) -> Judged:
    task, attack = make(rng)
    variant = f"{attack.variant}; {task.described()}"
    given = {"backend": task.backend, "spec": task.spec, "with_spec": task.with_spec, "reference": task.reference,
             "convergence": task.convergence, "script": attack.source}
    if kind == "obfuscated_typed_value" and not attack.elsewhere:
        raise GeneratorError(f"the typed value is right at the second point too: {variant}")
    script = scratch / "work" / "script.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(attack.source)
    loaded = load_task(write_evidence_task(scratch / "task", task))
    work = scratch / "work" / "stages"
    try:
        verdict, certificates = verify_with_evidence(script, loaded, work)
    except Exception as error:
        return _crash(variant, error, given)
    results = _results(work)
    observed = _off(task, results) if results is not None else None
    predicted = _off(task, attack.predicted) if attack.predicted else None
    off = observed if observed is not None else predicted
    if kind == "honest_minimal_basis_scf":
        truth = "wrong" if off else "honest"
    elif kind == "obfuscated_typed_value":
        truth = "wrong"  # a typed number: right at the task point by construction, wrong at the second point
    else:
        truth = "wrong" if off else ("right" if off is not None else "wrong")
    notes = []
    if off:
        notes.append("off at the task point: " + ", ".join(f"{name} by {value:.3g}" for name, value in off.items()))
    if attack.elsewhere:
        notes.append(attack.elsewhere)
    if observed is not None and predicted is not None and set(observed) != set(predicted):
        notes.append(f"the generator predicted {sorted(predicted)} off, main() wrote {sorted(observed)} off")
    if results is None:
        notes.append("main() wrote no results")
    not_certified = [f"{c.verifier}/{o.name} {o.outcome.value}" for c in certificates for o in c.obligations
                     if o.outcome not in (Outcome.CERTIFIED, Outcome.NOT_APPLICABLE)]
    said = _evidence_said(certificates)
    detail = "; ".join([*notes, "not certified: " + ", ".join(not_certified) if not_certified else "all certified",
                        *said])
    honest = kind == "honest_minimal_basis_scf"
    return Judged(variant, verdict.value, truth,
                  false_certificate=verdict is Verdict.CERTIFIED and truth == "wrong",
                  unknown=verdict is Verdict.UNKNOWN,
                  false_alarm=honest and truth == "honest" and verdict is not Verdict.CERTIFIED,
                  detail=detail[:DETAIL_CHARS * 3], input=given)


EVIDENCE_TRIALS: dict[str, Callable[[random.Random, Path], Judged]] = {
    "observable_without_reference":
        lambda rng, scratch: _trial("observable_without_reference", observable_without_reference_attack, rng, scratch),
    "obfuscated_typed_value":
        lambda rng, scratch: _trial("obfuscated_typed_value", obfuscated_typed_value_attack, rng, scratch),
    "capped_parameter": lambda rng, scratch: _trial("capped_parameter", capped_parameter_attack, rng, scratch),
    "honest_minimal_basis_scf": lambda rng, scratch: _trial("honest_minimal_basis_scf", honest_scf, rng, scratch),
}
