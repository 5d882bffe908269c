"""Time and memory bounds on one oracle call: past them the claim is unknown with the reason, never a hang.

Every input is capped (a reasoning of 50,000 characters, patterns of 100,000 channels, reflections down to
d = 0.25 Å and 20,000 lattice points), so each oracle's work is bounded by construction; the worst cases
measured take about 2 s and 180 MB.  These bounds catch what a cap misses.  The time bound is a SIGALRM timer,
which only the main thread may set, and only when no other timer runs: elsewhere (a campaign's worker
thread, a caller timing itself) the call runs without it, under that caller's own limits.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.matpcr.judgement import Judgement

ORACLE_SECONDS = 10.0
"""Five times the slowest capped input measured (corundum at 0.1 Å, a 100,000-channel pattern: about 2 s)."""


class OracleTimeout(Exception):
    """The oracle call ran past ORACLE_SECONDS."""


@contextmanager
def time_bound(seconds: float) -> Iterator[None]:
    """Raise OracleTimeout in the block after ``seconds``, where a timer may be set (see the module)."""
    free = threading.current_thread() is threading.main_thread() and signal.getitimer(signal.ITIMER_REAL)[0] == 0
    if not free:
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise OracleTimeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def bounded(call: Callable[[], Judgement], seconds: float | None = None) -> Judgement:
    """The oracle's judgement, or unknown saying which bound it ran past."""
    limit = ORACLE_SECONDS if seconds is None else seconds
    try:
        with time_bound(limit):
            return call()
    except OracleTimeout:
        return Judgement(Outcome.UNKNOWN, f"the oracle ran past its {limit:g} s bound, so the claim is not judged")
    except MemoryError:
        return Judgement(Outcome.UNKNOWN, "the oracle ran out of memory, so the claim is not judged")
