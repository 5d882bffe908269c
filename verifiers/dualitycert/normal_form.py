"""A theory's superpotential as cyclic terms, and its normal form: massive fields integrated out.

Two descriptions of one theory can differ by fields that only carry a mass: W += m Y Yt (a vector-like
pair), W += m S T or m S^2 (singlets).  Below the mass scale such fields are gone, and the copy guard and
the ground-truth comparison must see the theory without them.  Integrating out is exact here: the
F-terms of a massive pair are linear in it, so W becomes W0 - Tr(Q P) / m, where P and Q are what the
pair couples to.  When that is not so (a massive field coupled to itself, or two single traces whose
product would be a double-trace W term the schema cannot write), NotExact says why, and the caller
reports the check it could not do.

SU(N) adjoints are traceless: a W term whose walk is one adjoint (tr X, times singlets) is identically
zero and is dropped.  The F-terms of a traceless adjoint lose a double-trace piece, tr Q tr P / N, that a
single-trace W cannot hold; like the chiral ring, the normal form keeps the single-trace part.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from itertools import combinations

from physvec.verifiers.dualitycert.theory import Term, Theory

Cyclic = tuple[tuple[str, ...], tuple[str, ...]]
"""A W term's factors: (arrows in their least rotation, sorted singlets)."""
Terms = dict[Cyclic, Fraction]

MAX_TERMS_AFTER = 20_000
"""Integrating out multiplies couplings; beyond this many terms the normal form gives up."""
MAX_TRACE_POSITIONS = 12
"""Expanding a term with k adjoint mesons into traceless part and trace writes 2^k terms."""


class NotExact(ValueError):
    """Massive fields that cannot be integrated out exactly (or too much work); the message says which."""


def least_rotation(walk: tuple[str, ...]) -> tuple[str, ...]:
    """The least rotation of a cyclic word: one spelling per trace."""
    return min((walk[i:] + walk[:i] for i in range(len(walk))), default=walk)


def cyclic(theory: Theory, factors: tuple[str, ...]) -> Cyclic:
    """A term's factors split into its closed walk (least rotation) and its sorted singlets."""
    singlets = {s.label for s in theory.singlets}
    return (least_rotation(tuple(f for f in factors if f not in singlets)),
            tuple(sorted(f for f in factors if f in singlets)))


def adjoint_labels(theory: Theory) -> set[str]:
    return {a.label for a in theory.arrows if a.is_adjoint}


def vanishes(key: Cyclic, adjoints: set[str]) -> bool:
    """tr X of a traceless SU(N) adjoint X (times singlets) is identically zero."""
    return len(key[0]) == 1 and key[0][0] in adjoints


def clean(terms: Terms, adjoints: set[str]) -> Terms:
    """Without zero coefficients, constants and identically vanishing terms."""
    return {key: c for key, c in terms.items() if c != 0 and (key[0] or key[1]) and not vanishes(key, adjoints)}


def superpotential_terms(theory: Theory) -> Terms:
    """W as cyclic terms, equal terms summed (in first-seen order)."""
    terms: Terms = defaultdict(Fraction)
    for term in theory.superpotential:
        terms[cyclic(theory, term.factors)] += term.coefficient
    return clean(terms, adjoint_labels(theory))


def derivative(terms: Terms, label: str) -> list[tuple[Fraction, tuple[str, ...], tuple[str, ...]]]:
    """dW/d label: (coefficient, walk, singlets) per occurrence.

    For an arrow the walk is open (after the field round to it); for a singlet it is the term's closed walk.
    """
    return derivatives(terms).get(label, [])


def derivatives(terms: Terms) -> dict[str, list[tuple[Fraction, tuple[str, ...], tuple[str, ...]]]]:
    """dW/d field for every field W contains, in one pass over the terms (each as ``derivative`` gives it)."""
    parts: dict[str, list[tuple[Fraction, tuple[str, ...], tuple[str, ...]]]] = defaultdict(list)
    for (walk, singlets), coefficient in terms.items():
        for i, f in enumerate(walk):
            parts[f].append((coefficient, walk[i + 1:] + walk[:i], singlets))
        for i, s in enumerate(singlets):
            parts[s].append((coefficient, walk, singlets[:i] + singlets[i + 1:]))
    return parts


def mass_term(terms: Terms) -> tuple[Cyclic, Fraction] | None:
    """The first quadratic term: two arrows round a closed walk, or two singlets (S T or S^2)."""
    return next(((key, c) for key, c in terms.items()
                 if (len(key[0]), len(key[1])) in ((2, 0), (0, 2))), None)


def integrate_out(terms: Terms, mass: Cyclic, coefficient: Fraction) -> Terms:
    """W with the pair of a mass term c A B replaced by its F-term solution: W0 - Tr(Q P) / c.

    P = dW'/dA and Q = dW'/dB, with W' = W - c A B; for c A A the result is W0 - Tr(P P) / (4 c).
    Exact only when P and Q contain neither massive field, and (for singlets) when the product of P and
    Q is still a single trace.
    """
    first, second = mass[0] or mass[1]
    rest = {key: c for key, c in terms.items() if key != mass}
    p, q = derivative(rest, first), derivative(rest, second)
    for _, walk, singlets in (*p, *q):
        if {first, second} & {*walk, *singlets}:
            raise NotExact(f"the mass term {first} {second} cannot be integrated out exactly: "
                           f"its F-terms are not linear in the massive fields")
    kept: Terms = defaultdict(Fraction)
    for key, c in rest.items():
        if not {first, second} & {*key[0], *key[1]}:
            kept[key] += c
    scale = -1 / (4 * coefficient) if first == second else -1 / coefficient
    for c_left, walk_left, singlets_left in (p if first == second else q):
        for c_right, walk_right, singlets_right in p:
            if mass[0]:
                walk = walk_left + walk_right
                if not walk:
                    raise NotExact(f"integrating out {first} {second} leaves a trace of the identity")
            elif walk_left and walk_right:
                raise NotExact(f"integrating out {first} {second} gives the double-trace term "
                               f"tr({' '.join(walk_left)}) tr({' '.join(walk_right)}), which W cannot hold")
            else:
                walk = walk_left or walk_right
            kept[(least_rotation(walk), tuple(sorted(singlets_left + singlets_right)))] += scale * c_left * c_right
    if len(kept) > MAX_TERMS_AFTER:
        raise NotExact(f"integrating out {first} {second} gives more than {MAX_TERMS_AFTER} W terms")
    return dict(kept)


def integrate_all(terms: Terms, adjoints: set[str]) -> tuple[Terms, set[str]]:
    """Every mass term integrated out, one after another; returns W and the fields that left."""
    massive: set[str] = set()
    terms = clean(terms, adjoints)
    while (mass := mass_term(terms)) is not None:
        massive.update(mass[0][0] or mass[0][1])
        terms = clean(integrate_out(terms, *mass), adjoints)
    return terms, massive


def as_terms(terms: Terms) -> tuple[Term, ...]:
    return tuple(Term(coefficient=c, factors=walk + singlets) for (walk, singlets), c in terms.items())


def normal_form(theory: Theory) -> Theory:
    """``theory`` with every massive field integrated out and identically vanishing terms dropped.

    Raises:
        NotExact: a mass term whose F-terms cannot be solved exactly in the schema.
    """
    terms, massive = integrate_all(superpotential_terms(theory), adjoint_labels(theory))
    return theory.model_copy(update={
        "arrows": tuple(a for a in theory.arrows if a.label not in massive),
        "singlets": tuple(s for s in theory.singlets if s.label not in massive),
        "superpotential": as_terms(terms)})


def expand_traces(terms: Terms, traces: dict[str, tuple[str, int]]) -> Terms:
    """Each U(N) matrix M = M_adj + (S/N) 1 written as its SU(N) adjoint and its trace singlet S.

    ``traces`` maps an adjoint label to (trace singlet, N).  A term with M at k places becomes 2^k terms:
    at each place M stays or is replaced by S/N (dropping M from the walk, which stays closed because M
    is a loop); a walk left empty is tr(1) = N.  Expanded terms follow their source term, in order.
    """
    expanded: Terms = defaultdict(Fraction)
    for (walk, singlets), coefficient in terms.items():
        places = [i for i, label in enumerate(walk) if label in traces]
        if len(places) > MAX_TRACE_POSITIONS:
            raise NotExact(f"a W term holds {len(places)} adjoint mesons (more than {MAX_TRACE_POSITIONS})")
        for size in range(len(places) + 1):
            for chosen in combinations(places, size):
                c, added = coefficient, []
                for i in chosen:
                    singlet, rank = traces[walk[i]]
                    c, added = c / rank, [*added, singlet]
                rest = tuple(label for i, label in enumerate(walk) if i not in chosen)
                if not rest:
                    c *= traces[walk[0]][1]
                expanded[(least_rotation(rest), tuple(sorted(singlets + tuple(added))))] += c
    return dict(expanded)
