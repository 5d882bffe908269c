"""The paired before/after analysis of oracle-guided revision (CGSV) and its controls.

Each item is a pair: its first answer (before) and the answer a condition ended with (after).  An answer
is consistent when it has a checkable claim and no violation, accurate when it has a claim with an accuracy
criterion and every such claim meets it.  Before and after are compared per condition with the exact
McNemar test, and the conditions' p-values are Holm-adjusted within each outcome; the statistics are
DualityCert's (verifiers/dualitycert/analysis.py).  PCR and accuracy are printed side by side, so that a
gain that is a retreat to a value the necessary condition accepts (PCR up, accuracy flat) is visible.
"""

from __future__ import annotations

from collections.abc import Sequence

from physvec.verifiers.matpcr.pcr import Tally

CONDITIONS = ("cgsv", "self_refine", "reprompt", "best_of_3")


def consistent(t: Tally) -> bool:
    return t.checkable > 0 and t.consistent == t.checkable


def accurate(t: Tally) -> bool:
    return t.accuracy_checked > 0 and t.accurate == t.accuracy_checked


def _rate(hits: int, total: int) -> float | None:
    return hits / total if total else None


def paired_rows(pairs: dict[str, Sequence[tuple[Tally, Tally]]]) -> list[dict[str, object]]:
    """One row per condition: claim-level PCR and accuracy before and after, item-level McNemar (Holm)."""
    import pandas as pd

    from physvec.verifiers.dualitycert.analysis import exact_mcnemar, holm

    rows: list[dict[str, object]] = []
    for condition, items in pairs.items():
        row: dict[str, object] = {"condition": condition, "items": len(items)}
        for when, index in (("before", 0), ("after", 1)):
            tallies = [pair[index] for pair in items]
            row[f"pcr_{when}"] = _rate(sum(t.consistent for t in tallies), sum(t.checkable for t in tallies))
            row[f"accuracy_{when}"] = _rate(sum(t.accurate for t in tallies), sum(t.accuracy_checked for t in tallies))
        for outcome, judge in (("consistent", consistent), ("accurate", accurate)):
            frame = pd.DataFrame([{"fixture": i, "trial": 0, "policy": policy, "success": judge(pair[k])}
                                  for i, pair in enumerate(items) for policy, k in (("before", 0), ("after", 1))])
            test = exact_mcnemar(frame, "after", "before") if items else {"pairs": 0, "only_policy": 0,
                                                                          "only_baseline": 0, "p": 1.0}
            row[f"mcnemar_{outcome}"] = {"pairs": test["pairs"], "gained": test["only_policy"],
                                         "lost": test["only_baseline"], "p": test["p"]}
        rows.append(row)
    for outcome in ("consistent", "accurate"):
        adjusted = holm([row[f"mcnemar_{outcome}"]["p"] for row in rows])  # type: ignore[index]
        for row, p in zip(rows, adjusted):
            row[f"mcnemar_{outcome}"]["p_holm"] = p  # type: ignore[index]
    return rows


def markdown(rows: Sequence[dict[str, object]], title: str) -> str:
    def number(value: object) -> str:
        return "n/a" if value is None else f"{value:.3f}"

    def test(result: dict) -> str:
        return f"+{result['gained']} / -{result['lost']} of {result['pairs']}, p = {result['p']:.3g} (Holm {result['p_holm']:.3g})"
    lines = [f"# {title}", "", "| condition | items | PCR before | PCR after | accuracy before | accuracy after | "
             "consistent items (McNemar) | accurate items (McNemar) |", "|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r['condition']} | {r['items']} | {number(r['pcr_before'])} | {number(r['pcr_after'])} | "
              f"{number(r['accuracy_before'])} | {number(r['accuracy_after'])} | {test(r['mcnemar_consistent'])} | "
              f"{test(r['mcnemar_accurate'])} |" for r in rows]
    return "\n".join(lines) + "\n"
