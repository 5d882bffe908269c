"""`physvec redteam`: the standing red team against the checkers (physvec.agents.redteam).

    physvec redteam [--checker dualitycert|phact|pipeline|matpcr] [--trials N] [--seed S] [--out DIR]

Per checker (all four without --checker) it runs trials 0 .. N-1 of seed S, skipping those already recorded
in DIR/records.jsonl, prints per class the trials, false certificates, false impossibilities, crashes,
unknowns and false alarms with Wilson 95% intervals, and writes the tables to DIR/redteam.md.  The matpcr
table counts false certificates, false refusals (a right claim failed or refused), crashes, hangs (no answer
from `matpcr check` within 5 s) and unknowns, and names its slowest trial.

Exit status: 0 when every checker run has no false verdict, no crash and no hang, 1 otherwise, 2 on bad input.
"""

from __future__ import annotations

import argparse
import sys
import time

EXIT_CLEAN, EXIT_FOUND, EXIT_BAD_INPUT = 0, 1, 2


def _bad_input(message: str) -> int:
    print(f"physvec redteam: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def run(arguments: argparse.Namespace) -> int:
    """The command: bad input first (exit 2), then each checker's trials, tables and the exit status."""
    if arguments.trials < 1:
        return _bad_input(f"--trials must be at least 1, not {arguments.trials}")
    if arguments.seed < 0:
        return _bad_input(f"--seed must be a non-negative integer, not {arguments.seed}")
    if arguments.out.exists() and not arguments.out.is_dir():
        return _bad_input(f"--out {arguments.out} exists and is not a folder")
    from physvec.agents.redteam import CHECKERS, clean, markdown_table, recorded, run_checker, write_report

    checkers = [arguments.checker] if arguments.checker else list(CHECKERS)
    tables, found_something = {}, False
    for checker in checkers:
        started = time.monotonic()

        def progress(record, checker=checker) -> None:
            if (record.trial + 1) % 25 == 0 or record.false_verdict or record.crash:
                flag = " FALSE VERDICT" if record.false_verdict else " CRASH" if record.crash else ""
                print(f"{checker}: trial {record.trial + 1}/{arguments.trials} ({record.kind}){flag}", file=sys.stderr)
        try:
            records = run_checker(checker, arguments.trials, arguments.seed, arguments.out, progress)
        except FileNotFoundError as error:
            return _bad_input(str(error))
        tables[checker] = markdown_table(checker, records)
        found_something |= not clean(records)
        print(tables[checker])
        print(f"{checker}: {len(records)} trials (seed {arguments.seed}) in {time.monotonic() - started:.1f} s\n")
    earlier = [r for r in recorded(arguments.out) if r.seed == arguments.seed and r.checker not in tables]
    for checker in CHECKERS:  # earlier runs of the other checkers with this seed stay in the report
        mine = sorted((r for r in earlier if r.checker == checker), key=lambda r: r.trial)
        if mine:
            tables[checker] = markdown_table(checker, mine)
    print(f"tables: {write_report(arguments.out, tables, arguments.seed)}")
    return EXIT_FOUND if found_something else EXIT_CLEAN
