"""Retrieval quality: hit@k on the API question set (knowledge_base/questions.json)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from physvec.knowledge_base.sources import searched_packages
from physvec.knowledge_base.store import KnowledgeBase, Mode

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


Ranker = Callable[[Question], Sequence[str]]
"""A question -> the qualified names found for it, best first."""


def load_questions(path: Path = QUESTIONS) -> list[Question]:
    return [Question(q["backend"], q["question"], tuple(q["answers"])) for q in json.loads(path.read_text())["questions"]]


def store_ranker(kb: KnowledgeBase, k: int = 5, mode: Mode | None = None, per_backend: bool = True) -> Ranker:
    """The store's top-k qualified names.  ``per_backend`` restricts each query to the packages of its
    backend, as the retrieve tool does for a task; without it, every package competes."""

    def rank(question: Question) -> list[str]:
        packages = searched_packages(question.backend) if per_backend else None
        return [snippet.qualname for snippet in kb.query(question.question, k, mode, packages)]

    return rank


def ask(questions: Sequence[Question], rank: Ranker) -> list[Answered]:
    """Each question's names, and whether one of them contains a known answer."""
    answered = []
    for question in questions:
        found = tuple(rank(question))
        answered.append(Answered(question, any(a in name for name in found for a in question.answers), found))
    return answered


def hit_rate(answered: Sequence[Answered]) -> float:
    return sum(a.hit for a in answered) / len(answered) if answered else 0.0
