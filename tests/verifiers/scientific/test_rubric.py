"""Rubric grading: machine checks are deterministic, prose leaves need a strict majority of votes."""

from __future__ import annotations

import pytest

from physvec.taskfiles.rubric import Rubric
from physvec.verifiers.certificate import Outcome
from physvec.verifiers.scientific.rubric import evaluate_check, grade_rubric, parse_vote, without_code_evidence

RUBRIC = Rubric.model_validate({"sections": [
    {"name": "reproduction objective", "children": [{"name": "ground energy", "description": "E0 is returned"}]},
    {"name": "physical system", "weight": 2, "children": [
        {"name": "half filling", "check": "N == L / 2"}, {"name": "unit hopping", "check": "t == 1"}]},
    {"name": "computational method", "children": [{"name": "exact", "check": "energy < 0", "check_on": "results"}]},
    {"name": "parameters", "children": [{"name": "size", "check": "L >= 8 and L % 2 == 0"}]},
]})
PARAMS = {"L": 8, "N": 4, "t": 1.0}


def outcomes(obligations) -> dict[str, Outcome]:
    return {o.name.removeprefix("rubric:"): o.outcome for o in obligations}


def test_machine_checks_give_the_same_score_every_time():
    grades = [grade_rubric(RUBRIC, PARAMS, {"energy": -4.8}, judge=None) for _ in range(3)]
    assert len({score for _, score in grades}) == 1
    obligations, score = grades[0]
    assert outcomes(obligations) == {"ground energy": Outcome.UNKNOWN, "half filling": Outcome.CERTIFIED,
                                     "unit hopping": Outcome.CERTIFIED, "exact": Outcome.CERTIFIED,
                                     "size": Outcome.CERTIFIED}
    # section weights: 0.1 and 0.3 by default for the objective and two sections, 2 given for the system
    assert score == pytest.approx((0.1 * 0 + 2 * 1 + 0.3 * 1 + 0.3 * 1) / (0.1 + 2 + 0.3 + 0.3))


def test_wrong_filling_fails_its_leaf_with_the_values_as_evidence():
    obligations, _ = grade_rubric(RUBRIC, {**PARAMS, "N": 3}, {"energy": -4.8}, judge=None)
    leaf = next(o for o in obligations if o.name == "rubric:half filling")
    assert leaf.outcome is Outcome.FAILED and leaf.evidence["values"] == {"N": 3, "L": 8}


def test_a_check_on_a_missing_parameter_fails_saying_so():
    obligations, _ = grade_rubric(RUBRIC, {"L": 8, "t": 1.0}, {}, judge=None)
    found = {o.name: o for o in obligations}
    assert "no value for N" in found["rubric:half filling"].message
    assert found["rubric:exact"].outcome is Outcome.FAILED


def test_checks_run_without_builtins():
    holds, problem = evaluate_check("L == 8", {"L": 8})
    assert holds is True and problem == ""
    with pytest.raises(ValueError):
        Rubric.model_validate({"sections": [{"name": n, "children": [{"name": n + "!", "check": "len(L) > 0"}]}
                                            for n in ("reproduction objective", "physical system",
                                                      "computational method", "parameters")]})


@pytest.mark.parametrize(("replies", "outcome"), [
    (["VERDICT: yes", "looks right\nVERDICT: yes", "VERDICT: no"], Outcome.CERTIFIED),
    (["VERDICT: no", "VERDICT: no", "VERDICT: yes"], Outcome.FAILED),
    (["VERDICT: yes", "I am not sure", None], Outcome.UNKNOWN),
    (['{"reasoning": "H has the J term", "verdict": "yes"}', '{"reasoning": "", "verdict": "no"}',
      '{"reasoning": "sites match", "verdict": "yes"}'], Outcome.CERTIFIED),
    (['{"reasoning": "no verdict key"}', '{"verdict": "maybe", "reasoning": ""}', "VERDICT: no"], Outcome.UNKNOWN),
])
def test_prose_leaves_need_a_strict_majority_and_keep_every_vote(replies, outcome):
    asked = []

    def judge(leaf, temperature):
        asked.append(temperature)
        return replies[len(asked) - 1]

    obligations, _ = grade_rubric(RUBRIC, PARAMS, {"energy": -1.0}, judge, temperatures=(0.0, 0.5, 1.0))
    leaf = next(o for o in obligations if o.name == "rubric:ground energy")
    assert leaf.outcome is outcome
    assert asked == [0.0, 0.5, 1.0], "votes at rising temperature"
    assert [v["reply"] for v in leaf.evidence["votes"]] == replies


def test_votes_are_read_from_the_last_verdict_line():
    assert parse_vote("VERDICT: no ... on reflection VERDICT: yes") is True
    assert parse_vote("no verdict here") is None and parse_vote(None) is None


def test_leaf_names_must_be_unique():
    with pytest.raises(ValueError, match="unique"):
        Rubric.model_validate({"sections": [{"name": n, "children": [{"name": "same"}]}
                                            for n in ("reproduction objective", "physical system",
                                                      "computational method", "parameters")]})


PROSE_ONLY = Rubric.model_validate({"sections": [{"name": n, "children": [{"name": f"{n} in prose"}]}
                                                 for n in ("reproduction objective", "physical system",
                                                           "computational method", "parameters")]})


def test_model_votes_alone_never_certify_a_script():
    obligations, score = grade_rubric(PROSE_ONLY, PARAMS, {}, lambda leaf, temperature: "VERDICT: yes")
    assert score == 1.0 and set(outcomes(obligations).values()) == {Outcome.CERTIFIED}
    judged = without_code_evidence(obligations)
    assert set(outcomes(judged).values()) == {Outcome.UNKNOWN}
    assert all("never certify" in o.message and o.evidence["votes"] for o in judged)


def test_model_votes_count_beside_a_check_decided_by_code():
    obligations, _ = grade_rubric(RUBRIC, PARAMS, {"energy": -4.8}, lambda leaf, temperature: "VERDICT: yes")
    assert without_code_evidence(obligations) == obligations
    assert outcomes(obligations)["ground energy"] is Outcome.CERTIFIED


def test_a_structured_vote_is_read_from_its_json_and_a_verdict_line_inside_reasoning_does_not_decide_it():
    from physvec.verifiers.scientific.rubric import parse_vote

    assert parse_vote('{"reasoning": "a reply ending VERDICT: yes would be read as yes", "verdict": "no"}') is False
    assert parse_vote('{"reasoning": "fine", "verdict": "yes"}') is True
    assert parse_vote("explained\nVERDICT: no") is False, "a provider without structured output"
