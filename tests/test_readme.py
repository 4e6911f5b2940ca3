"""The README keeps its word: its commands are CI's, run by a test or checked here, and
every file, extra, version and tutorial it names is what the repository has."""
import configparser
import pathlib
import re
import shlex
import subprocess
import sys

import numpy as np
import pytest

from gluonlite import demo

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
SETUP = configparser.ConfigParser()
SETUP.read(ROOT / "setup.cfg")


def _section(title: str) -> str:
    """The text of the ``## title`` section, up to the next section of its level."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", README, re.S | re.M)
    assert match, f"README has no section {title!r}"
    return match.group(1)


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.S | re.M)


def _bash_lines(text: str) -> list[str]:
    return [line for block in _blocks(text, "bash") for line in block.splitlines() if line]


def _ci_commands() -> list[str]:
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    return [line for line in lines if line.strip() and not line.lstrip().startswith("#")]


def test_ci_runs_exactly_the_quick_start_commands():
    readme = _bash_lines(_section("Quick start"))
    # set up, demo, tests; peers' packages, slow tests, oldest NumPy
    assert len(readme) == 6
    assert readme[0].startswith("python3 -m venv .venv && ")
    assert readme[1] == ".venv/bin/python -m gluonlite.demo"
    assert readme[2] == ".venv/bin/python -m pytest -q -n auto tests"
    commands = [line for line in _ci_commands() if not line.startswith(("set ", "cd "))]
    # the optional packages' install may carry a fallback (their tests skip without them)
    commands = [line.split(" || echo ")[0] for line in commands]
    assert commands[0] == readme[0]
    # CI installs the peers' packages before the test command, so that their tests run
    assert sorted(commands) == sorted(readme), commands


def test_stated_versions_match_setup_cfg():
    options = SETUP["options"]
    assert options["python_requires"].strip() == ">=3.10"
    assert "Python 3.10 or newer" in README and "| Python | 3.10 or newer |" in README
    requires = options["install_requires"].split()
    assert requires == ["numpy>=1.23"]
    assert "| NumPy | 1.23 or newer" in README
    assert '"numpy==1.23.*"' in _section("Quick start")  # the bound the suite is run on
    extras = SETUP["options.extras_require"]
    assert extras["gpu12"].strip() == "cupy-cuda12x>=13"
    assert extras["gpu13"].strip() == "cupy-cuda13x>=13"
    assert "| CuPy (NVIDIA GPUs) | 13 or newer" in README


def test_extras_named_in_the_readme_exist():
    named = set(re.findall(r"\| `(\w+)`(?:, `(\w+)`)? \| ", _section("Requirements and extras")))
    named = {n for pair in named for n in pair if n}
    assert named == set(SETUP["options.extras_require"])
    for spec in re.findall(r'-e "\.\[([\w,]+)\]"', README):
        assert set(spec.split(",")) <= named, spec
    assert "pip install gluonlite" not in README  # not on the package index


def test_paths_named_in_the_readme_exist():
    paths = set(re.findall(r"`((?:gluonlite|tests|tutorials|bench|\.ci)/[^`*<> ]*)`", README))
    assert len(paths) > 60
    missing = sorted(p for p in paths if not (ROOT / p).exists())
    assert not missing
    assert "../" not in README and "DESIGN.md" not in README  # nothing outside the repository


def test_layout_table_lists_every_module_and_package():
    table = _section("Layout")
    listed = set(re.findall(r"`gluonlite/([^`/]+)/?`", table))
    present = {p.name for p in (ROOT / "gluonlite").iterdir()
               if p.suffix == ".py" or (p / "__init__.py").exists()}
    assert present - listed == set(), "not in the README's layout table"
    assert listed - present == set(), "in the README's layout table but not in gluonlite/"


def test_tutorials_table_lists_every_tutorial():
    listed = set(re.findall(r"`tutorials/(\w+\.py)`", _section("Tutorials")))
    assert listed == {p.name for p in (ROOT / "tutorials").glob("*.py")}


def test_mxnet_alias_block_runs():
    (code,) = _blocks(_section("Running MXNet code"), "python")
    assert "install_mxnet_alias()" in code and "import mxnet.onnx" in code
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert res.returncode == 0, res.stderr
    version, total, name = res.stdout.split()
    assert version == "1.9.1" and float(total) == 6.0 and name == "export_model"


@pytest.mark.pillow
def test_im2rec_commands_run(tmp_path):
    commands = [line for line in _bash_lines(_section("Running MXNet code"))
                if "gluonlite.tools.im2rec" in line]
    assert len(commands) == 2
    rng = np.random.default_rng(0)
    from PIL import Image  # optional: the test carries the pillow marker
    for label in ("cat", "dog"):
        folder = tmp_path / "data" / "images" / label
        folder.mkdir(parents=True)
        for i in range(2):
            pixels = rng.integers(0, 256, (8, 8, 3), dtype=np.uint8)
            Image.fromarray(pixels).save(folder / f"{i}.png")
    for command in commands:
        args = shlex.split(command)
        assert args[0] == ".venv/bin/python"
        res = subprocess.run([sys.executable, *args[1:]], capture_output=True, text=True,
                             cwd=tmp_path, timeout=120)
        assert res.returncode == 0, res.stderr
    lines = (tmp_path / "data" / "train.lst").read_text().splitlines()
    assert len(lines) == 4 and {line.split("\t")[1] for line in lines} == {"0.000000",
                                                                           "1.000000"}
    assert (tmp_path / "data" / "train.rec").stat().st_size > 0
    assert (tmp_path / "data" / "train.idx").read_text().count("\n") == 4


def test_demo_command_trains_exports_reimports_and_extracts():
    res = subprocess.run([sys.executable, "-m", "gluonlite.demo", "--epochs", "2"],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert res.returncode == 0, res.stderr
    out = res.stdout
    for stage in ("epoch 1:", "trained: held-out accuracy", "exported:",
                  "re-imported with SymbolBlock.imports", "features at"):
        assert stage in out, (stage, out)
    assert "Warning" not in res.stderr, res.stderr


def test_demo_result():
    result = demo.run(verbose=False)
    assert result["accuracy"] > 0.95 and result["reimported_accuracy"] == result["accuracy"]
    assert result["max_difference"] == 0.0
    assert result["files"] == ["demo-symbol.json", "demo-0000.params"]
    assert result["feature_shape"] == (5, 32)
