"""`phact`: the engine's verdict on a design for a goal, the goal corpus, and proposer campaigns.

    phact certify GOAL DESIGN [--json]    exit 0 certified, 1 failed/unknown/impossible
    phact goals [--domain D]
    phact run --model SPEC [--contract bare|structural] [--feedback weak|strong|structural] ...
              [--executor local|dask] [--jobs N] [--scheduler ADDRESS]
    phact report RUN [RUN ...]            outcome rates with Wilson 95% intervals, per run
    phact adversaries [--domain D]        scripted forging attempts against both contracts

Exit status 2: an unreadable goal or design, an unknown domain, or bad run settings (the message names
the field).  An unreadable file (not UTF-8, integers beyond Python's limit, JSON nested too deeply) is bad
input too, never a traceback: exit 1 means "not certified" and must mean nothing else.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from physvec.cli.arguments import add_runs_dir, folder_name
from physvec.cli.conventions import EXIT_BAD_INPUT, CommandParser
from physvec.cli.campaign_options import add_executor_options

CONTRACTS = ("structural", "bare")
"""The values of physvec.verifiers.phact.tools.Contract (a test keeps them equal), named here so that the
parser needs no engine."""


def _parser() -> argparse.ArgumentParser:
    parser = CommandParser(prog="phact", description="deterministic physics engines judge proposed designs",
                           examples=('phact goals --domain rc_filter', 'phact certify GOAL.json DESIGN.json --json'))
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("certify", help="the engine's verdict on DESIGN for GOAL")
    check.add_argument("goal", type=Path)
    check.add_argument("design", type=Path)
    check.add_argument("--json", action="store_true", help="print the certificate as JSON")
    listing = commands.add_parser("goals", help="list the goal corpus")
    listing.add_argument("--domain", help="one domain of the corpus (an unknown one is refused naming them)")
    run = commands.add_parser("run", help="a model proposes designs for corpus goals through tool calls")
    run.add_argument("--model", required=True, help="openai:<name>, scripted:<file> or replay:<run dir>")
    run.add_argument("--base-url", help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL)")
    run.add_argument("--contract", choices=CONTRACTS, default="structural",
                     help="structural (the engine derives every outcome) or bare (answer-submitting, for comparison)")
    run.add_argument("--feedback", choices=["weak", "strong", "structural"], default="structural")
    run.add_argument("--domain", help="only goals of this domain")
    run.add_argument("--goals", default="*", help="comma-separated globs over DOMAIN/GOAL-ID (default: every goal)")
    run.add_argument("--trials", type=int, default=1)
    run.add_argument("--rounds", type=int, default=8, help="judged tool-call rounds per episode")
    run.add_argument("--reprompts", type=int, default=2, help="prose replies in a row the supervisor re-prompts")
    run.add_argument("--token-budget", type=int, default=2_000_000)
    add_runs_dir(run)
    run.add_argument("--run-id", type=folder_name, help="folder name under --runs-dir (default: phact-CONTRACT-FEEDBACK)")
    run.add_argument("--resume", action="store_true", help="continue an existing run")
    add_executor_options(run)
    report = commands.add_parser("report", help="outcome rates of finished runs, with Wilson 95%% intervals")
    report.add_argument("runs", type=Path, nargs="+")
    attacks = commands.add_parser("adversaries", help="every scripted adversary against every goal, both contracts")
    attacks.add_argument("--domain", help="only goals of this domain")
    attacks.add_argument("--rounds", type=int, default=3)
    attacks.add_argument("--out", type=Path, help="also write the table (markdown) here")
    return parser


def main(argv: list[str] | None = None) -> int:
    arguments = _parser().parse_args(argv)
    from physvec.cli.phact_commands import COMMANDS
    from physvec.verifiers.phact.schema import MalformedInput

    try:
        return COMMANDS[arguments.command](arguments)
    except MalformedInput as error:
        print(f"phact: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
