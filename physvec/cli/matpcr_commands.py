"""The work behind each `matpcr` command (physvec.cli.matpcr imports this only once a command is chosen, so
`matpcr --help` loads no oracle)."""

from __future__ import annotations

import argparse
import json

from rich.console import Console

from physvec.cli.display import print_certificate
from physvec.cli.matpcr import EXIT_CERTIFIED, EXIT_NOT_CERTIFIED
from physvec.verifiers.certificate import Verdict
from physvec.verifiers.matpcr.schema import CONSTRAINTS, SCHEMA_MODELS, MalformedInput, parse_claims_file, read_json


def _check(arguments: argparse.Namespace) -> int:
    from physvec.verifiers.matpcr.oracles import certify

    certificate = certify(parse_claims_file(read_json(arguments.claims, "claims")))
    if arguments.json:
        print(certificate.model_dump_json(indent=2))
    else:
        print_certificate(Console(), str(certificate.summary["item"]), certificate)
    return EXIT_CERTIFIED if certificate.verdict is Verdict.CERTIFIED else EXIT_NOT_CERTIFIED


def _rates(text: str) -> tuple[float, ...]:
    try:
        rates = tuple(float(part) for part in text.split(","))
    except ValueError:
        raise MalformedInput(f"--rates: {text!r} is not a comma-separated list of numbers") from None
    if not rates or not all(0 < rate <= 1 for rate in rates):
        raise MalformedInput(f"--rates: every rate must lie in (0, 1], not {text!r}")
    return rates


def _validate(arguments: argparse.Namespace) -> int:
    from physvec.verifiers.matpcr.injection import validate_all
    from physvec.verifiers.matpcr.references import offline_snapshot

    if arguments.n < 1:
        raise MalformedInput("--n: must be at least 1")
    families = tuple(dict.fromkeys(arguments.family)) if arguments.family else CONSTRAINTS
    rows = validate_all(arguments.n, arguments.seed, offline_snapshot(), families, _rates(arguments.rates))
    missed, injected = sum(row.false_negatives for row in rows), sum(row.injected for row in rows)
    if arguments.json:
        print(json.dumps({"rows": [row.as_row() for row in rows], "false_negatives": missed, "injected": injected},
                         indent=1))
    else:
        print("| family | injection rate | claims | false negatives (FN/injected) | false positives (FP/correct) "
              "| unknown |\n|---|---|---|---|---|---|")
        for row in rows:
            shown = row.as_row()
            print(f"| {row.family} | {row.rate:.0%} | {row.claims} | FN = {shown['FN']} | FP = {shown['FP']} | "
                  f"{row.unknown} |")
        print(f"false negatives: {missed} over {injected} injected violations"
              + ("" if missed == 0 else "  (an oracle certified a violation)"))
    return EXIT_CERTIFIED if missed == 0 else EXIT_NOT_CERTIFIED


def _schemas(arguments: argparse.Namespace) -> int:
    arguments.out.mkdir(parents=True, exist_ok=True)
    for kind, model in SCHEMA_MODELS.items():
        target = arguments.out / f"{kind}.schema.json"
        target.write_text(json.dumps(model.model_json_schema(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
        print(target)
    return 0


COMMANDS = {"check": _check, "validate-oracles": _validate, "schemas": _schemas}
