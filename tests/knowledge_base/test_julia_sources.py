"""ITensors documentation comes from the Julia depot when Julia packages are there: the docstrings of
the package sources and its manual pages, read as text (no Julia needed to build the store)."""

from __future__ import annotations

from pathlib import Path

from physvec.knowledge_base.sources import backend_files, chunks_of, searched_packages
from physvec.knowledge_base.store import KnowledgeBase

# A depot laid out as Julia's package manager lays it out; the text is ours, in ITensors' docstring style.
SOURCE = '''
"""
    dmrg(H::MPO, psi0::MPS; nsweeps, maxdim, cutoff)

Find the ground state of the MPO H by the density-matrix renormalisation group, starting from psi0.
Returns the energy and the optimised MPS.
"""
function dmrg(H::MPO, psi0::MPS; kwargs...)
    return _dmrg(H, psi0; kwargs...)
end

function _dmrg(H, psi0; kwargs...)
    return nothing
end

"""
    siteinds(type::String, N::Int; conserve_qns=false)

Make N site indices of the given site type, such as "S=1/2" or "Electron".
"""
siteinds(type::String, N::Int; kwargs...) = nothing
'''


def _depot(root: Path) -> Path:
    package = root / "packages" / "ITensorMPS" / "Xy12a"
    (package / "src").mkdir(parents=True)
    (package / "docs" / "src").mkdir(parents=True)
    (package / "Project.toml").write_text('name = "ITensorMPS"\nversion = "0.3.7"\n')
    (package / "src" / "dmrg.jl").write_text(SOURCE)
    (package / "docs" / "src" / "tutorial.md").write_text("# DMRG tutorial\n\nBuild an OpSum, convert it to an MPO.\n")
    return root


def test_julia_docstrings_become_chunks_headed_by_their_signature(tmp_path, monkeypatch):
    monkeypatch.setenv("JULIA_DEPOT_PATH", str(_depot(tmp_path / "depot")))
    files = {file.path.name: file for file in backend_files("itensors")}
    assert set(files) == {"dmrg.jl", "tutorial.md"}
    chunks = {chunk.qualname: chunk for chunk in chunks_of(files["dmrg.jl"])}
    assert set(chunks) == {"ITensorMPS.dmrg", "ITensorMPS.siteinds"}, "undocumented helpers are not chunks"
    assert chunks["ITensorMPS.dmrg"].text.startswith("[ITensorMPS 0.3.7] dmrg(H::MPO, psi0::MPS; kwargs...)")
    assert "density-matrix renormalisation group" in chunks["ITensorMPS.dmrg"].text
    assert "ITensorMPS" in searched_packages("itensors")


def test_an_itensors_store_answers_from_the_depot(tmp_path, monkeypatch):
    monkeypatch.setenv("JULIA_DEPOT_PATH", str(_depot(tmp_path / "depot")))
    store = KnowledgeBase(tmp_path / "kb")
    store.build(backend_files("itensors"))
    (best,) = store.query("which function runs DMRG on an MPO", 1, packages=searched_packages("itensors"))
    assert best.qualname == "ITensorMPS.dmrg" and best.version == "0.3.7"


def test_without_a_julia_depot_there_is_nothing_to_harvest(tmp_path, monkeypatch):
    monkeypatch.setenv("JULIA_DEPOT_PATH", str(tmp_path / "empty"))
    assert backend_files("itensors") == []
