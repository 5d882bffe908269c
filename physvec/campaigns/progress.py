"""A campaign's progress bar: trials done, failed and running, and the time left, on a rich bar.

Every campaign shows the same bar whichever executor runs it, so a campaign moved onto a cluster reads
exactly as it did on one machine; a cluster's dashboard link is printed above it once.
"""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressColumn, Task, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.text import Text


class _Counts(ProgressColumn):
    """done / failed / running / total; running is asked of the executor at each refresh."""

    def __init__(self, running: Callable[[], int]) -> None:
        super().__init__()
        self._running = running

    def render(self, task: Task) -> Text:
        failed = int(task.fields.get("failed", 0))
        return Text(f"{int(task.completed) - failed} done, {failed} failed, {self._running()} running "
                    f"of {int(task.total or 0)}")


class CampaignProgress:
    """The bar of one campaign; use as a context manager around the campaign's loop."""

    def __init__(self, console: Console, description: str, running: Callable[[], int] = lambda: 0,
                 dashboard_link: str | None = None) -> None:
        self.console = console
        self.dashboard_link = dashboard_link
        self._bar = Progress(TextColumn("{task.description}"), BarColumn(), _Counts(running), TimeElapsedColumn(),
                             TextColumn("eta"), TimeRemainingColumn(), console=console, refresh_per_second=2)
        self._task = self._bar.add_task(description, total=0, failed=0)
        self._failed = 0

    def __enter__(self) -> CampaignProgress:
        if self.dashboard_link:
            self.console.print(f"Dask dashboard: {self.dashboard_link}", markup=False)
        self._bar.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._bar.stop()

    def begin(self, total: int) -> None:
        """The campaign has ``total`` trials to run."""
        self._failed = 0
        self._bar.update(self._task, total=total, completed=0, failed=0)

    def finished(self, failed: bool = False) -> None:
        """One trial ended (recorded, or ``failed``)."""
        self._failed += failed
        self._bar.update(self._task, advance=1, failed=self._failed)
