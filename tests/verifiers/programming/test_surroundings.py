"""The contract bans looking at the surroundings in the source: each plain way of doing it is a breach of the
function it is in, before anything runs; an honest script has none."""

from __future__ import annotations

import pytest

from physvec.verifiers.programming.contract import analyse_script
from physvec.verifiers.programming.surroundings import MODULE_LEVEL, looks_at_surroundings
from tests.support.scripted import FIXTURES

HEADER = "import os\nimport sys\nimport numpy as np\nPARAMS = {'L': 4}\n"
LOOKS = {
    "the environment": "os.environ.get('HOME')",
    "os.getenv from import": "__import__('os').getenv('HOME')",
    "the working folder": "os.getcwd()",
    "a listing": "os.listdir('.')",
    "the user's home": "os.path.expanduser('~')",
    "argv": "sys.argv[0]",
    "sys.path": "sys.path[0]",
    "sys.modules": "'physvec' in sys.modules",
    "a frame": "sys._getframe(1)",
    "an exception's traceback": "sys.exc_info()",
    "the script's file": "__file__",
    "its module name": "__name__",
    "a function's globals": "observable_e.__globals__",
    "a frame attribute": "(lambda: 0).__code__",
    "a generator's frame": "(i for i in ()).gi_frame",
    "globals()": "globals()['PARAMS']",
    "eval": "eval('1')",
    "a computed attribute": "getattr(np, 'lin' + 'alg')",
    "/proc": "open('/proc/1/cmdline').read()",
    "/sandbox": "len('/sandbox/work')",
    "a home path": "len('~/.bashrc')",
}


@pytest.mark.parametrize("look", list(LOOKS))
def test_a_look_inside_an_element_function_is_a_breach_of_that_function(look):
    source = HEADER + f"def observable_e(x: float) -> float:\n    _ = {LOOKS[look]}\n    return x\n"
    contract = analyse_script(source)
    breach = next(b for b in contract.breaches if b.name == "contract:surroundings:observable_e")
    assert breach.evidence["function"] == "observable_e" and "line 6" in breach.evidence["looks"][0]


@pytest.mark.parametrize("statement", [
    "import inspect", "import traceback", "import subprocess", "import ctypes", "import gc", "import socket",
    "import platform", "import physvec.verifiers", "from os import environ", "from sys import argv",
    "from importlib import import_module", "import os.path as p\nx = p.realpath('.')",
])
def test_an_import_made_for_looking_is_a_breach_of_module_level_code(statement):
    looks = looks_at_surroundings(__import__("ast").parse(statement))
    assert looks and looks[0].function == MODULE_LEVEL


@pytest.mark.parametrize("shared", [
    "def run_x(**params):\n    global SEEN\n    return {}\n",
    "def main():\n    run_x.called = True\n",
    "def observable_e(x: float, seen: list = []) -> float:\n    return x\n",
    "def observable_e(x: float) -> float:\n    def inner():\n        nonlocal x\n    return x\n",
    "STATE = {}\ndef main():\n    STATE['main'] = True\n",
    "SEEN = []\ndef main():\n    SEEN.append(1)\n",
])
def test_state_that_tells_a_function_who_called_it_is_a_breach(shared):
    source = HEADER + "def run_x(**params):\n    return {}\n" + shared
    assert any(b.name.startswith("contract:surroundings:") for b in analyse_script(source).breaches)


def test_the_main_guard_and_honest_scripts_are_no_look():
    honest = (HEADER + "import json\nimport matplotlib.pyplot as plt\n"
              "def observable_e(x: float) -> float:\n    return float(np.sqrt(x)) + sys.float_info.epsilon\n"
              "def main() -> None:\n    os.makedirs('out', exist_ok=True)\n"
              "    json.dump({'e': observable_e(1.0)}, open('results.json', 'w'))\n"
              "    plt.title('energy ~ 1/L')\n    plt.savefig('/dev/null')\n    print(observable_e.__name__)\n"
              "if __name__ == '__main__':\n    main()\n")
    assert looks_at_surroundings(__import__("ast").parse(honest)) == []
    for path in sorted((FIXTURES / "scripts").rglob("*.py")):
        assert not [b for b in analyse_script(path.read_text()).breaches if "surroundings" in b.name], path
