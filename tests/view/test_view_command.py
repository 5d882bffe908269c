"""`physvec view` serves on loopback until stopped, and refuses a folder that does not exist."""

from __future__ import annotations

import subprocess
import sys
import urllib.request

from physvec.cli.main import physvec_main


def test_physvec_view_prints_its_address_and_serves_the_run_list(tmp_path):
    command = [sys.executable, "-c", "from physvec.cli.main import physvec_main; physvec_main()",
               "view", str(tmp_path), "--port", "0"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        assert line.startswith("physvec view: http://127.0.0.1:")
        address = line.split()[2]
        with urllib.request.urlopen(address, timeout=30) as response:
            assert "No run folders here" in response.read().decode()
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_folder_that_does_not_exist_is_an_exit_2(tmp_path, capsys):
    assert physvec_main(["view", str(tmp_path / "nope")]) == 2
    assert "no such folder" in capsys.readouterr().err
