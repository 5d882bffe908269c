"""Per backend: the reference script passes every obligation; each injected fault is localised to
the right element function in a single verification round."""

from __future__ import annotations

from pathlib import Path

import pytest

from physvec.verifiers.certificate import Certificate, Outcome
from physvec.verifiers.programming import programming_metrics, verify_script
from physvec.verifiers.sandbox import SandboxLimits, SandboxPool
from tests.verifiers.programming.faults import FAULTS, MISMATCHES, reference

LIMITS = SandboxLimits(wall_s=180)
BACKENDS = ["qiskit", "tenpy", "pyscf", "netket"]


def verify(tmp_path: Path, backend: str, source: str) -> Certificate:
    script = tmp_path / "script.py"
    script.write_text(source)
    return verify_script(script, backend, tmp_path / "work", SandboxPool(), LIMITS)


def outcomes(certificate: Certificate, category: str) -> dict[str, Outcome]:
    return {o.name.split(":", 1)[1]: o.outcome for o in certificate.obligations if o.category == category}


def obligation(certificate: Certificate, name: str):
    return next(o for o in certificate.obligations if o.name == name)


QISKIT_FAULTS_IN_THE_DEFAULT_RUN = ("misspelled library call", "syntax error in one function")


def _heavy(backend: str, also: tuple[str, ...] = (), fault: str | None = None) -> list:
    """NetKet's fault matrix takes minutes (a 5.5 s jax import per program), TeNPy's two (a 3 s import
    per program), PySCF's about 40 s, Qiskit's about a minute; benchmarks/fault_localisation.py runs every
    matrix and NetKet's reference script (42 s).  The other reference scripts, the interface mismatches
    and two Qiskit faults run here."""
    if backend == "qiskit" and fault is not None:
        return [] if fault in QISKIT_FAULTS_IN_THE_DEFAULT_RUN else [pytest.mark.heavy]
    return [pytest.mark.heavy] if backend == "netket" or backend in also else []


@pytest.mark.parametrize("backend", [pytest.param(b, marks=_heavy(b)) for b in BACKENDS])
def test_the_reference_script_passes_every_obligation(tmp_path, backend):
    certificate = verify(tmp_path, backend, reference(backend))
    assert {o.name: o.outcome for o in certificate.obligations if o.outcome is not Outcome.CERTIFIED} == {}
    metrics = programming_metrics(certificate)
    assert metrics["unit_accuracy"] == 1.0 and metrics["integration_accuracy"] == 1.0 and metrics["executable"]


@pytest.mark.parametrize(("backend", "fault"), [pytest.param(b, f, marks=_heavy(b, ("tenpy", "pyscf"), f.kind),
                                                             id=f"{b}-{f.kind}")
                                                for b in BACKENDS for f in FAULTS[b]])
def test_a_fault_is_localised_to_its_function_in_one_round(tmp_path, backend, fault):
    certificate = verify(tmp_path, backend, fault.apply(reference(backend)))
    units = outcomes(certificate, "unit")
    failed_units = sorted(name for name, outcome in units.items() if outcome is Outcome.FAILED)
    assert failed_units == [fault.function], obligation(certificate, f"unit:{fault.function}").message
    assert all(outcome is Outcome.CERTIFIED for name, outcome in units.items() if name != fault.function)
    if fault.integration_fails_at is not None:
        (integration,) = [o for o in certificate.obligations if o.category == "integration"]
        assert integration.outcome is Outcome.FAILED
        assert integration.evidence["failing_function"] == fault.integration_fails_at
    if fault.kind.startswith("syntax"):
        syntax = obligation(certificate, "contract:syntax")
        assert syntax.outcome is Outcome.FAILED and syntax.evidence["function"] == fault.function


@pytest.mark.parametrize("backend", [pytest.param(b, marks=_heavy(b)) for b in BACKENDS])
def test_an_interface_mismatch_passes_unit_tests_and_fails_at_integration(tmp_path, backend):
    mismatch = MISMATCHES[backend]
    certificate = verify(tmp_path, backend, mismatch.apply(reference(backend)))
    assert all(outcome is Outcome.CERTIFIED for outcome in outcomes(certificate, "unit").values())
    (integration,) = [o for o in certificate.obligations if o.category == "integration"]
    assert integration.outcome is Outcome.FAILED
    assert integration.evidence["interface"] == [mismatch.producer, mismatch.consumer]
    assert integration.evidence["correct_ratio"] < 1.0
