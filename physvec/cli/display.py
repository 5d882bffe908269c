"""A certificate as a table on the terminal (the commands that print one import nothing of a run's
transcript: the live view of a run is in run_display.py)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from physvec.verifiers.certificate import Certificate


def print_certificate(console: Console, name: str, certificate: Certificate) -> None:
    """One row per obligation: name, outcome and the start of its message."""
    table = Table(title=f"{name}: {certificate.verdict.value}")
    table.add_column("obligation", overflow="fold")
    table.add_column("outcome", no_wrap=True)
    table.add_column("message", overflow="fold")
    for obligation in certificate.obligations:
        table.add_row(escape(obligation.name), obligation.outcome.value, escape(obligation.message[:300]))
    console.print(table)
