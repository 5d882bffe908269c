"""A number decoded from bytes or text is a typed number: every spelling a script could use to hide one from
constant folding is found by line, and honest physics code (the verifier library, the composed scripts of every
QMP task, the examples) has none."""

from __future__ import annotations

import ast
import shutil
import struct
from pathlib import Path

import pytest

from physvec.taskfiles.loading import load_task
from physvec.verifiers.certificate import Outcome
from physvec.verifiers.scientific.decoded_numbers import decodings
from physvec.verifiers.scientific.integrity import typed_values_obligation

ROOT = Path(__file__).resolve().parents[3]
VALUE = -25.1077971116
"""Any double; the spellings below make it without a literal that folding could read."""
PACKED = struct.pack("<d", VALUE)

SPELLINGS = {
    "struct of a byte list": f'import struct\nE = struct.unpack("<d", bytes({list(PACKED)!r}))[0]',
    "struct of an integer's bytes": f'from struct import unpack as u\n'
                                    f'E = u("<d", ({int.from_bytes(PACKED, "little")}).to_bytes(8, "little"))[0]',
    "hex float": f"E = float.fromhex({VALUE.hex()!r})",
    "hex float passed as a value": f"E = sum(map(float.fromhex, [{VALUE.hex()!r}]))",
    "hex float looked up by name": f'E = getattr(float, "fromhex")({VALUE.hex()!r})',
    "bytes.fromhex": f'import numpy as np\nE = np.frombuffer(bytes.fromhex({PACKED.hex()!r}))[0]',
    "integer from bytes": f"E = int.from_bytes({PACKED!r}, 'little') * 1e-20",
    "base64": 'import base64 as b\nE = float(b.b64decode("LTI1LjEwNzc5NzExMTY="))',
    "pickle": "import pickle\nE = pickle.loads(DATA)",
    "eval of text": 'E = eval("-25." + "1077971116")',
    "exec of text": 'exec("E = -25.1077971116")',
    "numpy buffer keyword": "import numpy as np\nE = np.ndarray((1,), dtype=np.float64, buffer=DATA)[0]",
    "integer array viewed as floats": f"import numpy as np\n"
                                      f"E = np.array([{int.from_bytes(PACKED, 'little')}], dtype=np.int64)"
                                      f".view(np.float64)[0]",
    "character codes": "E = float(''.join(chr(c) for c in (45, 50, 53, 46, 49, 48, 55, 55)))",
    "another base": 'E = -int("2ec1", 16) / 1e3',
    "json of a typed string": 'import json\nE = json.loads("[-25.1077971116]")[0]',
    "memoryview cast": "E = memoryview(DATA).cast('d')[0]",
}


@pytest.mark.parametrize("spelling", SPELLINGS.values(), ids=SPELLINGS.keys())
def test_every_spelling_of_a_decoded_number_is_found(spelling):
    found = decodings(ast.parse(spelling))
    assert found, spelling
    assert {decoding.line for decoding in found} <= set(range(1, spelling.count("\n") + 2))


def test_a_decoded_number_fails_the_typed_values_obligation_by_line(tmp_path):
    shutil.copytree(ROOT / "examples" / "heisenberg_chain", tmp_path / "task")
    task = load_task(tmp_path / "task" / "task.json")
    source = ("PARAMS = {'L': 12, 'J': 1.0, 'chi_max': 64}\n\n\n"
              "def effector_dmrg(L: int, J: float, chi_max: int) -> float:\n"
              f"    return float.fromhex({VALUE.hex()!r}) + 1e-9 * J\n")
    obligation = typed_values_obligation(source, task)
    assert obligation.outcome is Outcome.FAILED
    assert obligation.evidence["lines"] == [5]
    assert "decoded" in obligation.message and VALUE.hex() not in obligation.message


def test_reading_the_script_s_own_results_is_not_decoding():
    honest = ("import json\nimport numpy as np\n"
              "results = json.loads(path.read_text())\n"
              "with open('results.json') as file:\n    data = json.load(file)\n"
              "L = int(params['L'])\nview = np.asarray(state).reshape(2, -1)\n"
              "label = f'chi={chi}'.encode()\n")
    assert decodings(ast.parse(honest)) == []


def test_honest_physics_code_decodes_nothing():
    """False alarms measured on code nobody wrote to cheat: the verifier library, the independent references,
    the example scripts and the script the library composes for every QMP task."""
    from physvec.qmp_bench.catalogue import bench_tasks
    from physvec.verifiers.library.composer import compose_script

    # skeleton.py is tooling, not physics: it reads the library's source to build prompts, and decoding the
    # pipelines' literal parameters is its job; the example scripts it builds are scanned instead
    from physvec.verifiers.library.skeleton import example_script

    modules = [path for pattern in ("verifiers/library/*.py", "examples/**/*.py")
               for path in ROOT.glob(pattern) if path.name != "skeleton.py"]
    sources = {path.name: path.read_text() for path in modules}
    for bench_task in bench_tasks():
        loaded = load_task(bench_task.task_file)
        sources[bench_task.name] = compose_script(loaded.task.spec, loaded.task.backend).script
    for backend in ("qiskit", "netket", "tenpy", "pyscf"):
        sources[f"example script ({backend})"] = example_script(backend)
    assert len(sources) > 25
    flagged = {name: decodings(ast.parse(source)) for name, source in sources.items()}
    assert not any(flagged.values()), {name: found for name, found in flagged.items() if found}
