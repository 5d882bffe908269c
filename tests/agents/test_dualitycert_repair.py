"""The DualityCert repair environment with scripted models standing in for a language model.

Each scripted reply is a fixture written here: a wrong B, a copy of A in disguise, the correct dual,
or text that breaks the reply schema.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from langchain_core.messages import AIMessage

from physvec.agents.dualitycert_repair import POLICIES, EpisodeRecord, RepairRun, portfolio, run_episode, run_policy
from physvec.agents.model_client import ModelClient
from physvec.agents.providers import ScriptedChatModel
from physvec.cli.dualitycert import main
from physvec.runstore.transcript import EventType, Transcript, read_events
from tests.verifiers.dualitycert.conftest import dp0_data
from physvec.verifiers.dualitycert.dualize import dualize
from physvec.verifiers.dualitycert.fixtures import Fixture, FixtureConfig, write_fixtures
from physvec.verifiers.dualitycert.perturb import Perturbation, apply
from physvec.verifiers.dualitycert.theory import Claim, parse_theory


@pytest.fixture
def claims():
    """(the wrong claim a model is given, the correct dual it should find)."""
    electric = parse_theory(dp0_data())
    correct = dualize(electric, 0)
    wrong = apply(correct, Perturbation("rank_perturb", "0", "+1"))
    return Claim(theory_a=electric, theory_b=wrong), correct


def reply(action: str, theory=None, reason: str = "scripted") -> str:
    body = {"action": action, "reason": reason}
    if theory is not None:
        body["theory_b"] = theory.model_dump(mode="json") if hasattr(theory, "model_dump") else theory
    return "```json\n" + json.dumps(body) + "\n```"


def relabelled_copy_of_a(claim: Claim):
    names = {a.label: f"Q{i}" for i, a in enumerate(claim.theory_a.arrows)}
    return claim.theory_a.model_copy(update={
        "arrows": tuple(a.model_copy(update={"label": names[a.label]}) for a in claim.theory_a.arrows),
        "superpotential": tuple(t.model_copy(update={"factors": tuple(names[f] for f in t.factors)})
                                for t in claim.theory_a.superpotential)})


def episode(tmp_path, claim, policy, *replies):
    run = RepairRun(tmp_path / "run")
    run.folder.mkdir(exist_ok=True)
    transcript = Transcript(run.folder / "transcript.jsonl")
    client = ModelClient(ScriptedChatModel(responses=[AIMessage(content=r) for r in replies]), transcript, 10**7)
    return run, run_episode(run, POLICIES[policy], "fixture", claim, 0, client, step_base=0)


def test_vf_survives_an_invalid_reply_and_a_copy_of_a_then_certifies_the_correct_dual(tmp_path, claims):
    claim, correct = claims
    run, record = episode(tmp_path, claim, "vf", "I think rank 6 is right.", reply("edit_candidate", relabelled_copy_of_a(claim)),
                          reply("edit_candidate", correct))
    assert (record.outcome, record.calls, record.final_verdict) == ("certified", 3, "certified")
    attempts = run.attempts.read()
    assert [a.action for a in attempts] == ["invalid", "edit_candidate", "edit_candidate"]
    assert attempts[0].error.startswith("the reply is not a JSON object")
    assert attempts[1].copy_rejected and attempts[1].verdict == "failed"
    prompts = [e.data["prompt"][0]["content"] for e in read_events(run.folder / "transcript.jsonl")
               if e.type is EventType.MODEL_CALL]
    assert "B.cubic_gauge_anomaly" in prompts[0] and "gauge_anomaly" in prompts[0]
    assert "Your previous reply was invalid" in prompts[1]
    assert "it is theory A itself" in prompts[2]
    assert correct.to_json().strip() not in prompts[0], "the answer is never in the prompt"


def test_vf_masked_shows_the_same_structure_without_identities(tmp_path, claims):
    claim, _ = claims
    run, record = episode(tmp_path, claim, "vf_masked", *[reply("no_change")] * 5)
    assert (record.outcome, record.calls) == ("failed", 5)
    prompt = next(e for e in read_events(run.folder / "transcript.jsonl")
                  if e.type is EventType.MODEL_CALL).data["prompt"][0]["content"]
    assert "obligation_1" in prompt and "category_1" in prompt and "cubic_gauge_anomaly" not in prompt


def test_ss_gets_one_content_free_round(tmp_path, claims):
    claim, correct = claims
    run, record = episode(tmp_path, claim, "ss", reply("edit_candidate", claim.theory_b), reply("edit_candidate", correct))
    assert (record.outcome, record.calls) == ("failed", 1)
    prompt = read_events(run.folder / "transcript.jsonl")[0].data["prompt"][0]["content"]
    assert '{"verification": "failed"}' in prompt


def test_an_abstention_ends_the_episode(tmp_path, claims):
    claim, _ = claims
    _, record = episode(tmp_path, claim, "gr", reply("abstain"))
    assert (record.outcome, record.calls) == ("abstained", 1)


def test_a_malformed_revised_b_is_an_invalid_reply_not_a_crash(tmp_path, claims):
    claim, _ = claims
    broken = claim.theory_b.model_dump(mode="json")
    broken["ranks"][0] = 1
    run, record = episode(tmp_path, claim, "ss", reply("edit_candidate", broken))
    assert record.outcome == "invalid"
    assert "theory_b.ranks.0: rank 1 < 2" in run.attempts.read()[0].error


def test_best_of_n_stops_at_the_first_final_certificate(tmp_path, claims):
    claim, correct = claims
    _, record = episode(tmp_path, claim, "best_of_n", reply("no_change"), reply("edit_candidate", claim.theory_b),
                        reply("edit_candidate", correct), reply("no_change"))
    assert (record.outcome, record.calls) == ("certified", 3)


def test_a_provider_fault_is_infrastructure_and_a_resumed_run_finishes_the_episode(tmp_path, claims):
    claim, correct = claims
    run = RepairRun(tmp_path / "run")
    run.folder.mkdir()
    first = ModelClient(ScriptedChatModel(responses=[AIMessage(content=reply("no_change"))]),
                        Transcript(run.folder / "transcript.jsonl"), 10**7)
    (faulted,) = run_policy(run, POLICIES["gr"], [("f", claim)], 1, first)
    assert faulted.outcome == "infra_fault" and run.finished() == {}
    # the resumed client serves round 1 from the transcript and asks the model only for round 2
    second = ModelClient(ScriptedChatModel(responses=[AIMessage(content=reply("edit_candidate", correct))]),
                         Transcript(run.folder / "transcript.jsonl"), 10**7)
    (finished,) = run_policy(run, POLICIES["gr"], [("f", claim)], 1, second)
    assert (finished.outcome, finished.calls) == ("certified", 2)
    assert run_policy(run, POLICIES["gr"], [("f", claim)], 1, second) == []


def test_the_portfolio_pays_for_every_policy_it_tried():
    def record(policy, outcome, tokens):
        return EpisodeRecord(run_id=policy, policy=policy, fixture="f", trial=0, outcome=outcome, calls=1,
                             final_verdict="certified" if outcome == "certified" else "failed", tokens=tokens, seconds=1.0)
    (combined,) = portfolio({"ss": [record("ss", "failed", 10)], "gr": [record("gr", "certified", 20)],
                             "vf": [record("vf", "certified", 40)]}, "p")
    assert (combined.outcome, combined.tokens, combined.calls) == ("certified", 30, 2)


def test_the_command_line_runs_a_policy_over_a_fixture_folder_and_resumes(tmp_path, capsys, claims):
    claim, _ = claims
    fixtures, runs = tmp_path / "fixtures", tmp_path / "runs"
    wrong = [Fixture("dp0", Perturbation("rank_perturb", "0", "+1"), claim, ("B.cubic_gauge_anomaly",)),
             Fixture("dp0", Perturbation("drop_w_term", "0"), claim, ("chiral_ring",))]
    write_fixtures(fixtures, FixtureConfig(), wrong, Counter())
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps({"replies": [reply("no_change")] * 2}))
    arguments = ["run-repair-loop", "--policy", "ss", "--model", f"scripted:{replies}", "--run-id", "r1",
                 "--fixtures", str(fixtures), "--runs-dir", str(runs)]
    assert main(arguments) == 0
    assert "0/2 episodes certified" in capsys.readouterr().out
    assert main(arguments) == 2
    assert "pass --resume" in capsys.readouterr().err
    assert main([*arguments, "--resume"]) == 0
    assert len(RepairRun(runs / "r1").episodes.read()) == 2


def test_the_loop_and_the_verdict_share_one_copy_rule(tmp_path):
    # dP1 node 0 is self-dual: its correct dual is A up to relabelling, so the loop must not refuse A,
    # while a copy of dP0 (no self-dual node) is refused by the loop and by the final judge alike.
    from physvec.verifiers.dualitycert.seeds import seed_cells

    cell = next(c for c in seed_cells() if c.name == "dp1_N2_node0")
    electric = cell.electric()
    wrong = apply(dualize(electric, cell.node), Perturbation("rank_perturb", "0", "+1"))
    run, record = episode(tmp_path, Claim(theory_a=electric, theory_b=wrong), "vf",
                          reply("edit_candidate", relabelled_copy_of_a(Claim(theory_a=electric, theory_b=wrong))))
    assert not run.attempts.read()[0].copy_rejected
    assert (record.outcome, record.final_verdict) == ("certified", "certified")
