"""`matpcr`: physics oracles judge materials claims, and the oracles are validated by injection.

    matpcr check CLAIMS [--json] [--provider offline|mp]
                                                 exit 0 certified, 1 failed or unknown
    matpcr validate-oracles [--n N] [--seed S] [--family F ...] [--rates 0.1,0.3,0.5] [--json]
                                                 exit 0 when no injected violation was certified, else 1
    matpcr evaluate --model SPEC [--family F ...] [--n 30] [--seeds 3] [--items GLOB] [--bootstrap 10000]
                    [--runs-dir runs] [--run-id ID] [--resume] [--executor local|dask] [--jobs N] [--scheduler ADDRESS]
                                                 PCR and accuracy per type with bootstrap intervals
    matpcr cgsv --model SPEC [--family diffraction|raman] [--rounds 2] [same sampling, run and executor flags]
                                                 oracle-guided revision beside three controls, McNemar + Holm
    matpcr detector [RUN ...] [--synthetic N]    a text-only violation detector trained on oracle labels of
                                                 evaluate runs (or synthetic claims): source-disjoint and
                                                 held-out-type precision, recall, F1, ROC AUC, ECE
    matpcr schemas [--out FOLDER]                the JSON Schemas of claims files, claims and reasoning chains

Exit status 2: an unreadable claims file, an unknown item or material, an item id whose seed is not 1 to 18
ASCII digits, a claim of another constraint than its item's, or bad settings; the message names the field,
never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from physvec.cli.arguments import add_runs_dir, folder_name, output_folder
from physvec.cli.conventions import EXIT_BAD_INPUT, CommandParser
from physvec.cli.campaign_options import add_executor_options

FAMILIES = ("diffraction", "microscopy", "raman", "stability", "band_gap", "magnetisation")
"""physvec.verifiers.matpcr.schema.CONSTRAINTS restated (a test keeps them equal), so the parser loads no oracle."""
CGSV_FAMILIES = ("diffraction", "raman")
"""physvec.agents.matpcr_cgsv.FAMILIES restated: revision runs on diffraction and spectra only"""


def _seed(text: str) -> int:
    """A --seed: 1 to 18 ASCII digits (argparse's int would echo a 5000-digit value back whole, and accepts '²')."""
    if not (1 <= len(text) <= 18 and text.isascii() and text.isdigit()):
        shown = text if len(text) <= 40 else f"{text[:20]}... ({len(text)} characters)"
        raise argparse.ArgumentTypeError(f"must be 1 to 18 ASCII digits, not {shown!r}")
    return int(text)


def _campaign_flags(command: argparse.ArgumentParser, families: tuple[str, ...], default_id: str) -> None:
    """Model, sampling, run-folder and executor flags shared by evaluate and cgsv."""
    command.add_argument("--model", required=True,
                         help="openai:<name>, scripted:<file> or replay:<run dir>; with --jobs > 1 or --executor dask "
                              "each item has a model client of its own (its own --token-budget, and a scripted "
                              "model starts again at its first reply)")
    command.add_argument("--base-url", help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL)")
    command.add_argument("--family", action="append", choices=families, help="one type (repeatable; default all)")
    command.add_argument("--n", type=int, default=30, help="items per type and seed (default 30)")
    command.add_argument("--seeds", type=int, default=3, help="seeds per type (default 3)")
    command.add_argument("--items", default="*", help="glob over item ids, e.g. 'diffraction:Si' (default: all)")
    command.add_argument("--token-budget", type=int, default=2_000_000)
    add_runs_dir(command)
    command.add_argument("--run-id", type=folder_name, help=f"folder name under --runs-dir (default: {default_id})")
    command.add_argument("--resume", action="store_true", help="continue an existing run")
    add_executor_options(command)


def _parser() -> argparse.ArgumentParser:
    parser = CommandParser(prog="matpcr", description="physics oracles judge materials claims",
                           examples=('matpcr check claims.json --json', 'matpcr validate-oracles --n 20 --seed 0'))
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="judge a claims file (an item and claims or reasoning about it)")
    check.add_argument("claims", type=Path)
    check.add_argument("--json", action="store_true", help="print the certificate as JSON")
    check.add_argument("--provider", choices=("offline", "mp"), default="offline",
                       help="reference values: the offline snapshot, or the Materials Project (needs the mp extra, "
                            "$MP_API_KEY and network)")
    validate = commands.add_parser("validate-oracles", help="inject violations into correct claims; FN and FP rates")
    validate.add_argument("--n", type=int, default=20, help="claims per family and rate (default 20)")
    validate.add_argument("--seed", type=_seed, default=0)
    validate.add_argument("--family", action="append", choices=FAMILIES, help="one family (repeatable; default all)")
    validate.add_argument("--rates", default="0.1,0.3,0.5", help="comma-separated injection rates in (0, 1]")
    validate.add_argument("--json", action="store_true", help="print the rows as JSON")
    evaluate = commands.add_parser("evaluate", help="a model reasons about drawn items; PCR and accuracy per type")
    _campaign_flags(evaluate, FAMILIES, "matpcr-eval")
    evaluate.add_argument("--bootstrap", type=int, default=10_000, help="bootstrap replicates (default 10000)")
    evaluate.add_argument("--model-extraction", action="store_true",
                          help="when the parser reads no claim, ask the model to restate them as JSON (validated)")
    cgsv = commands.add_parser("cgsv", help="oracle-guided revision and its controls, paired McNemar with Holm")
    _campaign_flags(cgsv, CGSV_FAMILIES, "matpcr-cgsv")
    cgsv.add_argument("--rounds", type=int, default=2, help="revision rounds K (default 2)")
    detector = commands.add_parser("detector", help="train and test a text-only violation detector on oracle labels")
    detector.add_argument("runs", type=Path, nargs="*", help="evaluate run folders (each model is one source)")
    detector.add_argument("--synthetic", type=int, default=0, help="also N synthetic claims per type (three styles)")
    detector.add_argument("--seed", type=_seed, default=0)
    detector.add_argument("--out", type=Path, help="also write the table (markdown) here")
    schemas = commands.add_parser("schemas", help="export the JSON Schemas of MatPCR files")
    schemas.add_argument("--out", type=output_folder, default=Path("schemas"))
    return parser


def main(argv: list[str] | None = None) -> int:
    arguments = _parser().parse_args(argv)
    from physvec.cli.matpcr_commands import COMMANDS
    from physvec.verifiers.matpcr.schema import MalformedInput

    try:
        return COMMANDS[arguments.command](arguments)
    except MalformedInput as error:
        print(f"matpcr: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
