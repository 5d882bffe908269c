"""The paper's comparison over upstream trials: per topic and per method and model, executability pass@k,
programming and scientific pass rates, the runs that ended unknown and why, iterations, tokens, wall time
and cost.

The records say what each trial achieved; the certificates and the transcript behind a record (its run
folder) say the rest: which stage certified, why a run ended unknown, and the input/output split of its
tokens, which a price table needs and the record's total does not give.  A pass is always a certificate's
``certified``: a run that ended ``unknown`` counts as passed for no test, so no rate is raised by a run
the verifiers could not decide.
"""

from __future__ import annotations

import csv
import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from statistics import mean

from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError

from physvec.qmp_bench.campaign import RECORDS_FILE, TrialKey, TrialRecord
from physvec.qmp_bench.metrics import mean_pass_at_k
from physvec.runstore.records import RecordFile
from physvec.runstore.store import RunDirectory, RunTampered
from physvec.runstore.transcript import EventType, read_events
from physvec.verifiers.certificate import Certificate, Outcome, Verdict

ALL_TOPICS = "all"
"""The topic of the rows that pool every topic of one method and model."""
DECIDED_VERDICTS = ("certified", "failed", "impossible")
"""Run verdicts that decide a trial; any other (``unknown``, or none recorded) is an unknown ending."""
UNDECIDED_OUTCOMES = (Outcome.UNKNOWN, Outcome.NOT_IMPLEMENTED, Outcome.ERROR)
STAGES = ("programming", "scientific", "convergence", "domain_checks")
"""the verifier stages whose last certificates say why a trial ended unknown, in pipeline order"""
MADE_BY = "qmp-bench upstream report"


class ReportInputError(ValueError):
    """Records or a price table the report cannot use; the message says which and why."""


class Price(BaseModel):
    """What one model costs, in currency units per million tokens."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_per_mtok: float = Field(ge=0)
    output_per_mtok: float = Field(ge=0)


class PriceTable(RootModel[dict[str, Price]]):
    """model spec -> its price, as the user writes it in a JSON file."""


def read_prices(path: Path) -> dict[str, Price]:
    """The price table in ``path``; ReportInputError naming the file and each problem (unreadable, not JSON,
    a model without a price, a negative or unknown field)."""
    try:
        text = path.read_text()
    except OSError as error:
        raise ReportInputError(f"price table {path}: cannot be read ({error.strerror or error})") from None
    try:
        return PriceTable.model_validate_json(text).root
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, detail['loc'])) or '(top level)'}: {detail['msg']}"
                             for detail in error.errors())
        raise ReportInputError(f"price table {path}: {problems} (expected {{\"MODEL\": {{\"input_per_mtok\": X, "
                               "\"output_per_mtok\": Y}}, ...}})") from None


@dataclass(frozen=True)
class SkippedLine:
    """A records line the report could not read, so the table is partial."""

    source: Path
    line: int
    reason: str


@dataclass(frozen=True)
class Sourced:
    """A record and the campaign folder it was read from (where its run folder is looked for when the
    campaign was moved since)."""

    record: TrialRecord
    campaign: Path


@dataclass(frozen=True)
class LoadedRecords:
    records: list[Sourced]
    skipped: list[SkippedLine]


def records_file(path: Path) -> Path:
    """A records file given as itself or as its campaign folder."""
    return path / RECORDS_FILE if path.is_dir() else path


def _reason(error: ValidationError) -> str:
    detail = error.errors()[0]
    where = ".".join(map(str, detail["loc"]))
    return f"{where}: {detail['msg']}" if where else detail["msg"]


def load_records(paths: Iterable[Path]) -> LoadedRecords:
    """The latest record of each trial in the records files (or campaign folders) ``paths``, and every line
    that is not a record, with why.  ReportInputError when a file cannot be read or no file holds a record:
    there is no table to print then."""
    latest: dict[TrialKey, Sourced] = {}
    skipped: list[SkippedLine] = []
    for path in paths:
        source = records_file(path)
        try:
            records, unreadable = RecordFile(source, TrialRecord).read_lines()
        except (OSError, UnicodeDecodeError) as error:
            raise ReportInputError(f"records {source}: cannot be read ({getattr(error, 'strerror', None) or error})"
                                   ) from None
        skipped += [SkippedLine(source, number, _reason(error)) for number, error in unreadable]
        for record in records:
            latest[TrialKey(record.task, record.method, record.model, record.trial)] = Sourced(record, source.parent)
    if not latest:
        said = "; ".join(f"{s.source} line {s.line}: {s.reason}" for s in skipped[:5])
        raise ReportInputError("no trial records in " + ", ".join(str(records_file(p)) for p in paths)
                               + (f" (every line was unreadable: {said})" if said else " (the files are empty)"))
    return LoadedRecords(list(latest.values()), skipped)


def topic_of(task: str) -> str:
    """The topic of a benchmark task name ``topic/id`` (what `upstream run` and the runner name tasks)."""
    return task.split("/", 1)[0]


@dataclass(frozen=True)
class TrialFacts:
    """What the report needs of one trial, from its record and, where it can be reached, its run folder."""

    record: TrialRecord
    programming_passed: bool
    scientific_passed: bool
    unknown: bool
    ended_by: str
    certificate_reasons: tuple[str, ...] = ()
    unknown_because: str = ""
    """what kept an unknown trial from a verdict, short enough to count: the required obligations left
    undecided (``stage: name``), else its ending"""
    input_tokens: int | None = None
    output_tokens: int | None = None
    run_problem: str | None = None
    """why the run folder could not be read (the tests then count as not passed, the token split unknown)"""

    @property
    def topic(self) -> str:
        return topic_of(self.record.task)


def run_folder(record: TrialRecord, campaign: Path) -> Path | None:
    """The trial's run folder: as recorded, or, for a campaign moved since, the same ``runs/...`` tail under the
    folder its records file is in now."""
    recorded = Path(record.run_dir)
    if recorded.is_dir():
        return recorded
    parts = recorded.parts
    if "runs" in parts:
        tail = parts[len(parts) - 1 - parts[::-1].index("runs"):]
        moved = campaign.joinpath(*tail)
        if moved.is_dir():
            return moved
    return None


def _latest(certificates: dict[str, Certificate], stage: str) -> Certificate | None:
    """The stage's last issued certificate (issue order; a rerun's ``-2`` comes after its first)."""
    found = [certificate for name, certificate in certificates.items() if name.startswith(f"{stage}-v")]
    return found[-1] if found else None


def _undecided(stage: str, certificate: Certificate) -> list[str]:
    return [f"{stage}: {o.name} {o.outcome.value}" + (f" ({o.message})" if o.message else "")
            for o in certificate.obligations if o.outcome in UNDECIDED_OUTCOMES]


def _token_split(run: RunDirectory) -> tuple[int, int]:
    calls = [event.data for event in read_events(run.transcript_file) if event.type is EventType.MODEL_CALL]
    return (sum(int(call.get("input_tokens") or 0) for call in calls),
            sum(int(call.get("output_tokens") or 0) for call in calls))


def trial_facts(record: TrialRecord, campaign: Path) -> TrialFacts:
    """The trial's tests, ending and token split, read from its run folder's issued certificates (never a
    planted file), run.json and transcript."""
    unknown = record.verdict not in DECIDED_VERDICTS
    folder = run_folder(record, campaign)
    if folder is None:
        return TrialFacts(record, False, False, unknown, f"status {record.status}",
                          run_problem=f"run folder {record.run_dir} not found")
    run = RunDirectory(folder)
    try:
        certificates = run.issued_certificates()
        metadata = run.metadata()
    except (RunTampered, OSError, ValueError) as error:
        return TrialFacts(record, False, False, unknown, f"status {record.status}", run_problem=str(error))
    latest = {stage: found for stage in STAGES if (found := _latest(certificates, stage)) is not None}
    programming, scientific = latest.get("programming"), latest.get("scientific")
    reasons = [reason for stage, certificate in latest.items() if certificate.verdict is not Verdict.CERTIFIED
               for reason in _undecided(stage, certificate)] if unknown else []
    keeping = [f"{stage}: {o.name}" for stage, certificate in latest.items()
               for o in certificate.obligations if o.required and o.outcome in UNDECIDED_OUTCOMES]
    ended_by = str(metadata.get("ended_by") or f"status {metadata.get('status')}")
    tokens_in, tokens_out = _token_split(run)
    return TrialFacts(
        record,
        programming_passed=not unknown and programming is not None and programming.verdict is Verdict.CERTIFIED,
        scientific_passed=not unknown and scientific is not None and scientific.verdict is Verdict.CERTIFIED,
        unknown=unknown, ended_by=ended_by, certificate_reasons=tuple(reasons),
        unknown_because="; ".join(keeping) or ended_by if unknown else "", input_tokens=tokens_in,
        output_tokens=tokens_out)


@dataclass(frozen=True)
class Spread:
    """Mean and maximum over the trials that have the value (None: none has)."""

    mean: float | None
    max: float | None

    @classmethod
    def of(cls, values: Iterable[float | None]) -> Spread:
        known = [value for value in values if value is not None]
        return cls(mean(known), max(known)) if known else cls(None, None)


@dataclass(frozen=True)
class ReportRow:
    """One row of the comparison: one topic (or ``all``), one method and model."""

    topic: str
    method: str
    model: str
    tasks: int
    trials: int
    executable_pass_at: dict[int, float | None]
    """k -> mean over the tasks with at least k trials of the unbiased pass@k of ``executable``"""
    programming_pass: float
    scientific_pass: float
    unknown_share: float
    unknown_reasons: dict[str, int]
    """what kept each unknown trial from a verdict (TrialFacts.unknown_because) -> how many"""
    iterations: Spread
    tokens_in: Spread
    tokens_out: Spread
    seconds: Spread
    cost: float | None
    """at the price table; None without one, or when a trial's token split could not be read"""
    unreadable_runs: int = 0


def _cost(facts: list[TrialFacts], prices: dict[str, Price] | None) -> float | None:
    if prices is None or any(f.input_tokens is None or f.output_tokens is None for f in facts):
        return None
    total = 0.0
    for fact in facts:
        if fact.input_tokens or fact.output_tokens:
            price = prices[fact.record.model]
            total += (fact.input_tokens * price.input_per_mtok + fact.output_tokens * price.output_per_mtok) / 1e6
    return total


def unpriced_models(facts: Iterable[TrialFacts], prices: dict[str, Price]) -> list[str]:
    """The models that spent tokens but have no price in the table: their cost would be a guess."""
    return sorted({f.record.model for f in facts if (f.input_tokens or f.output_tokens or f.record.tokens)
                   and f.record.model not in prices})


def report_row(topic: str, method: str, model: str, facts: list[TrialFacts], k_values: tuple[int, ...],
               prices: dict[str, Price] | None) -> ReportRow:
    records = [fact.record for fact in facts]

    def share(passed: list[bool]) -> float:
        return sum(passed) / len(facts)

    return ReportRow(
        topic=topic, method=method, model=model, tasks=len({r.task for r in records}), trials=len(records),
        executable_pass_at={k: mean_pass_at_k(records, k, lambda r: r.executable) for k in k_values},
        programming_pass=share([f.programming_passed for f in facts]),
        scientific_pass=share([f.scientific_passed for f in facts]),
        unknown_share=share([f.unknown for f in facts]),
        unknown_reasons=dict(Counter(f.unknown_because or f.ended_by for f in facts if f.unknown).most_common()),
        iterations=Spread.of(r.iterations for r in records),
        tokens_in=Spread.of(f.input_tokens for f in facts), tokens_out=Spread.of(f.output_tokens for f in facts),
        seconds=Spread.of(r.seconds for r in records), cost=_cost(facts, prices),
        unreadable_runs=sum(f.run_problem is not None for f in facts))


def default_k(records: Iterable[TrialRecord]) -> tuple[int, ...]:
    """pass@1 and pass@n for the most trials n any task has: the paper's "over trials"."""
    per_task = Counter((r.task, r.method, r.model) for r in records)
    most = max(per_task.values(), default=1)
    return (1, most) if most > 1 else (1,)


def report_rows(facts: list[TrialFacts], k_values: tuple[int, ...], prices: dict[str, Price] | None
                ) -> list[ReportRow]:
    """A row per topic, method and model, then, when there is more than one topic, a row per method and model
    over every topic."""
    groups: dict[tuple[str, str, str], list[TrialFacts]] = defaultdict(list)
    for fact in facts:
        groups[(fact.topic, fact.record.method, fact.record.model)].append(fact)
        groups[(ALL_TOPICS, fact.record.method, fact.record.model)].append(fact)
    if len({fact.topic for fact in facts}) < 2:
        groups = {key: group for key, group in groups.items() if key[0] != ALL_TOPICS}
    ordered = sorted(groups, key=lambda key: (key[0] == ALL_TOPICS, key))
    return [report_row(*key, groups[key], k_values, prices) for key in ordered]


@dataclass(frozen=True)
class UpstreamReport:
    rows: list[ReportRow]
    unknown_trials: list[TrialFacts]
    skipped: list[SkippedLine]
    unreadable: list[TrialFacts]
    """trials whose run folder could not be read"""
    k_values: tuple[int, ...]


def build_report(loaded: LoadedRecords, k_values: tuple[int, ...] | None, prices: dict[str, Price] | None
                 ) -> UpstreamReport:
    """The report over ``loaded``, with pass@1 and ``k_values`` (default: ``default_k``); ReportInputError when a
    model that spent tokens has no price."""
    facts = [trial_facts(item.record, item.campaign) for item in loaded.records]
    if prices is not None and (missing := unpriced_models(facts, prices)):
        raise ReportInputError(f"the price table has no price for {', '.join(missing)}, which spent tokens")
    ks = tuple(sorted({1, *(k_values or default_k(fact.record for fact in facts))}))  # the figure shows pass@1
    return UpstreamReport(report_rows(facts, ks, prices), [f for f in facts if f.unknown], loaded.skipped,
                          [f for f in facts if f.run_problem is not None], ks)


def _number(value: float | None, digits: int = 3) -> str:
    if value is None:
        return ""
    return str(int(value)) if float(value).is_integer() else f"{value:.{digits}g}"


def csv_rows(report: UpstreamReport) -> list[dict[str, str]]:
    """The table as CSV rows: every number on its own column, blank where undefined."""
    rows = []
    for row in report.rows:
        cells = {"topic": row.topic, "method": row.method, "model": row.model, "tasks": str(row.tasks),
                 "trials": str(row.trials)}
        cells |= {f"executable pass@{k}": _number(value) for k, value in row.executable_pass_at.items()}
        cells |= {"programming pass": _number(row.programming_pass), "scientific pass": _number(row.scientific_pass),
                  "unknown share": _number(row.unknown_share),
                  "unknown reasons": "; ".join(f"{reason} x{count}" for reason, count in row.unknown_reasons.items())}
        for name, spread in (("iterations", row.iterations), ("tokens in", row.tokens_in),
                             ("tokens out", row.tokens_out), ("wall seconds", row.seconds)):
            cells |= {f"{name} mean": _number(spread.mean, 4), f"{name} max": _number(spread.max, 4)}
        cells |= {"cost": "" if row.cost is None else f"{row.cost:.4f}",
                  "unreadable run folders": str(row.unreadable_runs)}
        rows.append(cells)
    return rows


def write_csv(report: UpstreamReport, path: Path) -> Path:
    rows = csv_rows(report)
    with path.open("w", newline="") as stream:
        writer = csv.DictWriter(stream, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


BAR_METRICS = (("executable pass@1", lambda row: row.executable_pass_at.get(1)),
               ("programming pass", lambda row: row.programming_pass),
               ("scientific pass", lambda row: row.scientific_pass))


def write_figure(report: UpstreamReport, path: Path) -> Path:
    """Bars per topic, one bar per method and model, in one panel per rate."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [row for row in report.rows if row.topic != ALL_TOPICS]
    topics = sorted({row.topic for row in rows})
    methods = sorted({(row.method, row.model) for row in rows})
    width = 0.8 / len(methods)
    figure, axes = plt.subplots(1, len(BAR_METRICS), figsize=(4 * len(BAR_METRICS), 3.5), sharey=True)
    for axis, (title, value) in zip(axes, BAR_METRICS):
        for index, (method, model) in enumerate(methods):
            by_topic = {row.topic: value(row) for row in rows if (row.method, row.model) == (method, model)}
            heights = [by_topic.get(topic) or 0.0 for topic in topics]
            axis.bar([t + index * width for t in range(len(topics))], heights, width, label=f"{method} ({model})")
        axis.set_xticks([t + width * (len(methods) - 1) / 2 for t in range(len(topics))], topics)
        axis.set_title(title)
        axis.set_ylim(0, 1.02)
    axes[0].set_ylabel("share of trials")
    axes[-1].legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path


def write_markdown(report: UpstreamReport, path: Path) -> Path:
    """The table, the skipped lines and the unknown endings with their reasons, for `physvec view` and people."""
    rows = csv_rows(report)
    columns = list(rows[0])
    lines = ["# upstream report", "", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(row[c].replace("|", "/") for c in columns) + " |" for row in rows]
    lines += ["", *skipped_lines(report), *[f"- {line}" for line in unknown_lines(report)]]
    path.write_text("\n".join(lines) + "\n")
    return path


def skipped_lines(report: UpstreamReport) -> list[str]:
    """Sentences naming each records line left out of the table, and why."""
    return [f"partial table: skipped {s.source} line {s.line}: {s.reason}" for s in report.skipped]


def unknown_lines(report: UpstreamReport) -> list[str]:
    """One sentence per trial that ended unknown: its ending and the certificates' undecided obligations."""
    return [f"{f.record.task} ({f.record.method}, {f.record.model}) trial {f.record.trial} ended unknown: "
            f"{f.ended_by}" + (f"; {'; '.join(f.certificate_reasons)}" if f.certificate_reasons else "")
            + (f"; {f.run_problem}" if f.run_problem else "") for f in report.unknown_trials]


def write_outputs(report: UpstreamReport, sources: list[Path], folder: Path) -> list[Path]:
    """upstream_report.csv, .md and .png in ``folder``, and a run.json naming the records they came from, which
    makes the folder a campaign page in `physvec view`; ReportInputError for a folder whose run.json another
    command wrote (a campaign's pinned settings are never overwritten)."""
    settings_file = folder / "run.json"
    if settings_file.is_file() and _made_by(settings_file) != MADE_BY:
        raise ReportInputError(f"--out {folder} holds another command's run.json: choose a folder of its own")
    folder.mkdir(parents=True, exist_ok=True)
    settings = {"made_by": MADE_BY, "records": [str(records_file(p)) for p in sources],
                "k": list(report.k_values), "skipped_lines": len(report.skipped)}
    settings_file.write_text(json.dumps(settings, indent=1) + "\n")
    return [write_csv(report, folder / "upstream_report.csv"), write_markdown(report, folder / "upstream_report.md"),
            write_figure(report, folder / "upstream_report.png"), settings_file]


def _made_by(settings_file: Path) -> object:
    try:
        settings = json.loads(settings_file.read_text())
    except (OSError, ValueError):
        return None
    return settings.get("made_by") if isinstance(settings, dict) else None
