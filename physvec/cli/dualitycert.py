"""`dualitycert`: certify a Seiberg-duality claim, dualise a theory on one node, generate benchmark fixtures,
run a repair policy over them.

Exit status: 0 certified (or done), 1 failed or unknown, 2 unreadable input, a node that cannot be dualised,
or arguments that do not fit together.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from physvec.cli.arguments import folder_name, output_folder
from physvec.cli.campaign_options import add_executor_options

EXIT_CERTIFIED, EXIT_NOT_CERTIFIED, EXIT_BAD_INPUT = 0, 1, 2
DEFAULT_FIXTURES = Path("dualitycert-fixtures")
DEFAULT_RUNS = Path("dualitycert-runs")
POLICIES = ("ss", "gr", "vf", "vf_masked", "best_of_n")
"""The repair policies of physvec.agents.dualitycert_repair, and the chiral-ring levels of the loop and of
the final judge (physvec.verifiers.dualitycert.registry), named here so that the parser loads no checker;
a test keeps them equal."""
INTERACTION_LEVEL, FINAL_LEVEL = 3, 5


def _parser() -> argparse.ArgumentParser:
    summary = " ".join(__doc__.split("\n\n")[0].split())
    parser = argparse.ArgumentParser(prog="dualitycert", description=summary.split(": ", 1)[1])
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser("verify", help="check a claim {theory_a, theory_b} and print its certificate")
    verify.add_argument("claim", type=Path)
    verify.add_argument("--final", action="store_true",
                        help=f"final-judge strictness (chiral ring level {FINAL_LEVEL} instead of {INTERACTION_LEVEL})")
    verify.add_argument("--audits", action="store_true", help="also run the a-maximisation and unitarity audits")
    verify.add_argument("--json", action="store_true", help="print the certificate as JSON")
    dual = commands.add_parser("dualize", help="print the Seiberg dual of a theory on one node (seed schema)")
    dual.add_argument("theory", type=Path)
    dual.add_argument("--node", type=int, required=True, help="index of the node to dualise")
    generate_parser = commands.add_parser("generate-fixtures", help="perturbed seed duals that must fail, with a manifest")
    generate_parser.add_argument("--seed", type=int, default=0, help="seed of the candidate sampling (default 0)")
    generate_parser.add_argument("--per-class", type=int, default=3, help="candidates per class and seed cell (0: all of them)")
    generate_parser.add_argument("--out", type=output_folder, default=DEFAULT_FIXTURES)
    repair = commands.add_parser("run-repair-loop", help="a model repairs every fixture under one policy")
    repair.add_argument("--policy", required=True, choices=[*POLICIES, "portfolio"])
    repair.add_argument("--model", help="model spec as for reproduce (openai:..., scripted:FILE, replay:RUN)")
    repair.add_argument("--run-id", required=True, type=folder_name)
    repair.add_argument("--resume", action="store_true", help="continue an existing run")
    repair.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES, help="folder with manifest.json")
    repair.add_argument("--runs-dir", type=output_folder, default=DEFAULT_RUNS)
    repair.add_argument("--trials", type=int, default=1, help="independent episodes per fixture")
    repair.add_argument("--token-budget", type=int, default=2_000_000)
    repair.add_argument("--from-runs", nargs=3, metavar=("SS", "GR", "VF"), type=folder_name,
                        help="portfolio only: the recorded ss, gr and vf runs to replay")
    add_executor_options(repair)
    timing = commands.add_parser("bench", help="seconds per seed cell at levels 5 and 8, then fixture claims per second "
                                               "at levels 3 and 5 with the time per check")
    timing.add_argument("--fixtures", type=Path, help="fixture folder (default: generate with seed 0 into a temporary folder)")
    timing.add_argument("--levels", type=int, nargs="+", default=[5, 8], help="chiral-ring levels for the seed cells")
    timing.add_argument("--seeds-only", action="store_true", help="time the seed cells only")
    analysis = commands.add_parser("analyze", help="GEE, risk differences, Holm, McNemar, tables and a figure")
    analysis.add_argument("--runs-dir", type=output_folder, default=DEFAULT_RUNS)
    analysis.add_argument("--run-ids", nargs="*", help="the runs to analyse (default: every run)")
    analysis.add_argument("--out", type=output_folder, default=Path("dualitycert-analysis"))
    return parser


def main(argv: list[str] | None = None) -> int:
    arguments = _parser().parse_args(argv)
    from physvec.cli.dualitycert_commands import COMMANDS
    from physvec.verifiers.dualitycert.dualize import DualisationError
    from physvec.verifiers.dualitycert.theory import MalformedTheory

    try:
        return COMMANDS[arguments.command](arguments)
    except (MalformedTheory, DualisationError) as error:
        print(f"dualitycert: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
