"""Helpers shared by the MatPCR oracle tests: a claim and a claims file in one line each."""

from __future__ import annotations

from physvec.verifiers.matpcr.schema import Claim, ClaimsFile


def claim(constraint: str, value: float | None = None, unit: str | None = None, **fields) -> Claim:
    return Claim(constraint=constraint, value=value, unit=unit, **fields)


def claims_file(item, *claims: Claim, reasoning: str | None = None) -> ClaimsFile:
    return ClaimsFile(item=item, claims=list(claims), reasoning=reasoning)
