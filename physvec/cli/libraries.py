"""`physvec rubrics list` and `physvec assertions list`: the templates a task can use, with their parameters."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from physvec.taskfiles.library import library_files
from physvec.taskfiles.loading import InputFileError, load_library


def _relative(path: Path) -> str:
    """``rubrics/dmrg.json``: the form a task writes in ``use``."""
    return f"{path.parent.name}/{path.name}"


def list_templates(name: str, console: Console) -> int:
    """Print every template of the ``rubrics`` or ``assertions`` library; exit 2 if a library file is invalid."""
    table = Table(show_lines=True)
    table.add_column("use", no_wrap=True)
    table.add_column("what it is")
    table.add_column("parameters (* required)")
    broken = 0
    for path in library_files(name):
        try:
            library = load_library(path)
        except InputFileError as error:
            broken += 1
            for problem in error.problems:
                console.print(f"[red]{problem}[/red]", soft_wrap=True)
            continue
        for template_name, template in library.templates.items():
            parameters = ", ".join(f"{parameter}{'*' if spec.required else ''}: {spec.type}"
                                   for parameter, spec in template.parameters.items())
            table.add_row(f"{_relative(path)}#{template_name}", template.description, parameters)
    console.print(table)
    console.print(f'A task writes {{"use": "{name}/FILE.json#TEMPLATE", "with": {{...}}}} where a '
                  f'{"rubric node" if name == "rubrics" else "assertion"} goes.', soft_wrap=True)
    return 2 if broken else 0
