"""A run directory and the store of runs.

    runs/<run-id>/run.json             metadata: task, model spec, versions, status, verdict
    runs/<run-id>/task.json            the task as run; referenced files copied to inputs/
    runs/<run-id>/transcript.jsonl     append-only events
    runs/<run-id>/scripts/vNN.py       every script version
    runs/<run-id>/certificates/*.json  every certificate
    runs/<run-id>/work/                sandbox working directories
    runs/<run-id>/results.json, figure.png, report.html

Copying the inputs makes a run self-contained: it can be resumed or replayed after the original
task files moved or changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import secrets
import shutil
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from physvec.runstore.lock import is_held
from physvec.runstore.paths import portable
from physvec.runstore.transcript import EventType, Transcript, read_events
from physvec.taskfiles.loading import LoadedTask
from physvec.verifiers.certificate import Certificate

RECORDED_PACKAGES = ("physvec", "langgraph", "langchain-core", "qiskit", "netket", "physics-tenpy", "pyscf", "numpy", "scipy")


class RunTampered(RuntimeError):
    """A file the verifier wrote or pinned no longer has the digest recorded for it."""


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class RunNotFound(LookupError):
    """No run directory with that id."""


def _package_versions() -> dict[str, str]:
    versions = {}
    for name in RECORDED_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def _new_run_id(task_id: str) -> str:
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{task_id}-{secrets.token_hex(2)}"


PIPELINE_STAGES = ("programming", "scientific", "convergence", "domain_checks")
"""The verifier stages in the order the pipeline runs them on each script version."""
_ATTEMPT = re.compile(r"^(?P<base>.+?)-(?P<attempt>[1-9][0-9]*)$")


def certificate_attempt(name: str) -> tuple[str, int]:
    """(base name, attempt) of a stored certificate: ``programming-v01`` is the first verification of script
    version 1, ``programming-v01-2`` the second one of the same version; ``isolation-2`` the second isolation
    certificate (a final judge re-run after a kill)."""
    match = _ATTEMPT.match(name)
    return (match["base"], int(match["attempt"])) if match else (name, 1)


def certificate_version(name: str) -> int | None:
    """The script version a stage certificate (``scientific-v02``, ``scientific-v02-2``) judged; None for a
    certificate of the whole run (``isolation``) or any other name."""
    stage, _, version = certificate_attempt(name)[0].rpartition("-v")
    return int(version) if stage in PIPELINE_STAGES and version.isdigit() else None


def pipeline_order(name: str) -> tuple[int, int, int, str, int]:
    """Sort key that puts certificates in the order a run issues them: by script version, then stage
    (``programming-v02`` before ``scientific-v02``), then attempt (``programming-v01`` before
    ``programming-v01-2``), then the certificates of the whole run (``isolation``, issued by the final judge)
    and any other name alphabetically.  An alphabetical order would put convergence before programming,
    which no reader of a run expects."""
    base, attempt = certificate_attempt(name)
    version = certificate_version(name)
    if version is None:
        return 1, 0, 0, base, attempt
    return 0, version, PIPELINE_STAGES.index(base.rpartition("-v")[0]), "", attempt


def latest_attempts(names: list[str]) -> list[str]:
    """Of each certificate verified more than once, only its last attempt (in the order of ``names``)."""
    last = {certificate_attempt(name)[0]: name for name in sorted(names, key=pipeline_order)}
    return [name for name in names if last[certificate_attempt(name)[0]] == name]


class CertificateExists(FileExistsError):
    """A certificate file is never written twice: the transcript holds the digest of each one issued."""


@dataclass(frozen=True)
class RunDirectory:
    """One run's folder and its well-known files."""

    path: Path

    @property
    def run_id(self) -> str:
        return self.path.name

    @property
    def task_file(self) -> Path:
        return self.path / "task.json"

    @property
    def transcript_file(self) -> Path:
        return self.path / "transcript.jsonl"

    @property
    def checkpoint_file(self) -> Path:
        return self.path / "checkpoints.sqlite"

    @property
    def report_file(self) -> Path:
        return self.path / "report.html"

    def transcript(self) -> Transcript:
        return Transcript(self.transcript_file)

    def metadata(self) -> dict[str, Any]:
        return json.loads((self.path / "run.json").read_text())

    def status(self) -> str:
        """run.json's status, except that a run no live process holds is not ``running`` but
        ``interrupted`` (killed, even by SIGKILL, which leaves run.json as it was)."""
        status = self.metadata().get("status", "unknown")
        return "interrupted" if status == "running" and not is_held(self.path) else status

    def update_metadata(self, **fields: Any) -> None:
        data = self.metadata()
        data.update(fields)
        _write_atomically(self.path / "run.json", json.dumps(data, indent=2, default=str))

    @property
    def script_suffix(self) -> str:
        """".jl" for a run of an ITensors task (its scripts are Julia), else ".py"."""
        task = json.loads(self.task_file.read_text()) if self.task_file.is_file() else {}
        return ".jl" if task.get("backend") == "itensors" else ".py"

    def script_path(self, version: int) -> Path:
        return self.path / "scripts" / f"v{version:02d}{self.script_suffix}"

    def write_script(self, version: int, text: str) -> Path:
        target = self.script_path(version)
        _write_atomically(target, text)
        return target

    def scripts(self) -> list[Path]:
        return sorted((self.path / "scripts").glob(f"v*{self.script_suffix}"))

    def write_certificate(self, name: str, certificate: Certificate) -> Path:
        """Store a certificate under ``name``, or, when a certificate of that name exists (the same script version
        verified again, or a node re-run after a kill), under the first free ``name-2``, ``name-3``, ...; the
        evidence's machine paths are made portable (tracebacks name ``verifiers/...`` and ``work/...``, not this
        machine's folders).  An issued certificate is never overwritten: each transcript digest keeps its file."""
        text = json.dumps(portable(json.loads(certificate.model_dump_json()), self.path), indent=2)
        base, attempt = certificate_attempt(name)
        while True:
            target = self.path / "certificates" / f"{base if attempt == 1 else f'{base}-{attempt}'}.json"
            try:
                _write_once(target, text)
                return target
            except CertificateExists:
                attempt += 1

    def certificate(self, name: str) -> Certificate:
        return Certificate.from_json((self.path / "certificates" / f"{name}.json").read_text())

    def certificates(self) -> dict[str, Certificate]:
        """Every stored certificate, in pipeline order (see ``pipeline_order``)."""
        folder = self.path / "certificates"
        return {file.stem: Certificate.from_json(file.read_text())
                for file in sorted(folder.glob("*.json"), key=lambda file: pipeline_order(file.stem))}

    def issued_certificates(self) -> dict[str, Certificate]:
        """The certificates the verifier issued, as its transcript records them (name and SHA-256), in issue
        order; a planted file is not among them, and a changed or missing one raises RunTampered.  Every
        issue has a file of its own (``write_certificate`` never overwrites), so every digest must resolve."""
        issued: dict[str, Certificate] = {}
        for event in read_events(self.transcript_file):
            if event.type is not EventType.CERTIFICATE or "sha256" not in event.data:
                continue
            path = self.path / event.data["path"]
            if not path.is_file() or file_digest(path) != event.data["sha256"]:
                raise RunTampered(f"{event.data['path']} does not hold the certificate the verifier wrote")
            issued[path.stem] = Certificate.from_json(path.read_text())
        return issued

    def pin_inputs(self) -> None:
        """Record the digest of every input file, read once when the run is created."""
        inputs = self.path / "inputs"
        digests = {path.relative_to(self.path).as_posix(): file_digest(path)
                   for path in sorted(inputs.rglob("*")) if path.is_file()} if inputs.is_dir() else {}
        self.update_metadata(input_digests=digests, task_digest=file_digest(self.task_file))

    def verify_inputs(self) -> None:
        """RunTampered unless the task and every pinned input still have their recorded digests."""
        meta = self.metadata()
        if "input_digests" not in meta:
            return  # a run made before inputs were pinned
        pinned = {**meta["input_digests"], self.task_file.name: meta["task_digest"]}
        changed = [name for name, digest in pinned.items()
                   if not (self.path / name).is_file() or file_digest(self.path / name) != digest]
        if changed:
            raise RunTampered(f"the run's inputs changed since it started: {', '.join(changed)}")

    def work_dir(self, name: str) -> Path:
        """A fresh sandbox working directory (emptied if a killed attempt left one behind)."""
        folder = self.path / "work" / name
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        return folder


def _write_atomically(target: Path, text: str) -> None:
    """Write via a temporary file and rename, so a kill never leaves a half-written file."""
    temporary = _synced_temporary(target, text)
    temporary.replace(target)


def _write_once(target: Path, text: str) -> None:
    """Write a whole file that must not exist yet: a hard link of a synced temporary file, which the system
    refuses (CertificateExists) where ``target`` exists, so neither a kill nor a second writer overwrites it."""
    temporary = _synced_temporary(target, text)
    try:
        os.link(temporary, target)
    except FileExistsError as error:
        raise CertificateExists(f"{target.name} exists") from error
    finally:
        temporary.unlink()


def _synced_temporary(target: Path, text: str) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(target.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    with temporary.open("rb") as stream:
        os.fsync(stream.fileno())
    return temporary


def _copy_inputs(loaded: LoadedTask, run: RunDirectory) -> dict[str, Any]:
    """Copy referenced files into inputs/ (rubric and assertions as resolved) and return the task with paths
    pointing at the copies."""
    inputs = run.path / "inputs"
    inputs.mkdir(parents=True, exist_ok=True)

    def copied(source: Path, name: str) -> str:
        shutil.copy2(source, inputs / name)
        return f"inputs/{name}"

    def resolved(model: BaseModel, name: str) -> str:
        """The file as loaded, library templates filled in: the run never needs the library again."""
        _write_atomically(inputs / name, model.model_dump_json(indent=1, exclude_none=True))
        return f"inputs/{name}"

    task = loaded.task.model_dump(mode="json")
    task["paper"]["path"] = copied(loaded.paper, "paper" + loaded.paper.suffix)
    task["rubric"] = resolved(loaded.rubric, "rubric.json")
    if loaded.assertions is not None:
        task["assertions"] = resolved(loaded.assertions, "assertions.json")
    if loaded.reference_path is not None:
        task["reference"]["path"] = copied(loaded.reference_path, "reference.json")
    for index, check in enumerate(task["domain_checks"]):
        source = loaded.domain_inputs[check["checker"]]
        check["input"] = copied(source, f"{check['checker']}-{index}{source.suffix}")
    return task


def _task_source(task: Path) -> str:
    """Where the task came from, relative to the working folder when it lies inside it (as a user types it),
    else only its folder and name: the run keeps its own copy, and a machine path would mean nothing where
    the run folder is opened later."""
    task = task.resolve()
    here = Path.cwd().resolve()
    return (task.relative_to(here) if task.is_relative_to(here) else Path(task.parent.name, task.name)).as_posix()


def create_run(runs_dir: Path, loaded: LoadedTask, model_spec: str, **metadata_fields: Any) -> RunDirectory:
    """Create a run directory holding the task as run, its inputs and its metadata."""
    run = RunDirectory(Path(runs_dir).resolve() / _new_run_id(loaded.task.id))
    run.path.mkdir(parents=True)
    task = _copy_inputs(loaded, run)
    _write_atomically(run.task_file, json.dumps(task, indent=2))
    meta = {
        "run_id": run.run_id,
        "task_id": loaded.task.id,
        "task_source": _task_source(loaded.path),
        "model": model_spec,
        "created": time.time(),
        "status": "running",
        "verdict": None,
        "python": platform.python_version(),
        "versions": _package_versions(),
        **({"substitutions": loaded.task.substitutions} if loaded.task.substitutions else {}),
        **({"rubric_note": loaded.rubric.note} if loaded.rubric.note else {}),
        **metadata_fields,
    }
    _write_atomically(run.path / "run.json", json.dumps(meta, indent=2, default=str))
    run.pin_inputs()
    return run


def open_run(runs_dir: Path, run_id_or_path: str) -> RunDirectory:
    """An existing run, named by id (inside ``runs_dir``) or by path."""
    candidates = [Path(run_id_or_path), Path(runs_dir) / run_id_or_path]
    for candidate in candidates:
        if (candidate / "run.json").is_file():
            return RunDirectory(candidate.resolve())
    raise RunNotFound(f"no run {run_id_or_path!r} (looked in {Path(runs_dir)})")


def list_runs(runs_dir: Path) -> list[RunDirectory]:
    """Every run in ``runs_dir``, oldest first."""
    folder = Path(runs_dir)
    if not folder.is_dir():
        return []
    return sorted(
        (RunDirectory(child.resolve()) for child in folder.iterdir() if (child / "run.json").is_file()),
        key=lambda run: run.run_id,
    )
