"""Rubric files: an immutable weighted tree whose leaves are single gradable issues.

The top level has exactly four sections, weighted by default as the published QMP-Bench rubrics weight
theirs (code 0.1, model 0.3, method 0.3, parameters 0.3): what the figure asks for counts least, the
physics most.  Nodes may also come from the rubric library (``physvec.taskfiles.library``).  A leaf may carry a machine check, a comparison such as
``cutoff <= 1e-7`` or ``N_up == L / 2`` over the script's PARAMS (or its results), which code
evaluates; leaves without one are judged from the script text.
"""

from __future__ import annotations

import ast
from typing import Any, Literal

from pydantic import Field, PositiveFloat, field_validator, model_validator

from physvec.taskfiles.base import StrictModel

RUBRIC_SECTIONS = ("reproduction objective", "physical system", "computational method", "parameters")
DEFAULT_SECTION_WEIGHTS = {"reproduction objective": 0.1, "physical system": 0.3, "computational method": 0.3,
                           "parameters": 0.3}
_ALLOWED_CHECK_NODES = (
    ast.Expression, ast.Compare, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Name, ast.Load, ast.Constant,
    ast.And, ast.Or, ast.Not, ast.USub, ast.UAdd, ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv,
    ast.Pow, ast.Mod, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE,
)


def parse_check(check: str) -> ast.Expression:
    """Parse a leaf's machine check, allowing only comparisons of names, constants and arithmetic."""
    try:
        tree = ast.parse(check, mode="eval")
    except SyntaxError as error:
        raise ValueError(f"check {check!r} is not an expression: {error.msg}") from None
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED_CHECK_NODES):
            raise ValueError(f"check {check!r} uses {type(node).__name__}, only comparisons are allowed")
    if not isinstance(tree.body, (ast.Compare, ast.BoolOp)):
        raise ValueError(f"check {check!r} must be a comparison such as 'L == 200'")
    return tree


class RubricNode(StrictModel):
    """A section, a group, or a leaf issue of the rubric."""

    name: str = Field(min_length=1)
    weight: PositiveFloat = 1.0
    description: str = ""
    check: str | None = Field(None, description="machine check on a leaf, e.g. 'chi_max >= 100'")
    check_on: Literal["params", "results"] = "params"
    children: list[RubricNode] = Field(default_factory=list)

    @field_validator("check")
    @classmethod
    def _check_parses(cls, check: str | None) -> str | None:
        if check is not None:
            parse_check(check)
        return check

    @model_validator(mode="after")
    def _checks_only_on_leaves(self) -> RubricNode:
        if self.children and self.check is not None:
            raise ValueError(f"node {self.name!r} has children and a check; only leaves carry checks")
        return self

    def leaves(self) -> list[RubricNode]:
        """The gradable issues under this node, depth first."""
        if not self.children:
            return [self]
        return [leaf for child in self.children for leaf in child.leaves()]


class Rubric(StrictModel):
    """A rubric for one task."""

    task: str | None = None
    note: str | None = Field(None, description="where the rubric comes from when the task's author did not write it "
                                               "(a published task whose rubric upstream never released)")
    sections: list[RubricNode]

    @model_validator(mode="before")
    @classmethod
    def _default_section_weights(cls, data: Any) -> Any:
        """A section without a weight of its own gets its default weight."""
        if not isinstance(data, dict) or not isinstance(data.get("sections"), list):
            return data
        sections = [{"weight": DEFAULT_SECTION_WEIGHTS[section["name"].lower()], **section}
                    if isinstance(section, dict) and str(section.get("name", "")).lower() in DEFAULT_SECTION_WEIGHTS
                    else section for section in data["sections"]]
        return {**data, "sections": sections}

    @field_validator("sections")
    @classmethod
    def _four_sections(cls, sections: list[RubricNode]) -> list[RubricNode]:
        names = sorted(section.name.lower() for section in sections)
        if names != sorted(RUBRIC_SECTIONS):
            raise ValueError(f"top level must be exactly the sections {list(RUBRIC_SECTIONS)}, got {names}")
        leaves = [leaf.name for section in sections for leaf in section.leaves()]
        repeated = sorted({name for name in leaves if leaves.count(name) > 1})
        if repeated:
            raise ValueError(f"leaf names must be unique, repeated: {repeated}")
        return sections


def rubric_keys(rubric: Rubric, on: Literal["params", "results"] = "params") -> set[str]:
    """The names the rubric's machine checks on PARAMS (or on the results) read."""
    return {node.id for section in rubric.sections for leaf in section.leaves()
            if leaf.check and leaf.check_on == on
            for node in ast.walk(parse_check(leaf.check)) if isinstance(node, ast.Name)}
