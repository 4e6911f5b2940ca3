"""Run GluonCV's and GluonNLP's own unit tests on gluonlite, or on MXNet to compare.

The suites are read from local git mirrors (``git cat-file``; nothing is fetched) into
a scratch folder that is never committed, and run with pytest against the *installed*
GluonCV 0.10.5.post0 and GluonNLP 0.10.0. On gluonlite a pytest plugin written beside
them calls ``gluonlite.install_mxnet_alias()`` before any conftest imports ``mxnet``.

Usage, from the project root::

    python tests/thirdparty/peer_suites.py --gluoncv CV_GIT_DIR --gluonnlp NLP_GIT_DIR \\
        [--target mxnet] [--json OUT.json] [--against REF.json] [--timeout S] [-k EXPR]

``--target mxnet`` runs them on the real MXNet (give ``--python`` the side venv's
interpreter). ``--json`` keeps each test's outcome; ``--against`` lists the tests that
passed in a saved run (MXNet's) but not in this one. The suites need ``nose``,
``flaky`` and ``pytest-timeout`` installed in the interpreter that runs them.

What differs from upstream's own configuration, and why:

- upstream's ``filterwarnings = error`` is dropped: it turns the deprecation warnings of
  today's Python, NumPy and the packages' dependencies into test errors, which measures
  the environment, not the framework (MXNet 1.9.1 itself then fails to import: its
  ``np.bool`` warns under NumPy 1.23);
- tests marked ``remote_required`` (they download datasets or weights) and ``gpu`` are
  deselected: this runner fetches nothing and runs on the CPU;
- ``MXNET_HOME`` is the suite's ``tests/data`` (upstream sets it with pytest-env) and
  ``MXNET_MODULE_SEED`` is fixed, so a run is repeatable.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@dataclass(frozen=True)
class PeerSuite:
    """Where one peer's unit tests live in its repository."""

    name: str
    revision: str  # the commit or tag whose tests match the installed release
    paths: tuple  # what to take from the repository
    test_dir: str  # the folder pytest collects
    markers: tuple = field(default_factory=tuple)  # upstream's declared markers


SUITES = {
    # gluon-cv has no 0.10.5.post0 tag; at this commit gluoncv/ equals that release
    "gluoncv": PeerSuite("gluoncv", "0baa50a171a1f85a096fe176031608bc8d06e77c",
                         ("tests/__init__.py", "tests/unittests"), "tests/unittests",
                         ("gpu", "remote_required")),
    # the repo-root conftest sets the seeds; tests/data/vocab holds saved vocabularies
    "gluonnlp": PeerSuite("gluonnlp", "v0.10.0",
                          ("conftest.py", "tests/unittest", "tests/data/vocab"),
                          "tests/unittest",
                          ("seed", "serial", "remote_required", "gpu", "integration",
                           "skip_master", "py3_only")),
}

DESELECT = "not remote_required and not gpu"

ALIAS_PLUGIN = '''"""Loaded with -p before any conftest: `import mxnet` gives gluonlite."""
import gluonlite

gluonlite.install_mxnet_alias()
'''


def extract_suite(suite: PeerSuite, git_dir: str, into: str) -> str:
    """Copy ``suite``'s files at its revision out of the mirror ``git_dir`` into ``into``.

    Blobs are read one by one (``git cat-file --batch``) rather than by ``git archive``,
    which gives up on the first blob a partial mirror lacks, even outside ``paths``.
    """
    listing = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "-z",
                              suite.revision, "--", *suite.paths],
                             capture_output=True, check=True).stdout
    entries = []
    for record in filter(None, listing.split(b"\0")):
        meta, path = record.split(b"\t", 1)
        _mode, kind, sha = meta.split()
        if kind == b"blob":
            entries.append((sha, path.decode()))
    request = b"".join(sha + b"\n" for sha, _ in entries)
    batch = subprocess.run(["git", "--git-dir", git_dir, "cat-file", "--batch"],
                           input=request, capture_output=True, check=True).stdout
    offset = 0
    for sha, path in entries:
        header_end = batch.index(b"\n", offset)
        header = batch[offset:header_end].split()
        offset = header_end + 1
        if header[-1] == b"missing":  # a blob the mirror does not hold
            continue
        size = int(header[2])
        target = os.path.join(into, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as out:
            out.write(batch[offset:offset + size])
        offset += size + 1
    markers = "".join(f"\n    {m}" for m in suite.markers)
    with open(os.path.join(into, "pytest.ini"), "w") as ini:
        ini.write(f"[pytest]\nmarkers ={markers}\n")
    return into


def run_suite(suite: PeerSuite, root: str, python: str, target: str, timeout: int,
              keyword: str | None) -> dict:
    """Run one extracted suite, a pytest process per test file; ``{test id: outcome}``.

    A file whose process crashes (MXNet 1.9.1 segfaults in some oneDNN kernels on some
    CPUs) is run again without the test that crashed, which counts as ``crashed``.
    """
    env = dict(os.environ, MXNET_HOME=os.path.join(root, "tests", "data"),
               MXNET_MODULE_SEED="1")
    plugin_args = []
    if target == "gluonlite":
        with open(os.path.join(root, "mxnet_alias_plugin.py"), "w") as plugin:
            plugin.write(ALIAS_PLUGIN)
        plugin_args = ["-p", "mxnet_alias_plugin"]
        env["PYTHONPATH"] = os.pathsep.join(
            [root, PROJECT_ROOT] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    test_files = sorted(
        os.path.relpath(os.path.join(folder, name), root)
        for folder, _, names in os.walk(os.path.join(root, suite.test_dir))
        for name in names if name.startswith("test_") and name.endswith(".py"))
    outcomes = {}
    for test_file in test_files:
        crashed: list = []
        while True:
            report = os.path.join(root, "report.xml")
            if os.path.exists(report):
                os.remove(report)
            excluded = [keyword] if keyword else []
            excluded += [f"not {name}" for name in crashed]
            cmd = [python, "-m", "pytest", test_file, *plugin_args, "-q",
                   "-p", "no:cacheprovider", "-m", DESELECT, f"--junitxml={report}",
                   f"--timeout={timeout}"]
            if excluded:
                cmd += ["-k", " and ".join(f"({e})" for e in excluded)]
            log_path = os.path.join(root, "pytest.log")
            with open(log_path, "a") as log:
                log.write(f"\n===== {' '.join(cmd[1:])}\n")
                log.flush()
                subprocess.run(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
            if os.path.exists(report):
                outcomes.update(read_report(report, test_file))
                break
            victim = crashed_test(log_path, test_file)
            if victim is None or victim in crashed:
                outcomes[f"{test_file}::(file)"] = "crashed"
                break
            crashed.append(victim)
        outcomes.update({f"{test_file}::{name}": "crashed" for name in crashed})
    return outcomes


def crashed_test(log_path: str, test_file: str) -> str | None:
    """The test function that the last crash in ``log_path`` happened in (faulthandler)."""
    with open(log_path) as log:
        text = log.read()
    text = text[text.rfind("\n===== "):]
    names = re.findall(rf'File "[^"]*{re.escape(test_file)}", line \d+ in (\w+)', text)
    tests = [n for n in names if n.startswith("test")]
    return tests[0] if tests else None


def read_report(path: str, test_file: str) -> dict:
    """``{test_file::[Class::]test: passed|failed|error|skipped}`` from a JUnit XML file."""
    module = os.path.splitext(os.path.basename(test_file))[0]
    outcomes = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        owner = case.get("classname", "").split(".")[-1]
        name = case.get("name") if owner == module else f"{owner}::{case.get('name')}"
        kinds = {child.tag for child in case}
        outcome = ("failed" if "failure" in kinds else "error" if "error" in kinds
                   else "skipped" if "skipped" in kinds else "passed")
        # a test that failed in teardown after passing has two entries; the worse wins
        key = f"{test_file}::{name}"
        if outcomes.get(key) in (None, "passed", "skipped"):
            outcomes[key] = outcome
    return outcomes


def per_file(outcomes: dict) -> dict:
    """``{file: {outcome: count}}``."""
    table: dict = {}
    for name, outcome in outcomes.items():
        counts = table.setdefault(name.split("::")[0], {})
        counts[outcome] = counts.get(outcome, 0) + 1
    return table


def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gluoncv", metavar="GIT_DIR", help="git directory of dmlc/gluon-cv")
    parser.add_argument("--gluonnlp", metavar="GIT_DIR", help="git directory of dmlc/gluon-nlp")
    parser.add_argument("--target", choices=["gluonlite", "mxnet"], default="gluonlite")
    parser.add_argument("--python", default=sys.executable,
                        help="interpreter that runs the suites (MXNet's venv for --target mxnet)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per test")
    parser.add_argument("-k", dest="keyword", help="pytest -k expression")
    parser.add_argument("--json", help="write every test's outcome here")
    parser.add_argument("--against", help="a --json file of a reference run to compare with")
    args = parser.parse_args(argv)
    if os.sep in args.python:  # the suites run in the scratch folder
        args.python = os.path.abspath(args.python)
    mirrors = {"gluoncv": args.gluoncv, "gluonnlp": args.gluonnlp}
    if not any(mirrors.values()):
        parser.error("give --gluoncv and/or --gluonnlp")

    scratch = tempfile.mkdtemp(prefix="peer-suites-")
    outcomes = {}
    for name, git_dir in mirrors.items():
        if not git_dir:
            continue
        root = extract_suite(SUITES[name], git_dir, os.path.join(scratch, name))
        found = run_suite(SUITES[name], root, args.python, args.target, args.timeout,
                          args.keyword)
        outcomes.update({f"{name}:{test}": outcome for test, outcome in found.items()})
        if not found:
            print(f"{name}: no report; see {root}/pytest.log")

    columns = ("passed", "failed", "error", "crashed", "skipped")
    print(f"{'file':<58}" + "".join(f"{c:>8}" for c in columns))
    for path, counts in sorted(per_file(outcomes).items()):
        print(f"{path:<58}" + "".join(f"{counts.get(c, 0):>8}" for c in columns))
    ran = [o for o in outcomes.values() if o != "skipped"]
    print(f"suites ({args.target}): {ran.count('passed')} passed of {len(ran)} run, "
          f"{len(outcomes) - len(ran)} skipped; logs in {scratch}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(outcomes, out, indent=1, sort_keys=True)
    if args.against:
        with open(args.against) as ref_file:
            reference = json.load(ref_file)
        lost = sorted(t for t, o in reference.items()
                      if o == "passed" and outcomes.get(t) != "passed")
        print(f"passed in {args.against} but not here: {len(lost)}")
        for test in lost:
            print(f"  {test}: {outcomes.get(test, 'not run')}")
        return 1 if lost else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
