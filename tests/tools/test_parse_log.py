"""``gluonlite.tools.parse_log``: MXNet 1.9.1's per-epoch table of a training log
(``tests/fixtures/parse_log.json``, made by ``gen_parse_log.py``)."""
import json
import math
import os
import subprocess
import sys

import pytest

from gluonlite.tools import parse_log

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
with open(os.path.join(REPO, "tests", "fixtures", "parse_log.json")) as _f:
    FIXTURE = json.load(_f)


@pytest.mark.parametrize("case", sorted(FIXTURE["cases"]))
def test_output_is_mxnets(tmp_path, capsys, case):
    log = tmp_path / "train.log"
    log.write_text(FIXTURE["log"])
    assert parse_log.main([str(log)] + FIXTURE["cases"][case]["options"]) == 0
    assert capsys.readouterr().out == FIXTURE["cases"][case]["stdout"]


def test_command_line(tmp_path):
    log = tmp_path / "train.log"
    log.write_text(FIXTURE["log"])
    env = dict(os.environ, PYTHONPATH=REPO)
    res = subprocess.run([sys.executable, "-m", "gluonlite.tools.parse_log", str(log),
                          "--format", "none"], capture_output=True, text=True, env=env,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout == FIXTURE["cases"]["none"]["stdout"]


def test_parse_averages_and_marks_missing_values():
    table = parse_log.parse(["Epoch[2] Train-accuracy=0.5\n", "Epoch[2] Train-accuracy=0.7\n",
                             "Epoch[2] Time cost=3\n", "unrelated\n"])
    (epoch, values), = table.items()
    assert epoch == 2 and values[0] == pytest.approx(0.6) and values[2] == 3.0
    assert math.isnan(values[1])  # no validation line: MXNet's tool divides by zero
    assert "| nan |" in parse_log.format_table(table)
    with pytest.raises(ValueError):
        parse_log.format_table(table, fmt="html")
