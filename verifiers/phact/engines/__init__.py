"""PHACT's deterministic physics engines: published equations with explicit units (a quantity's unit is
in its name: _K, _M, _nM, _Hz, _m, ...).  No engine reads anything a model wrote except the free design
values the structural contract lets through."""


class OutsideCompetence(ValueError):
    """The engine has no data or no valid equation for this case: the verdict is unknown."""


ENGINE_REFUSALS = (ValueError, ZeroDivisionError, OverflowError)
"""How an engine declines inputs it cannot evaluate (OutsideCompetence and SequenceError are ValueErrors):
outside the engine's competence, the verdict is unknown, never a crash or a certificate."""
