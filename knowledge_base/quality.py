"""Retrieval quality: hit@k on the API question set (knowledge_base/questions.json)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from knowledge_base.sources import BACKEND_PACKAGES
from knowledge_base.store import KnowledgeBase, Mode

QUESTIONS = Path(__file__).with_name("questions.json")


@dataclass(frozen=True)
class Question:
    backend: str
    question: str
    answers: tuple[str, ...]


@dataclass(frozen=True)
class Answered:
    question: Question
    hit: bool
    found: tuple[str, ...]


def load_questions(path: Path = QUESTIONS) -> list[Question]:
    return [Question(q["backend"], q["question"], tuple(q["answers"])) for q in json.loads(path.read_text())["questions"]]


def ask(kb: KnowledgeBase, questions: list[Question], k: int = 5, mode: Mode = "hybrid",
        per_backend: bool = True) -> list[Answered]:
    """Each question's top-k qualified names, and whether one of them contains a known answer.

    ``per_backend`` restricts each query to its backend's packages, as the retrieve tool does for a
    task; without it, every package competes.
    """
    answered = []
    for question in questions:
        packages = [*BACKEND_PACKAGES[question.backend], "physvec"] if per_backend else None
        found = tuple(snippet.qualname for snippet in kb.query(question.question, k, mode, packages))
        answered.append(Answered(question, any(a in name for name in found for a in question.answers), found))
    return answered


def hit_rate(answered: list[Answered]) -> float:
    return sum(a.hit for a in answered) / len(answered) if answered else 0.0
