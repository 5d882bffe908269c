"""An episode's own model client, made wherever the episode runs.

A campaign that runs its episodes one at a time in one process keeps one model client (one transcript, one
token budget).  Episodes spread over workers share nothing: each makes a client of its own from the model
spec, with its own transcript under the run (a rerun episode is served the replies it already has), and the
run's token budget to itself, since a budget shared across machines would need a counter they all reach.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from physvec.agents.model_client import ModelClient
from physvec.agents.providers import ProviderSettings, make_chat_model
from physvec.runstore.transcript import Transcript

TRANSCRIPTS = "transcripts"
"""the run's folder of per-episode transcripts"""


@dataclass(frozen=True)
class EpisodeModel:
    """What any worker needs to ask the model on an episode's behalf (a scripted model is served from its
    first reply in every episode)."""

    spec: str
    provider: ProviderSettings
    token_budget: int

    def client(self, run_folder: Path, episode: str) -> ModelClient:
        """A client whose transcript is ``run_folder/transcripts/EPISODE.jsonl``."""
        transcript = run_folder / TRANSCRIPTS / f"{episode}.jsonl"
        transcript.parent.mkdir(parents=True, exist_ok=True)
        return ModelClient(make_chat_model(self.spec, self.provider), Transcript(transcript), self.token_budget)
