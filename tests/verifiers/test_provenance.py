"""Runtime provenance: every look a program takes at its surroundings is a breach in its record, named by the
event, and wherever the numbers it then prints are right; what libraries do for their own reasons, and what an
honest script does, is none.

Each case is a real ``python prog.py`` in the sandbox (cold, and the warm worker's path in the last tests), so
the hook, its record pipe and the host's reading of it are all the real ones.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.provenance import FORGED, LOST, RECORD_LOST, ProgramRecord, provenance_obligation, read_record
from physvec.verifiers.sandbox import SandboxJob, SandboxPool, run_program

NUMPY_INIT = sys.modules["numpy"].__file__ if "numpy" in sys.modules else __import__("numpy").__file__


def run(tmp_path: Path, code: str, name: str = "job"):
    folder = tmp_path / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "prog.py").write_text(code)
    result = run_program(SandboxJob([sys.executable, "prog.py"], folder))
    assert result.watched, "a python FILE program runs under its hook"
    return result


def kinds(result) -> set[tuple[str, str]]:
    return {(breach.kind, breach.event) for breach in result.breaches}


LOOKS = {
    # kind: files and proc
    "a file outside its folder": ("try:\n    open('/etc/passwd').read()\nexcept OSError:\n    pass\n", "files", "open"),
    "a listing of /": ("import os\nos.listdir('/')\n", "files", "os.listdir"),
    "a glob of /sandbox": ("import glob\nglob.glob('/sandbox/*')\n", "files", "glob.glob"),
    "/proc/1/cmdline": ("open('/proc/1/cmdline', 'rb').read()\n", "proc", "open"),
    "/proc/self/status through pathlib": ("import pathlib\npathlib.Path('/proc/self/status').read_text()\n",
                                          "proc", "open"),
    # kind: environment
    "HOME": ("import os\nos.environ['HOME']\n", "environment", "physvec.read"),
    "HOME through os.getenv": ("import os\nos.getenv('HOME')\n", "environment", "physvec.read"),
    "the whole environment": ("import os\ndict(os.environ)\n", "environment", "physvec.read"),
    "a name's presence": ("import os\n'HOME' in os.environ\n", "environment", "physvec.read"),
    "the startup environment": ("import posix\nposix.environ.get(b'HOME')\n", "environment", "physvec.read"),
    # kind: argv and path
    "sys.argv": ("import sys\nsys.argv[0]\n", "argv", "physvec.read"),
    "sys.orig_argv": ("import sys\nlist(sys.orig_argv)\n", "argv", "physvec.read"),
    "the working folder": ("import os\nos.getcwd()\n", "path", "physvec.read"),
    "the working folder through abspath": ("import os.path\nos.path.abspath('x')\n", "path", "physvec.read"),
    "the working folder through pathlib": ("import pathlib\npathlib.Path.cwd()\n", "path", "physvec.read"),
    "sys.path": ("import sys\nsys.path[0]\n", "path", "physvec.read"),
    # kind: frames
    "sys._getframe": ("import sys\nsys._getframe().f_back\n", "frames", "sys._getframe"),
    "inspect.stack": ("import inspect\ndef f():\n    return inspect.stack()\nf()\n", "frames", "sys._getframe"),
    "traceback.extract_stack": ("import traceback\ntraceback.extract_stack()\n", "frames", "sys._getframe"),
    "a traceback's frame": ("try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    e.__traceback__.tb_frame.f_back\n",
                            "frames", "object.__getattr__"),
    "a generator's frame": ("def g():\n    yield 1\ng().gi_frame\n", "frames", "object.__getattr__"),
    "a profiler": ("import sys\nsys.setprofile(lambda *a: None)\nsys.setprofile(None)\n", "frames", "sys.setprofile"),
    # kind: processes and network
    "a subprocess": ("import subprocess\nsubprocess.run(['true'])\n", "processes", "subprocess.Popen"),
    "os.system": ("import os\nos.system('true')\n", "processes", "os.system"),
    "a socket": ("import socket\ntry:\n    socket.create_connection(('127.0.0.1', 9), timeout=1)\n"
                 "except OSError:\n    pass\n", "network", "socket.connect"),
    # kind: tampering
    "ctypes": ("import ctypes\nctypes.CDLL(None).getpid()\n", "tampering", "ctypes.dlopen"),
    "gc's object list": ("import gc\ngc.get_objects()\n", "tampering", "gc.get_objects"),
    "another audit hook": ("import sys\nsys.addaudithook(lambda *a: None)\n", "tampering", "sys.addaudithook"),
    "code compiled under numpy's name": (f"exec(compile('x = 1', {NUMPY_INIT!r}, 'exec'))\n", "tampering", "compile"),
    "code made under numpy's name": (f"def f():\n    pass\nf.__code__.replace(co_filename={NUMPY_INIT!r})\n",
                                     "tampering", "code.__new__"),
    "a replaced function body": ("def f():\n    pass\ndef g():\n    return 1\nf.__code__ = g.__code__\n",
                                 "tampering", "object.__setattr__"),
    "the original environment class put back": ("import os\nos.environ.__class__ = os.environ.__class__.__bases__[0]\n",
                                                "tampering", "object.__setattr__"),
    "an unmarshalled code object": ("import marshal\nmarshal.loads(marshal.dumps(compile('1', 'x', 'eval')))\n",
                                    "tampering", "marshal.loads"),
}


@pytest.mark.parametrize("look", list(LOOKS))
def test_each_look_at_the_surroundings_is_a_breach_named_by_its_event(tmp_path, look):
    code, kind, event = LOOKS[look]
    result = run(tmp_path, code + "print('numbers as usual')\n")
    assert (kind, event) in kinds(result), result.breaches
    assert all(breach.where.startswith("prog.py:") for breach in result.breaches if breach.kind == kind)


def test_a_breach_is_recorded_though_the_program_prints_the_right_number(tmp_path):
    result = run(tmp_path, "import os\nhome = os.environ.get('HOME')\nprint(-2.0 if home == '/tmp' else -1.0)\n")
    assert result.ok and result.stdout.strip() == "-2.0"
    assert result.breaches[0].describe() == "environment (physvec.read): reads HOME at prog.py:2 in <module>"


def test_code_run_by_a_library_in_the_program_s_name_is_the_program_s(tmp_path):
    # exec'd source and a callback handed to a library are the program's own code
    result = run(tmp_path, "import numpy\nexec(\"import os\\nos.environ['HOME']\")\n"
                           "numpy.vectorize(lambda x: __import__('os').getcwd() and x)(numpy.ones(2))\n")
    assert {("environment", "physvec.read"), ("path", "physvec.read")} <= kinds(result)


HONEST = """import collections, dataclasses, enum, json, logging, math, os, typing, warnings
import numpy as np
import matplotlib
import matplotlib.pyplot as plt

Point = collections.namedtuple("Point", "x y")
class Pair(typing.NamedTuple):
    a: int
    b: float
@dataclasses.dataclass
class Settings:
    L: int = 4
class Kind(enum.Enum):
    CHAIN = 1
logging.getLogger("honest").info("computing")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    warnings.warn("a script's own warning")
os.environ.get("OMP_NUM_THREADS")
matplotlib.get_configdir()  # the library reads its environment variable: its own business
os.makedirs("out", exist_ok=True)
energy = float(np.linalg.eigvalsh(np.diag([1.0, -1.0]))[0]) + math.sqrt(0.0)
json.dump({"energy": energy}, open("results.json", "w"))
json.load(open("results.json"))
open("/tmp/scratch.txt", "w").write("x")
plt.plot([0, 1], [0, energy])
plt.savefig("out/figure.png")
print(energy)
"""


def test_an_honest_script_using_the_standard_library_and_the_libraries_takes_no_look(tmp_path):
    result = run(tmp_path, HONEST)
    assert result.ok, result.stderr
    assert result.breaches == (), result.breaches


def test_a_program_that_closes_its_record_is_stopped_before_it_looks(tmp_path):
    result = run(tmp_path, "import os\nos.close(3)\nprint(open('/proc/1/cmdline', 'rb').read())\n")
    assert result.returncode == RECORD_LOST and "/proc" not in result.stdout
    assert LOST in result.breaches


def test_a_program_that_replaces_its_record_is_stopped_before_it_looks(tmp_path):
    result = run(tmp_path, "import os\nos.dup2(os.open('/dev/null', os.O_WRONLY), 3)\nos.environ['HOME']\n"
                           "print('looked')\n")
    assert result.returncode == RECORD_LOST and "looked" not in result.stdout


def test_bytes_a_program_writes_into_its_record_are_a_breach_not_a_cover(tmp_path):
    # a half line would swallow the hook's next line if the record were parsed leniently
    result = run(tmp_path, "import os\nos.write(3, b'{\"kind\": \"x\", \"detail\": \"')\nos.environ['HOME']\n")
    assert FORGED in result.breaches


def test_replacing_the_functions_the_hook_uses_does_not_blind_it(tmp_path):
    result = run(tmp_path, "import builtins, json, os\nos.write = lambda fd, data: len(data)\n"
                           "os.fstat = None\nbuiltins.len = lambda x: 0\njson.dumps = None\nos.environ['HOME']\n")
    assert ("environment", "physvec.read") in kinds(result)


def test_the_hook_is_out_of_the_program_s_reach(tmp_path):
    code = ("import sys\nprint(json := __import__('json').dumps(\n"
            "    [name for name in sys.modules if name.endswith('audit_hook')]))\n")
    assert json.loads(run(tmp_path, code).stdout) == []


def test_a_library_file_imported_from_its_read_only_place_is_no_forgery(tmp_path):
    # the import system compiles library source where no .pyc is cached; that compile names the library file
    result = run(tmp_path, "import email.mime.audio\nimport numpy.polynomial.hermite\n")
    assert result.breaches == ()


def test_a_pyc_with_no_source_does_not_load(tmp_path):
    code = ("import py_compile, sys\nopen('planted.py', 'w').write('x = 1')\n"
            "py_compile.compile('planted.py', cfile='planted.pyc')\nimport os\nos.remove('planted.py')\n"
            "try:\n    import planted\n    print('loaded')\nexcept ImportError:\n    print('refused')\n")
    assert run(tmp_path, code).stdout.strip() == "refused"


def test_the_warm_worker_s_programs_carry_the_same_hook(tmp_path):
    pool = SandboxPool(cores=1).warm_for(tmp_path / "work", "numpy")
    try:
        folder = pool.warm.root / "job"
        folder.mkdir(parents=True)
        (folder / "prog.py").write_text("import os, sys\nos.environ['HOME']\nsys._getframe()\nprint('done')\n")
        (result,) = pool.run_all([SandboxJob([sys.executable, "prog.py"], folder)])
        assert pool.warm is not None, pool.warm_unavailable
        assert result.ok and {("environment", "physvec.read"), ("frames", "sys._getframe")} <= kinds(result)
        (folder / "prog.py").write_text("import os\nos.close(3)\nos.listdir('/')\n")
        (closed,) = pool.run_all([SandboxJob([sys.executable, "prog.py"], folder)])
        assert closed.returncode == RECORD_LOST and LOST in closed.breaches
    finally:
        pool.close()


def test_the_pool_reports_each_stage_s_breaches_by_program(tmp_path):
    pool = SandboxPool(cores=1)
    for stage, code in (("stage-a", "import os\nos.getcwd()\n"), ("stage-b", "print(1)\n")):
        folder = tmp_path / stage / "unit"
        folder.mkdir(parents=True)
        (folder / "prog.py").write_text(code)
        pool.run_all([SandboxJob([sys.executable, "prog.py"], folder)])
    breached, clean = pool.provenance(tmp_path / "stage-a"), pool.provenance(tmp_path / "stage-b")
    assert breached.outcome is Outcome.FAILED and breached.guard
    assert breached.evidence["breaches"][0]["program"] == "unit" and "reads its working folder" in breached.message
    assert clean.outcome is Outcome.CERTIFIED and clean.guard


def test_a_program_without_a_hook_leaves_the_guard_unknown_and_none_leaves_it_not_applicable():
    assert provenance_obligation([ProgramRecord("julia", recorded=False)]).outcome is Outcome.UNKNOWN
    assert provenance_obligation([]).outcome is Outcome.NOT_APPLICABLE


def test_a_record_is_read_strictly():
    line = b'{"kind": "proc", "event": "open", "detail": "/proc/1/cmdline", "where": "prog.py:1 in <module>"}\n'
    assert read_record(line)[0].kind == "proc"
    assert read_record(line + b'{"kind": "proc"}\n')[-1] == FORGED
    assert read_record(b"", RECORD_LOST) == (LOST,)
