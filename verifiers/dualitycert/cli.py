"""`dualitycert`: certify a Seiberg-duality claim, dualise a theory on one node, generate benchmark fixtures.

Exit status: 0 certified, 1 failed or unknown, 2 unreadable input or a node that cannot be dualised.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from physvec.display import print_certificate
from verifiers.certificate import Verdict
from verifiers.dualitycert.dualize import DualisationError, dualize
from verifiers.dualitycert.fixtures import MANIFEST, FixtureConfig, generate
from verifiers.dualitycert.registry import FINAL, INTERACTION, Settings, certify
from verifiers.dualitycert.theory import MalformedTheory, parse_claim, parse_theory, read_json

EXIT_CERTIFIED, EXIT_NOT_CERTIFIED, EXIT_BAD_INPUT = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dualitycert", description=__doc__.splitlines()[0].split(": ", 1)[1])
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser("verify", help="check a claim {theory_a, theory_b} and print its certificate")
    verify.add_argument("claim", type=Path)
    verify.add_argument("--final", action="store_true",
                        help=f"final-judge strictness (chiral ring level {FINAL.level} instead of {INTERACTION.level})")
    verify.add_argument("--audits", action="store_true", help="also run the a-maximisation and unitarity audits")
    verify.add_argument("--json", action="store_true", help="print the certificate as JSON")
    dual = commands.add_parser("dualize", help="print the Seiberg dual of a theory on one node (seed schema)")
    dual.add_argument("theory", type=Path)
    dual.add_argument("--node", type=int, required=True, help="index of the node to dualise")
    generate_parser = commands.add_parser("generate-fixtures", help="perturbed seed duals that must fail, with a manifest")
    generate_parser.add_argument("--seed", type=int, default=0, help="seed of the candidate sampling (default 0)")
    generate_parser.add_argument("--per-class", type=int, default=3, help="candidates per class and seed cell")
    generate_parser.add_argument("--out", type=Path, default=Path("dualitycert-fixtures"))
    return parser


def _verify(arguments: argparse.Namespace) -> int:
    claim = parse_claim(read_json(arguments.claim))
    settings = Settings(level=(FINAL if arguments.final else INTERACTION).level, audits=arguments.audits)
    certificate = certify(claim, settings)
    if arguments.json:
        print(certificate.model_dump_json(indent=2))
    else:
        print_certificate(Console(), arguments.claim.name, certificate)
    return EXIT_CERTIFIED if certificate.verdict is Verdict.CERTIFIED else EXIT_NOT_CERTIFIED


def _dualize(arguments: argparse.Namespace) -> int:
    theory = parse_theory(read_json(arguments.theory))
    print(dualize(theory, arguments.node).to_json(), end="")
    return 0


def _generate(arguments: argparse.Namespace) -> int:
    if arguments.per_class < 1:
        raise MalformedTheory(["--per-class must be at least 1"])
    manifest = generate(FixtureConfig(seed=arguments.seed, per_class=arguments.per_class), arguments.out)
    table = Table("class", *manifest["attrition"]["drop_w_term"], title=f"{len(manifest['fixtures'])} fixtures")
    for kind, row in manifest["attrition"].items():
        table.add_row(kind, *(str(value) for value in row.values()))
    Console().print(table)
    print(f"wrote {arguments.out / MANIFEST}")
    return 0


COMMANDS = {"verify": _verify, "dualize": _dualize, "generate-fixtures": _generate}


def main(argv: list[str] | None = None) -> int:
    arguments = _parser().parse_args(argv)
    try:
        return COMMANDS[arguments.command](arguments)
    except (MalformedTheory, DualisationError) as error:
        print(f"dualitycert: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
