"""The documentation store builds offline from source files, answers queries, and rebuilds incrementally."""

from __future__ import annotations

from pathlib import Path

import pytest

from physvec.knowledge_base.terms import embed, words
from physvec.knowledge_base.sources import SourceFile, chunks_of, package_files
from physvec.knowledge_base.store import KnowledgeBase

PACKAGE = '''"""Toy lattice models for the knowledge-base tests."""


def run_dmrg(model, chi_max: int) -> float:
    """Run finite two-site DMRG on a matrix product state and return the ground-state energy."""


class FermiHubbardChain:
    """Spin-1/2 fermions hopping on a chain with on-site interaction U."""

    def __init__(self, L: int, t: float, U: float) -> None:
        pass

    def expectation_value(self, operator: str) -> list:
        """Expectation value of a local operator on every site."""


def _private_helper() -> None:
    """Never harvested."""
'''


def toy_package(root: Path, extra: str = "") -> list[SourceFile]:
    (root / "toylattice").mkdir(parents=True, exist_ok=True)
    (root / "toylattice" / "__init__.py").write_text(PACKAGE + extra)
    (root / "toylattice" / "README.md").write_text("Toy lattice\n\nA package that ships its own documentation.")
    return [SourceFile("toylattice", "0.1", root / "toylattice", path)
            for path in sorted((root / "toylattice").iterdir())]


def test_identifiers_are_split_and_kept_whole():
    assert words("StatevectorEstimator.run_dmrg") == ["statevectorestimator", "statevector", "estimator", "run_dmrg",
                                                      "run", "dmrg"]
    assert float(embed("finite DMRG") @ embed("run finite two-site DMRG")) > float(embed("finite DMRG") @ embed("plot"))


def test_chunks_carry_their_source_and_skip_private_names(tmp_path):
    (module, readme) = sorted(toy_package(tmp_path), key=lambda f: f.path.suffix != ".py")
    chunks = {chunk.qualname: chunk for chunk in chunks_of(module)}
    assert set(chunks) == {"toylattice", "toylattice.run_dmrg", "toylattice.FermiHubbardChain",
                           "toylattice.FermiHubbardChain.expectation_value"}
    assert chunks["toylattice.FermiHubbardChain"].text.startswith(
        "[toylattice 0.1] class toylattice.FermiHubbardChain(L: int, t: float, U: float) -> None")
    assert all(len(chunk.text) <= 750 and chunk.source == "toylattice:__init__.py" for chunk in chunks.values())
    assert chunks_of(readme)[0].kind == "document"


@pytest.mark.parametrize("mode", ["hybrid", "dense", "lexical"])
def test_the_store_builds_offline_and_answers_queries(tmp_path, mode):
    kb = KnowledgeBase(tmp_path / "store")
    report = kb.build(toy_package(tmp_path / "src"))
    assert report.embedded_files == 2 and report.total_chunks == 5
    (best, *_) = kb.query("which function runs finite DMRG", k=3, mode=mode)
    assert best.qualname == "toylattice.run_dmrg" and best.package == "toylattice" and best.version == "0.1"
    assert kb.query("Hubbard chain", k=1, mode=mode, packages=["other"]) == []


def test_rebuilding_embeds_only_what_changed(tmp_path):
    kb = KnowledgeBase(tmp_path / "store")
    kb.build(toy_package(tmp_path / "src"))
    unchanged = kb.build(toy_package(tmp_path / "src"))
    assert (unchanged.embedded_files, unchanged.embedded_chunks, unchanged.unchanged_files) == (0, 0, 2)
    added = '\n\ndef tebd_evolve(psi, dt: float) -> None:\n    """Real-time evolution with TEBD."""\n'
    changed = kb.build(toy_package(tmp_path / "src", added))
    assert (changed.embedded_files, changed.unchanged_files, changed.total_chunks) == (1, 1, 6)
    assert kb.query("time evolution TEBD", k=1)[0].qualname == "toylattice.tebd_evolve"
    (tmp_path / "src" / "toylattice" / "README.md").unlink()
    pruned = KnowledgeBase(tmp_path / "store").build(
        [f for f in toy_package(tmp_path / "src", added) if f.path.suffix == ".py"])
    assert pruned.removed_files == 1 and pruned.total_chunks == 5


def test_installed_packages_are_harvested_from_source_without_importing_them():
    files = package_files("tenpy")
    assert files and all(f.package == "tenpy" and f.version != "unknown" for f in files)
    dmrg = next(f for f in files if f.key == "tenpy:algorithms/dmrg.py")
    assert "tenpy.algorithms.dmrg.run" in {chunk.qualname for chunk in chunks_of(dmrg)}
    assert not any("/tests/" in f.key for f in files)


def test_a_store_keeps_the_embedding_it_was_built_with(tmp_path):
    kb = KnowledgeBase(tmp_path / "store")
    assert kb.embedding == "hash" and kb.default_mode == "lexical"
    assert KnowledgeBase(tmp_path / "store").embedding == "hash"
    with pytest.raises(ValueError, match="built with the hash embedding"):
        KnowledgeBase(tmp_path / "store", "minilm")
    with pytest.raises(ValueError, match="unknown embedding"):
        KnowledgeBase(tmp_path / "other", "word2vec")
