"""The MatPCR red team (``physvec redteam --checker matpcr``): claims files an adversary would write, each given to
`matpcr check --json` in a bounded worker and judged by redteam_matpcr_truth, never by an oracle.

Classes, round-robin (CLASSES["matpcr"] in redteam.py; generators in redteam_matpcr_cases.py (spectra),
redteam_matpcr_values.py (inside a window), redteam_matpcr_texts.py (the parser) and redteam_matpcr_inputs.py
(crashes and hangs)):

noise as a line   honest_poisson_lines (the control: true lines in Poisson spectra and patterns, a weak one
                  among them, must certify); dark_spectrum, sparse_poisson_counts, cosmic_ray_spike, smoothing_bump,
                  amorphous_halo (no line there: must not certify); line_outside_measured_range (a real line the
                  data do not cover: not certified, and failing it is a false refusal)
inside a window   near_miss_bragg, stability_above_hull, band_gap_value_off, moment_value_off,
                  wrong_magnetic_ordering, moment_above_transition, sub_nyquist_feature (wrong claims beside right ones)
the parser        parser_temperature, parser_uncertainty_and_width, parser_theta_vs_two_theta, parser_number_formats,
                  parser_per_atom, parser_formation_vs_hull, parser_negation, parser_microscopy_lengths: reasoning
                  whose truth is that of the statements it makes; temperatures, widths, errors and working
                  distances in it are not claims
crashes, hangs    malformed_inputs (ids, numbers and file shapes to refuse with exit 2; 1e308 and 5e-324 to judge),
                  pathological_text (up to 1 kB that a backtracking pattern stalls on, control characters, lone
                  surrogates, and 20 kB), extreme_wavelength (0.1-0.2 A and 5-10 A)

Per trial: a false certificate (certified, truth not right), a false refusal (failed or refused with the truth
right, or failed with the line outside the data), a crash (a traceback, or an exit without a certificate), a
hang (no answer within HANG_S: the worker is killed and replaced), unknown (verdict unknown, or a malformed
input judged instead of refused).
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import random
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from physvec.agents import redteam_matpcr_cases as spectra
from physvec.agents import redteam_matpcr_inputs as inputs
from physvec.agents import redteam_matpcr_texts as texts
from physvec.agents import redteam_matpcr_values as values
from physvec.agents.redteam import DETAIL_CHARS, Judged
from physvec.agents.redteam_matpcr_cases import Case, decided

HANG_S = 5.0
"""a trial whose checker call has not answered after this long is a hang (issue 35: every trial under 5 s)"""
MEMORY_BYTES = 4 << 30
"""the worker's address-space limit: a runaway allocation becomes a MemoryError in the reply"""
STARTUP_S = 120.0
WORKER = "physvec.cli.redteam_matpcr_worker"
WARM_UP = tuple(json.dumps(claims) for claims in (
    {"item": "diffraction:Si", "claims": [{"constraint": "diffraction", "value": 28.44, "unit": "deg"}]},
    {"item": "stability:MgO", "claims": [{"constraint": "stability", "label": "stable"}]},
    {"item": "band_gap:Si", "claims": [{"constraint": "band_gap", "value": 1.12, "unit": "eV"}]},
    {"item": "magnetisation:Fe", "reasoning": "Fe is ferromagnetic with 2.22 muB per atom."},
    {"item": "raman:Si", "reasoning": "The Si line lies at 520.7 cm-1."},
))
"""a call of each oracle family before the first trial, so no trial pays for the worker's imports"""


GENERATORS: dict[str, Callable[[random.Random], Case | None]] = {
    "honest_poisson_lines": spectra.honest_poisson_lines, "dark_spectrum": spectra.dark_spectrum,
    "sparse_poisson_counts": spectra.sparse_poisson_counts, "cosmic_ray_spike": spectra.cosmic_ray_spike,
    "smoothing_bump": spectra.smoothing_bump, "amorphous_halo": spectra.amorphous_halo,
    "line_outside_measured_range": spectra.line_outside_measured_range,
    "near_miss_bragg": values.near_miss_bragg, "stability_above_hull": values.stability_above_hull,
    "band_gap_value_off": values.band_gap_value_off, "moment_value_off": values.moment_value_off,
    "wrong_magnetic_ordering": values.wrong_magnetic_ordering,
    "moment_above_transition": values.moment_above_transition, "sub_nyquist_feature": values.sub_nyquist_feature,
    "parser_temperature": texts.parser_temperature, "parser_uncertainty_and_width": texts.parser_uncertainty_and_width,
    "parser_theta_vs_two_theta": texts.parser_theta_vs_two_theta,
    "parser_number_formats": texts.parser_number_formats, "parser_per_atom": texts.parser_per_atom,
    "parser_formation_vs_hull": texts.parser_formation_vs_hull, "parser_negation": texts.parser_negation,
    "parser_microscopy_lengths": texts.parser_microscopy_lengths,
    "malformed_inputs": inputs.malformed_inputs, "pathological_text": inputs.pathological_text,
    "extreme_wavelength": inputs.extreme_wavelength,
}
"""every class in CLASSES["matpcr"] order (a test keeps the two equal)"""


@dataclass(frozen=True)
class Checked:
    """What one bounded `matpcr check --json` call came back with."""

    status: int | None
    stdout: str = ""
    stderr: str = ""
    traceback: str = ""
    seconds: float = 0.0
    hang: bool = False
    died: str = ""


class BoundedChecker:
    """`matpcr check --json` in a worker process with a time bound per call: past the bound the worker is killed
    (a hang) and a fresh one started, so one stalled oracle cannot block the campaign."""

    def __init__(self, bound_s: float = HANG_S, command: list[str] | None = None,
                 warm_up: tuple[str, ...] = WARM_UP) -> None:
        self.bound_s = bound_s
        self.command = command or [sys.executable, "-m", WORKER, str(MEMORY_BYTES)]
        self.warm_up = warm_up
        self._process: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self._scratch = Path(tempfile.mkdtemp(prefix="redteam-matpcr-"))

    def start(self) -> str:
        """Start and warm a worker unless one is running: '' when it answers, else why not."""
        return "" if self._process is not None and self._process.poll() is None else self._start()

    def check(self, claims: Path) -> Checked:
        failed = self.start()
        if failed:
            return Checked(None, died=failed)
        started = time.monotonic()
        reply = self._ask(["check", str(claims), "--json"], self.bound_s)
        elapsed = time.monotonic() - started
        if isinstance(reply, dict):
            return Checked(reply["status"], reply["stdout"], reply["stderr"], reply["traceback"], reply["seconds"])
        self._stop()
        if reply == "closed":
            return Checked(None, seconds=elapsed, died=f"the checker's process ended without answering: {self._log()}")
        self._start()  # now, so that the next trial's seconds are its own (a failure shows at the next call)
        return Checked(None, seconds=elapsed, hang=True)

    def close(self) -> None:
        self._stop()
        shutil.rmtree(self._scratch, ignore_errors=True)

    def _start(self) -> str:
        """Start a worker and warm it: '' when it answers, else why not.  A warm-up call that stalls or ends the
        worker leaves a cold one instead (the next trial then pays for the imports)."""
        failed = self._spawn()
        for index, text in enumerate(() if failed else self.warm_up):
            path = self._scratch / f"warm-{index}.json"
            path.write_text(text)
            if not isinstance(self._ask(["check", str(path), "--json"], STARTUP_S), dict):
                self._stop()
                return self._spawn()
        return failed

    def _spawn(self) -> str:
        environment = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        with (self._scratch / "worker.err").open("wb") as log:
            self._process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                             env=environment)
        self._buffer = b""
        if isinstance(self._read(STARTUP_S), dict):
            return ""
        self._stop()
        return f"the checker's worker did not start: {self._log()}"

    def _log(self) -> str:
        """The end of what the worker wrote to stderr (an import error, a kill by the memory limit)."""
        try:
            return (self._scratch / "worker.err").read_text(errors="replace")[-600:]
        except OSError:
            return ""

    def _ask(self, argv: list[str], timeout: float) -> dict[str, Any] | str:
        assert self._process is not None and self._process.stdin is not None
        try:
            self._process.stdin.write((json.dumps(argv) + "\n").encode())
            self._process.stdin.flush()
        except OSError:
            return "closed"
        return self._read(timeout)

    def _read(self, timeout: float) -> dict[str, Any] | str:
        """The next reply line, 'timeout' past ``timeout`` seconds, or 'closed' when the worker ended."""
        assert self._process is not None and self._process.stdout is not None
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self._process.stdout], [], [], remaining)[0]:
                return "timeout"
            chunk = os.read(self._process.stdout.fileno(), 1 << 20)
            if not chunk:
                return "closed"
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return json.loads(line)

    def _stop(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            for stream in (self._process.stdin, self._process.stdout):
                if stream is not None:
                    stream.close()
        self._process = None


@functools.cache
def bounded_checker() -> BoundedChecker:
    """The campaign's one worker, closed when the process exits."""
    checker = BoundedChecker()
    atexit.register(checker.close)
    return checker


def _said(certificate: dict[str, Any]) -> str:
    """Each obligation's name, outcome and message, briefly: what the oracle engineers need to see."""
    return "; ".join(f"{o.get('name')} {o.get('outcome')}: {str(o.get('message'))[:90]}"
                     for o in certificate.get("obligations", [])[:5])


def judge(case: Case, checked: Checked, bound_s: float = HANG_S) -> Judged:
    """The checker's answer against the case's truth (the verdict is read, never used as the truth)."""
    given = {"claims_file": case.file_text}
    why = f"truth {case.truth}: {case.why}; checker {checked.seconds:.2f} s"
    if checked.hang:
        return Judged(case.variant, "hang", case.truth, hang=True, detail=f"no answer within {bound_s:g} s; {why}",
                      input=given)
    escaped = checked.traceback or (checked.stderr if "Traceback (most recent" in checked.stderr else "")
    if checked.died or escaped:
        raised = escaped.strip().splitlines()[-1] if escaped else checked.died
        return Judged(case.variant, "crash", case.truth, crash=True, input=given,
                      detail=f"{raised[:300]}; {why}; {escaped[-900:]}")
    if checked.status == 2:
        verdict, said = "refused", checked.stderr.strip()[-300:]
    else:
        try:
            certificate = json.loads(checked.stdout)
            verdict, said = str(certificate["verdict"]), _said(certificate)
        except (ValueError, KeyError, TypeError):
            return Judged(case.variant, "crash", case.truth, crash=True, input=given,
                          detail=f"exit {checked.status} without a certificate: {checked.stderr[-400:]}; {why}")
    false_certificate = verdict == "certified" and case.truth != "right"
    rejected = verdict in ("failed", "refused", "impossible")
    false_refusal = rejected and case.truth == "right" or verdict == "failed" and case.truth == "outside_data"
    unknown = verdict == "unknown" or case.truth == "malformed" and verdict != "refused" and not false_certificate
    return Judged(case.variant, verdict, case.truth, false_certificate=false_certificate, false_refusal=false_refusal,
                  unknown=unknown, detail=f"{why}; said: {said}"[:DETAIL_CHARS * 2], input=given)


def matpcr_trial(kind: str, rng: random.Random, scratch: Path) -> Judged:
    """One generated claims file of class ``kind`` through the bounded `matpcr check`, judged by the truth."""
    case = decided(GENERATORS[kind], rng)
    path = scratch / "claims.json"
    path.write_text(case.file_text)
    return judge(case, bounded_checker().check(path))
