"""The live view of a run: current node, iteration, tokens, elapsed time, and the model call under way.

On a terminal it is a rich Live panel; elsewhere (CI, pipes) it prints one line per finished node, so
logs stay readable, and a line every PROGRESS_LINE_S of a long model call, so a slow local model shows life
in a log that is being tailed.
"""

from __future__ import annotations

import time
from types import TracebackType
from typing import TYPE_CHECKING

from rich.console import Console
from rich.live import Live
from rich.table import Table

from physvec.runstore.transcript import Event, EventType

if TYPE_CHECKING:
    from physvec.agents.model_client import CallProgress

PROGRESS_LINE_S = 10.0
"""off a terminal, a model call's progress is printed at most this often"""


def progress_line(progress: CallProgress) -> str:
    """'author: 312 tokens in 40 s, 7.8 tok/s' (no rate before the second token)."""
    rate = progress.tokens_per_s
    return (f"{progress.role}: {progress.tokens} tokens in {progress.seconds:.0f} s"
            + ("" if rate is None else f", {rate:.1f} tok/s"))


class LiveDisplay:
    """Subscribe ``display.on_event`` to a run's transcript inside ``with LiveDisplay(console):``."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.started = time.monotonic()
        self.node = "starting"
        self.step = 0
        self.script_version = 0
        self.tokens = 0
        self.model_calls = 0
        self.faults = 0
        self.repairs = {"programming_repair": 0, "scientific_repair": 0}
        self.call: CallProgress | None = None
        """the model call streaming now (None between calls)"""
        self.last_call = ""
        """the role and tokens per second of the last finished call"""
        self._printed_at = 0.0
        self._live = Live(get_renderable=self._table, console=console, refresh_per_second=4) \
            if console.is_terminal else None

    def __enter__(self) -> LiveDisplay:
        if self._live is not None:
            self._live.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if self._live is not None:
            self._live.stop()

    def _table(self) -> Table:
        table = Table.grid(padding=(0, 2))
        table.add_row("node", f"{self.node} (step {self.step})")
        table.add_row("iteration", f"programming repairs {self.repairs['programming_repair']}, "
                                   f"scientific repairs {self.repairs['scientific_repair']}")
        table.add_row("script version", str(self.script_version))
        table.add_row("tokens", f"{self.tokens} in {self.model_calls} model calls, {self.faults} provider faults")
        call = self.call
        if call is not None or self.last_call:
            table.add_row("model call", progress_line(call) if call is not None else f"last: {self.last_call}")
        table.add_row("elapsed", f"{time.monotonic() - self.started:.1f} s")
        return table

    def on_progress(self, progress: CallProgress) -> None:
        """A ModelClient's progress observer: shown live, or printed every PROGRESS_LINE_S of a call."""
        if self.call is None or progress.tokens < self.call.tokens:
            self._printed_at = 0.0  # a new call or a new attempt
        self.call = progress
        if self._live is None and progress.seconds - self._printed_at >= PROGRESS_LINE_S:
            self._printed_at = progress.seconds
            self.console.print(f"[{time.monotonic() - self.started:7.1f}s] {progress_line(progress)}", highlight=False,
                               markup=False)

    def on_event(self, event: Event) -> None:
        if event.type is EventType.NODE_STARTED:
            self.node, self.step = event.node or "", event.step or 0
            if self.node in self.repairs:
                self.repairs[self.node] += 1
        elif event.type is EventType.MODEL_CALL:
            self.tokens += event.data["input_tokens"] + event.data["output_tokens"]
            self.model_calls += 1
            self.call = None
            rate = event.data.get("output_tokens_per_s")
            self.last_call = f"{event.data['role']}, " + (f"{rate:.1f} tok/s" if rate is not None else
                                                          f"{event.data['output_tokens']} tokens")
        elif event.type is EventType.INFRASTRUCTURE_FAULT:
            self.faults += 1
            self.call = None
            retry = event.data.get("retry_in_s")
            self.console.print(f"provider fault at {event.node}: {event.data['error']}: {event.data['message'][:160]} "
                               f"(attempt {event.data['attempt']}, "
                               + (f"retry in {retry:g} s)" if retry is not None else "no retry left)"),
                               highlight=False, markup=False)
        elif event.type is EventType.SCRIPT_WRITTEN:
            self.script_version = event.data["version"]
        if self._live is None and event.type is EventType.NODE_FINISHED:
            self.console.print(f"[{time.monotonic() - self.started:7.1f}s] {event.node} (step {event.step}) "
                               f"finished in {event.data['seconds']:.2f} s, {event.data['tokens']} tokens",
                               highlight=False)
