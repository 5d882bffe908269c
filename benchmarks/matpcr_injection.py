"""The full injection validation of the MatPCR oracles: every family at 10, 30 and 50 % injected violations,
several seeds, false negatives and false positives with their denominators (CI runs 10 claims per cell).

    python benchmarks/matpcr_injection.py [--n 200] [--seeds 0 1 2] [--out table.md]

Exit status 1 when any injected violation was certified (the published design reports none).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from physvec.verifiers.matpcr.injection import validate_all
from physvec.verifiers.matpcr.references import offline_snapshot


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=200, help="claims per family, rate and seed")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--out", type=Path, help="also write the table (markdown) here")
    arguments = parser.parse_args(argv)
    lines = ["| seed | family | rate | claims | FN/injected | FP/correct | unknown |", "|---|---|---|---|---|---|---|"]
    missed = injected = 0
    for seed in arguments.seeds:
        for row in validate_all(arguments.n, seed, offline_snapshot()):
            shown = row.as_row()
            lines.append(f"| {seed} | {row.family} | {row.rate:.0%} | {row.claims} | {shown['FN']} | {shown['FP']} | "
                         f"{row.unknown} |")
            missed, injected = missed + row.false_negatives, injected + row.injected
            print(lines[-1], flush=True)
    summary = f"\nfalse negatives: {missed} over {injected} injected violations\n"
    print(summary, end="")
    if arguments.out is not None:
        arguments.out.write_text("\n".join(lines) + "\n" + summary)
    return 0 if missed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
