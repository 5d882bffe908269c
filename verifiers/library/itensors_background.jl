# ITensors background: the spin-1/2 Heisenberg chain by DMRG, the Julia counterpart of
# tenpy_background.py's heisenberg_chain.  H = J sum_j S_j . S_{j+1} on an open chain (spin operators,
# not Pauli matrices).  Element functions take their inputs by argument name from the namespace.
#
# Included by the Julia unit-test programs after harness.jl; analysed as text in CI (no Julia there).

module PhysvecBackground

using ITensors, ITensorMPS
using ..PhysvecHarness: Pipeline, Step

site_spinhalf(L::Int) = siteinds("S=1/2", L; conserve_qns=true)

function hamiltonian_heisenberg(sites, J::Float64)
    terms = OpSum()
    for j in 1:length(sites)-1
        terms += J / 2, "S+", j, "S-", j + 1
        terms += J / 2, "S-", j, "S+", j + 1
        terms += J, "Sz", j, "Sz", j + 1
    end
    return MPO(terms, sites)
end

initialstate_neel(sites) = MPS(sites, [isodd(n) ? "Up" : "Dn" for n in 1:length(sites)])

function effector_dmrg(hamiltonian, initial, nsweeps::Int, maxdim::Int, cutoff::Float64)
    _, state = dmrg(hamiltonian, initial; nsweeps=nsweeps, maxdim=maxdim, cutoff=cutoff, outputlevel=0)
    return state
end

observable_energy(state, hamiltonian) = real(inner(state', hamiltonian, state))

const HEISENBERG_CHAIN = Pipeline(
    "heisenberg_chain",
    Dict{String,Any}("L" => 8, "J" => 1.0, "nsweeps" => 5, "maxdim" => 32, "cutoff" => 1e-10),
    [Step("site", site_spinhalf, "sites"),
     Step("hamiltonian", hamiltonian_heisenberg, "hamiltonian"),
     Step("initialstate", initialstate_neel, "initial"),
     Step("effector", effector_dmrg, "state"),
     Step("observable", observable_energy, "energy")])

end
