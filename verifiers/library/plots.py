"""The library's figure: every list of numbers among the results against its index, numbers in the title.

Other results (a list of converged calculations, a state) are not drawn."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt


def plot_results(results: dict[str, Any], path: str) -> None:
    figure, axis = plt.subplots()
    curves = {name: value for name, value in results.items()
              if isinstance(value, list) and all(isinstance(v, (int, float)) for v in value)}
    for name, values in curves.items():
        axis.plot(range(len(values)), values, "o-", label=name)
    scalars = {name: value for name, value in results.items() if isinstance(value, (int, float))}
    axis.set_title(", ".join(f"{name} = {value:.10g}" for name, value in scalars.items()))
    axis.set_xlabel("index")
    if curves:
        axis.legend()
    figure.savefig(path)
    plt.close(figure)
