"""`physvec view` serves on loopback until stopped, and refuses a folder that does not exist."""

from __future__ import annotations

import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from physvec.cli.main import physvec_main


def test_physvec_view_prints_its_address_with_the_launch_token_and_serves_the_run_list_through_it(tmp_path):
    command = [sys.executable, "-c", "from physvec.cli.main import physvec_main; physvec_main()",
               "view", str(tmp_path), "--port", "0"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        assert line.startswith("physvec view: http://127.0.0.1:")
        address = line.split()[2]
        base, _, token = address.partition("/?token=")
        assert len(token) >= 32
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(base + "/", timeout=30)
        assert refused.value.code == 403
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        with browser.open(address, timeout=30) as response:
            assert "No run folders here" in response.read().decode()
            assert response.url == base + "/", "the token is dropped from the address once the cookie is set"
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_folder_that_does_not_exist_is_an_exit_2(tmp_path, capsys):
    assert physvec_main(["view", str(tmp_path / "nope")]) == 2
    assert "no such folder" in capsys.readouterr().err


def test_a_run_whose_run_json_cannot_be_read_is_named_apart_from_the_list(tmp_path):
    from physvec.view.catalogue import Catalogue
    from physvec.view.server import Viewer

    broken = tmp_path / "20260101-000000-task-0000"
    broken.mkdir()
    (broken / "run.json").write_text('{"run_id": ')
    (broken / "transcript.jsonl").write_text("")
    page = Viewer(Catalogue([tmp_path])).index()
    assert "Unreadable run.json" in page and broken.name in page
