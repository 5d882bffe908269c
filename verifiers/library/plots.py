"""The library's figure: every list-valued result against its index, scalar results in the title."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt


def plot_results(results: dict[str, Any], path: str) -> None:
    figure, axis = plt.subplots()
    curves = {name: value for name, value in results.items() if isinstance(value, list)}
    for name, values in curves.items():
        axis.plot(range(len(values)), values, "o-", label=name)
    scalars = {name: value for name, value in results.items() if isinstance(value, (int, float))}
    axis.set_title(", ".join(f"{name} = {value:.10g}" for name, value in scalars.items()))
    axis.set_xlabel("index")
    if curves:
        axis.legend()
    figure.savefig(path)
    plt.close(figure)
