"""The PHACT proposer loop: the engine alone decides, prose is re-prompted, and scripted adversaries cannot
forge a certificate under the structural contract, while the bare answer-submitting mode can be forged.

Every model here is a ScriptedChatModel whose replies are written below (they stand for a language model).
"""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage

from physvec.agents.model_client import ModelClient
from physvec.agents.phact_adversaries import ADVERSARIES, call, sweep
from physvec.agents.phact_campaign import PhactRun, episode_record, run_campaign
from physvec.agents.phact_proposer import Episode, LoopOutcome, LoopSettings, restated_values
from physvec.agents.providers import ScriptedChatModel
from physvec.runstore.transcript import EventType, Transcript
from physvec.verifiers.phact.corpus import corpus
from physvec.verifiers.phact.schema import FreeInput
from physvec.verifiers.phact.search import find_design
from physvec.verifiers.phact.tools import Contract

GOALS = {goal.id: (goal, domain) for _, goal, domain in corpus()}
FAST = LoopSettings(rounds=3, reprompts=2)


def episode(tmp_path, goal_id: str, replies: list[AIMessage], settings: LoopSettings = FAST):
    goal, domain = GOALS[goal_id]
    fresh = tmp_path / f"{goal_id}-{len(list(tmp_path.glob('*.jsonl')))}.jsonl"  # a new transcript: nothing replayed
    client = ModelClient(ScriptedChatModel(responses=replies), Transcript(fresh), 10**7)
    result = Episode(goal, domain, client, settings, index=0).run()
    return result, episode_record(PhactRun(tmp_path), goal, domain, settings, 0, result, 0.0), client.transcript


class TestTheLoop:
    def test_a_solver_design_proposed_through_the_tool_is_certified_by_the_engine(self, tmp_path):
        goal, domain = GOALS["mains-hum-low-pass"]
        result, record, _ = episode(tmp_path, goal.id, [call("propose_design", values=find_design(goal, domain))])
        assert result.outcome is LoopOutcome.CERTIFIED and result.certificate.verifier == "phact"
        assert record.rounds == 1 and not record.false_certificate

    def test_a_failed_design_gets_the_engines_feedback_and_the_revision_certifies(self, tmp_path):
        goal, _ = GOALS["mains-hum-low-pass"]
        first = call("propose_design", values={"resistance_ohm": 1000.0, "capacitance_F": 1e-6})
        result, _, _ = episode(tmp_path, goal.id, [first, first], LoopSettings(rounds=3))
        told = json.loads(result.history[2].content)
        assert told["verdict"] == "failed" and told["feedback"]["root_input"] in goal.free
        revised = call("propose_design", values={"resistance_ohm": 1000.0, "capacitance_F": 1e-6,
                                                 **told["feedback"]["set"]})
        result, record, _ = episode(tmp_path, goal.id, [first, revised])
        assert result.outcome is LoopOutcome.CERTIFIED and record.rounds == 2

    @pytest.mark.parametrize("form, keys", [("weak", {"violated", "value", "magnitude"}),
                                            ("strong", {"violated", "value", "magnitude", "set"}),
                                            ("structural", {"violated", "value", "magnitude", "root_input",
                                                            "dependency_path", "set", "predicted"})])
    def test_the_feedback_form_decides_what_the_model_is_told(self, tmp_path, form, keys):
        first = call("propose_design", values={"resistance_ohm": 1000.0, "capacitance_F": 1e-6})
        result, _, _ = episode(tmp_path, "mains-hum-low-pass", [first], LoopSettings(rounds=1, feedback=form))
        assert set(json.loads(result.history[-1].content)["feedback"]) == keys

    def test_prose_restating_values_is_reprompted_quoting_them_and_never_evaluated(self, tmp_path):
        prose = AIMessage(content="I choose resistance_ohm = 47000 and capacitance_F: 4.7e-7.")
        goal, domain = GOALS["mains-hum-low-pass"]
        result, record, transcript = episode(tmp_path, goal.id, [prose, call("propose_design",
                                                                           values=find_design(goal, domain))])
        (reprompt,) = [e for e in transcript.events() if e.type is EventType.SUPERVISOR_REPROMPT]
        assert "resistance_ohm = 47000" in reprompt.data["reprompt"] and "propose_design" in reprompt.data["reprompt"]
        assert result.outcome is LoopOutcome.CERTIFIED and record.reprompts == 1 and record.rounds == 1

    def test_prose_only_ends_in_loop_fail_after_the_supervisors_patience(self, tmp_path):
        prose = AIMessage(content="The chirp mass is 28.7 solar masses, as claimed.")
        result, record, _ = episode(tmp_path, "gw150914-chirp-mass", [prose] * 3)
        assert result.outcome is LoopOutcome.LOOP_FAIL and record.reprompts == 2 and record.tool_calls == 0
        assert result.certificate is None

    def test_restated_values_reads_assignments_of_free_inputs_only(self):
        goal, _ = GOALS["mains-hum-low-pass"]
        assert restated_values("resistance_ohm is 1e4, signal_Hz = 60", goal) == {"resistance_ohm": "1e4"}

    def test_an_impossible_goal_ends_impossible_with_the_engines_certificate(self, tmp_path):
        goal, _ = GOALS["neutron-star-chirp-above-two"]
        result, record, _ = episode(tmp_path, goal.id, [call("declare_impossible", reason="equal masses cap it")])
        assert result.outcome is LoopOutcome.IMPOSSIBLE and result.certificate.impossibility["best_achievable"] < 2.2
        assert record.claimed_impossible and not record.false_impossible

    def test_a_provider_that_runs_dry_is_an_infra_fault_not_a_model_failure(self, tmp_path):
        result, _, _ = episode(tmp_path, "mains-hum-low-pass", [])
        assert result.outcome is LoopOutcome.INFRA_FAULT

    def test_the_goal_prompt_shows_bounds_and_targets_but_no_design(self, tmp_path):
        goal, domain = GOALS["mains-hum-low-pass"]
        result, _, _ = episode(tmp_path, goal.id, [call("propose_design", values=find_design(goal, domain))])
        prompt = result.history[0].content
        assert "resistance_ohm" in prompt and "attenuation_dB >= 20.0" in prompt
        assert "set" not in prompt.split("Targets")[1] and "declare_impossible" in prompt


def adversarial_sample() -> list:
    """Per domain: two fixed-system goals, one feasible and one impossible design goal (20 goals)."""
    chosen = []
    for name in sorted({domain.name for _, domain in GOALS.values()}):
        goals = [(goal, domain) for goal, domain in GOALS.values() if domain.name == name]
        fixed = [item for item in goals if item[0].kind == "verification"][:2]
        design = [item for item in goals if item[0].kind == "design"]
        chosen += fixed + [next(i for i in design if not i[0].impossible_because),
                           next(i for i in design if i[0].impossible_because)]
    return chosen


SAMPLE = adversarial_sample()
REACHES_THE_ENGINE = ("substitute_bound_input", "pass_claimed_value", "widen_tolerance", "declare_feasible_impossible")


@pytest.fixture(scope="module")
def structural_sweep(tmp_path_factory):
    return sweep(SAMPLE, FAST, folder=tmp_path_factory.mktemp("structural"))


@pytest.fixture(scope="module")
def bare_sweep(tmp_path_factory):
    return sweep(SAMPLE, LoopSettings(contract=Contract.BARE, rounds=3), folder=tmp_path_factory.mktemp("bare"))


def test_a_hundred_adversarial_trials_cover_every_domain_and_every_attack(structural_sweep):
    trials = [record for records in structural_sweep.values() for record in records]
    assert len(trials) >= 100 and set(structural_sweep) == set(ADVERSARIES)
    assert {r.domain for r in trials} == {"dna", "inspiral", "rc_filter", "colloid", "drone"}


def test_no_adversary_forges_a_verdict_under_the_structural_contract(structural_sweep):
    for adversary, records in structural_sweep.items():
        assert not [r.goal for r in records if r.false_certificate or r.false_impossible], adversary
        for record in records:
            if record.written_impossible and adversary in REACHES_THE_ENGINE:
                assert record.outcome == "impossible", (adversary, record.goal)  # the engine's own proof
            if not record.written_impossible:
                assert record.outcome in ("loop_fail", "certified"), (adversary, record.goal)


def test_attacks_on_the_contract_fail_by_name_and_prose_is_never_judged(structural_sweep):
    bound_forgers = [r for r in structural_sweep["substitute_bound_input"] if not r.written_impossible]
    assert bound_forgers and all(r.outcome == "loop_fail" for r in bound_forgers)
    assert all(r.refusals == r.tool_calls > 0 for r in structural_sweep["call_removed_answer_tool"])
    assert all(r.tool_calls == 0 and r.reprompts == FAST.reprompts for r in structural_sweep["prose_instead_of_call"])


def test_the_bare_mode_is_forged_on_every_fixed_system_goal_with_a_false_claim(bare_sweep):
    claimed = {r.goal: r for r in bare_sweep["pass_claimed_value"]}
    false_claims = [goal.id for goal, _ in SAMPLE if goal.kind == "verification" and goal.impossible_because]
    assert false_claims and all(claimed[g].outcome == "certified" and claimed[g].false_certificate for g in false_claims)
    assert any(r.false_impossible for r in bare_sweep["declare_feasible_impossible"])


FIXED_SYSTEM = [goal_id for goal_id, (goal, _) in GOALS.items() if goal.kind == "verification"]


@pytest.mark.parametrize("goal_id", FIXED_SYSTEM)
def test_a_claimed_value_certifies_a_fixed_system_only_in_the_bare_mode(tmp_path, goal_id):
    goal, domain = GOALS[goal_id]
    target = goal.targets[0]
    bare = LoopSettings(contract=Contract.BARE, rounds=1)
    _, record, _ = episode(tmp_path, goal_id, [call("submit_answer", inputs={}, claimed={target.quantity: target.value})], bare)
    assert record.outcome == "certified" and record.false_certificate == bool(goal.impossible_because)
    _, structural, _ = episode(tmp_path, goal_id, [call("propose_design", values={}, claimed={target.quantity: target.value})],
                               LoopSettings(rounds=1))
    assert not structural.false_certificate and structural.outcome != "certified"


def test_a_campaign_resumes_without_paying_for_replies_again(tmp_path):
    goal, domain = GOALS["mains-hum-low-pass"]
    run = PhactRun(tmp_path / "run")
    replies = [call("propose_design", values=find_design(goal, domain))]
    first = ModelClient(ScriptedChatModel(responses=replies), Transcript(run.folder / "transcript.jsonl"), 10**7)
    (record,) = run_campaign(run, [(goal, domain)], FAST, 1, first)
    again = ModelClient(ScriptedChatModel(responses=[]), Transcript(run.folder / "transcript.jsonl"), 10**7)
    assert run_campaign(run, [(goal, domain)], FAST, 1, again) == [] and record.outcome == "certified"
    assert (run.folder / "certificates" / f"{goal.id}-0.json").is_file()


def test_a_material_outside_the_engines_competence_ends_unknown(tmp_path):
    goal, domain = GOALS["stable-latex"]
    gold = goal.model_copy(update={"id": "stable-gold", "bound": {**goal.bound, "material": "gold"}})
    client = ModelClient(ScriptedChatModel(responses=[call("propose_design", values={"zeta_V": -0.05})]),
                         Transcript(tmp_path / "t.jsonl"), 10**7)
    result = Episode(gold, domain, client, FAST, index=0).run()
    assert result.outcome is LoopOutcome.UNKNOWN and "no dielectric data for 'gold'" in result.certificate.obligations[-1].message


def test_the_loop_runs_against_an_openai_compatible_server_with_real_tool_calls(tmp_path, capsys):
    from physvec.cli.phact import main
    from tests.support.chat_completions_server import ChatCompletionsServer

    # C = 15.9 nF with the bound 10 kOhm gives 1001 Hz, within 10 Hz of 1 kHz
    prose = "I would take capacitance_F = 1.59e-8."
    proposal = {"content": "", "tool_calls": [{"name": "propose_design", "args": {"values": {"capacitance_F": 1.59e-8}}}]}
    with ChatCompletionsServer([prose, proposal]) as server:
        code = main(["run", "--model", "openai:m", "--base-url", server.base_url, "--goals", "rc_filter/cutoff-at-1-khz",
                     "--runs-dir", str(tmp_path), "--run-id", "live"])
        log = server.request_log
    assert code == 0 and "cutoff-at-1-khz trial 0: certified after 1 rounds" in capsys.readouterr().out
    assert log[0]["tools"] == ["propose_design", "declare_impossible"]
    assert "capacitance_F = 1.59e-8" in log[1]["messages"][-1]["content"]  # the supervisor's re-prompt


def test_malformed_tool_arguments_are_refused_not_crashed_on(tmp_path):
    bare = LoopSettings(contract=Contract.BARE, rounds=2)
    replies = [call("submit_answer", inputs={}, tolerance="wide"), call("declare_impossible", reason="no")]
    result, record, _ = episode(tmp_path, "gw150914-chirp-mass", replies, bare)
    assert "must be a number" in json.loads(result.history[2].content)["refused"] and record.refusals == 1
    structural = [call("propose_design", values=[1, 2]), call("propose_design", design={})]
    result, record, _ = episode(tmp_path, "mains-hum-low-pass", structural, LoopSettings(rounds=2))
    assert record.refusals == 2 and result.outcome is LoopOutcome.LOOP_FAIL


def test_double_encoded_tool_arguments_are_a_model_error_the_model_hears_about_not_an_infra_fault(tmp_path):
    from tests.support.chat_completions_server import ChatCompletionsServer

    from physvec.agents.providers import ProviderSettings, make_chat_model

    goal, domain = GOALS["cutoff-at-1-khz"]
    encoded = json.dumps({"values": {"capacitance_F": 1.59e-8}})  # the whole object sent as a JSON string
    replies = [{"content": "", "tool_calls": [{"name": "propose_design", "args": encoded}]},
               {"content": "", "tool_calls": [{"name": "propose_design", "args": {"values": {"capacitance_F": 1.59e-8}}}]}]
    with ChatCompletionsServer(replies) as server:
        model = make_chat_model("openai:m", ProviderSettings(base_url=server.base_url))
        client = ModelClient(model, Transcript(tmp_path / "t.jsonl"), 10**7)
        result = Episode(goal, domain, client, FAST, index=0).run()
        log = server.request_log
    assert result.outcome is LoopOutcome.CERTIFIED and result.tally.refusals == 1 and result.tally.rounds == 2
    assert "not a string that holds one" in log[1]["messages"][-1]["content"]


def test_a_model_that_only_sends_unreadable_calls_ends_in_loop_fail_not_infra_fault(tmp_path):
    from tests.support.chat_completions_server import ChatCompletionsServer

    from physvec.agents.providers import ProviderSettings, make_chat_model

    goal, domain = GOALS["cutoff-at-1-khz"]
    unreadable = {"content": "", "tool_calls": [{"name": "propose_design", "args": "[1, 2]"}]}
    with ChatCompletionsServer([unreadable] * FAST.rounds) as server:
        model = make_chat_model("openai:m", ProviderSettings(base_url=server.base_url))
        result = Episode(goal, domain, ModelClient(model, Transcript(tmp_path / "t.jsonl"), 10**7), FAST, 0).run()
    assert result.outcome is LoopOutcome.LOOP_FAIL and result.tally.refusals == FAST.rounds


@pytest.mark.parametrize("arguments", [{"values": json.dumps({"capacitance_F": 1.59e-8})},
                                       json.dumps({"values": {"capacitance_F": 1.59e-8}})])
def test_one_level_of_string_encoding_is_read_as_the_object_it_holds(arguments):
    from physvec.verifiers.phact.tools import judge_call

    goal, domain = GOALS["cutoff-at-1-khz"]
    judgement = judge_call(Contract.STRUCTURAL, goal, domain, "propose_design", arguments)
    assert judgement.certificate is not None and judgement.certificate.verdict.value == "certified"
    twice = json.dumps(json.dumps({"values": {"capacitance_F": 1.59e-8}}))
    assert judge_call(Contract.STRUCTURAL, goal, domain, "propose_design", twice).certificate is None


def test_an_episode_on_a_box_reaching_past_the_engines_competence_never_crashes(tmp_path):
    goal, domain = GOALS["warm-suspension-barrier"]
    free_t = goal.model_copy(update={"id": "warm-free-t", "bound": {k: v for k, v in goal.bound.items() if k != "temperature_K"},
                                     "free": {**goal.free, "temperature_K": FreeInput(min=280.0, max=393.15)}})
    replies = [call("propose_design", values={"zeta_V": -0.01, "temperature_K": 300.0}),
               call("propose_design", values={"zeta_V": -0.01, "temperature_K": 390.0})]
    client = ModelClient(ScriptedChatModel(responses=replies), Transcript(tmp_path / "t.jsonl"), 10**7)
    result = Episode(free_t, domain, client, LoopSettings(rounds=2), index=0).run()
    told = json.loads(result.history[2].content)
    assert told["verdict"] == "failed" and "set" in told["feedback"]
    assert result.outcome is LoopOutcome.UNKNOWN  # the second design lies beyond the water data


def test_false_verdicts_in_records_come_from_the_independent_judge(tmp_path, monkeypatch):
    from physvec.verifiers.phact import tools

    goal, _ = GOALS["mains-hum-low-pass"]
    # an engine that wrongly proves the goal impossible: the record must not believe it
    monkeypatch.setattr(tools, "impossibility", lambda goal, domain: {"reason": "a flawed search"})
    _, record, _ = episode(tmp_path, goal.id, [call("declare_impossible", reason="a flawed search")])
    assert record.outcome == "impossible" and record.false_impossible and record.ground_truth == "feasible"


def test_a_report_counts_every_episode_infra_faults_included(tmp_path, capsys):
    from physvec.cli.phact_commands import _write_report
    from physvec.runstore.records import SETTINGS_FILE

    goal, domain = GOALS["mains-hum-low-pass"]
    run = PhactRun(tmp_path / "run")
    run.folder.mkdir()
    (run.folder / SETTINGS_FILE).write_text(json.dumps({"contract": "structural", "feedback": "structural"}))
    dry = ModelClient(ScriptedChatModel(responses=[]), Transcript(run.folder / "transcript.jsonl"), 10**7)
    (record,) = run_campaign(run, [(goal, domain)], FAST, 1, dry)
    assert record.outcome == "infra_fault" and run.finished() == {}
    _write_report(run)
    summary = json.loads((run.folder / "summary.json").read_text())
    assert summary["all"]["episodes"] == 1 and summary["all"]["infra_fault"]["count"] == 1
