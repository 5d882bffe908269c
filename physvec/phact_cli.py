"""`phact`: the engine's verdict on a design for a goal, and the goal corpus.

Exit status: 0 certified, 1 failed, unknown or impossible, 2 an unreadable goal or design, or an unknown
domain (the message names the field).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console

from physvec.display import print_certificate
from verifiers.certificate import Verdict
from verifiers.phact.contract import certify
from verifiers.phact.schema import MalformedInput, parse_design, parse_goal, read_json
from verifiers.phact.corpus import corpus
from verifiers.phact.domains import DOMAINS

EXIT_CERTIFIED, EXIT_NOT_CERTIFIED, EXIT_BAD_INPUT = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="phact", description="deterministic physics engines judge proposed designs")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("certify", help="the engine's verdict on DESIGN for GOAL")
    check.add_argument("goal", type=Path)
    check.add_argument("design", type=Path)
    check.add_argument("--json", action="store_true", help="print the certificate as JSON")
    listing = commands.add_parser("goals", help="list the goal corpus")
    listing.add_argument("--domain", help=f"one of {', '.join(sorted(DOMAINS))}")
    return parser


def _certify(arguments: argparse.Namespace) -> int:
    goal, domain = parse_goal(read_json(arguments.goal, "goal"))
    design = parse_design(read_json(arguments.design, "design"))
    if design.goal != goal.id:
        raise MalformedInput(f"design.goal: {design.goal!r} is not the goal's id {goal.id!r}")
    certificate = certify(goal, domain, design)
    if arguments.json:
        print(certificate.model_dump_json(indent=2))
    else:
        print_certificate(Console(), goal.id, certificate)
        if certificate.impossibility:
            print(json.dumps({"impossibility": certificate.impossibility}, indent=1, default=str))
    return EXIT_CERTIFIED if certificate.verdict is Verdict.CERTIFIED else EXIT_NOT_CERTIFIED


def _goals(arguments: argparse.Namespace) -> int:
    if arguments.domain is not None and arguments.domain not in DOMAINS:
        raise MalformedInput(f"--domain: unknown domain {arguments.domain!r} (known: {', '.join(sorted(DOMAINS))})")
    for _, goal, _ in corpus(arguments.domain):
        written = "written impossible" if goal.impossible_because else "feasible"
        print(f"{goal.domain:<10} {goal.id:<34} {goal.kind:<13} {written}\n           {goal.statement}")
    return 0


def main(argv: list[str] | None = None) -> int:
    arguments = _parser().parse_args(argv)
    try:
        return _certify(arguments) if arguments.command == "certify" else _goals(arguments)
    except MalformedInput as error:
        print(f"phact: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
