"""``gluonlite.tools.diagnose``: MXNet's sections, gluonlite's package facts, no network
unless asked for."""
import os
import subprocess
import sys

import pytest

from gluonlite.tools import diagnose

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_sections_and_no_network_by_default(capsys, monkeypatch):
    monkeypatch.setenv("MXNET_ENGINE_TYPE", "NaiveEngine")
    called = []
    monkeypatch.setattr(diagnose, "test_connection", lambda *a: called.append(a))
    assert diagnose.main(["--hardware", "0"]) == 0
    out = capsys.readouterr().out
    for title in ("Python Info", "Pip Info", "MXNet Info", "System Info", "Environment"):
        assert f"----------{title}" in out or f"------------{title}" in out, title
    assert "Network Test" not in out and not called
    assert "Version      : 1.9.1" in out and "NumPy" in out
    assert 'MXNET_ENGINE_TYPE="NaiveEngine"' in out


def test_network_only_when_asked_with_the_timeout(capsys, monkeypatch):
    called = []
    monkeypatch.setattr(diagnose, "test_connection", lambda *a: called.append(a))
    off = ["--python", "0", "--pip", "0", "--mxnet", "0", "--os", "0", "--hardware", "0",
           "--environment", "0"]
    with pytest.warns(UserWarning, match="Region xx"):
        diagnose.main(off + ["--network", "1", "--timeout", "3", "--region", "cn,xx"])
    assert "Network Test" in capsys.readouterr().out
    names = [c[0] for c in called]
    assert "PYPI(douban)" in names and all(c[2] == 3 for c in called)


def test_failed_connection_is_reported(capsys, monkeypatch):
    import socket

    def no_dns(host):
        raise socket.gaierror("no network here")

    monkeypatch.setattr(socket, "gethostbyname", no_dns)
    diagnose.test_connection("X", "https://example.invalid/", timeout=1)
    assert "Error resolving DNS for X" in capsys.readouterr().out


def test_command_line():
    env = dict(os.environ, PYTHONPATH=REPO)
    res = subprocess.run([sys.executable, "-m", "gluonlite.tools.diagnose", "--hardware", "0",
                          "--pip", "0"], capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "MXNet Info" in res.stdout and "Network Test" not in res.stdout
