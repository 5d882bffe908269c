"""Every command and subcommand follows the conventions of docs/cli.md: its help ends with the exit codes,
it answers --version, and every entry point's help shows examples."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator

import pytest

from physvec.cli import main, matpcr, phact, qmp_bench
from physvec.cli.conventions import EXIT_CODES, version

ENTRY_POINTS: dict[str, Callable[[], argparse.ArgumentParser]] = {
    "reproduce": main._reproduce_parser, "physvec": main._physvec_parser, "qmp-bench": qmp_bench._parser,
    "phact": phact._parser, "matpcr": matpcr._parser}


def _walk(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                yield from _walk(child)


def _every_command() -> list[tuple[str, argparse.ArgumentParser]]:
    return [(parser.prog, parser) for build in ENTRY_POINTS.values() for parser in _walk(build())]


@pytest.mark.parametrize("name, parser", _every_command(), ids=lambda value: value if isinstance(value, str) else "")
def test_every_command_lists_the_exit_codes_and_answers_version(name, parser, capsys):
    assert EXIT_CODES in parser.format_help(), f"{name} --help does not list the exit codes"
    with pytest.raises(SystemExit) as exited:
        parser.parse_args(["--version"])
    assert exited.value.code == 0 and version() in capsys.readouterr().out


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_every_entry_point_shows_examples_of_itself(name):
    shown = ENTRY_POINTS[name]().format_help()
    examples = shown.split("examples:", 1)[-1].split(EXIT_CODES, 1)[0].split("\n")
    assert "examples:" in shown and any(line.strip().startswith(name) for line in examples)
