"""The peers' suite runner (``peer_suites.py``): what it takes from a mirror, how it reads
pytest's reports and finds the test that crashed a run."""
import json
import os
import shutil
import subprocess

import pytest

from tests.thirdparty import peer_suites

REPORT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest">
<testcase classname="tests.unittest.test_models" name="test_a" time="0.1"/>
<testcase classname="tests.unittest.test_models" name="test_b[x]" time="0.1">
  <failure message="boom">trace</failure></testcase>
<testcase classname="tests.unittest.test_models" name="test_c" time="0.1">
  <skipped message="gpu"/></testcase>
<testcase classname="tests.unittest.test_models.TestVocab" name="test_d" time="0.1"/>
<testcase classname="tests.unittest.test_models" name="test_e" time="0.1"/>
<testcase classname="tests.unittest.test_models" name="test_e" time="0.1">
  <error message="teardown">trace</error></testcase>
</testsuite></testsuites>
"""


def test_read_report_keys_outcomes_by_file_and_class(tmp_path):
    path = tmp_path / "report.xml"
    path.write_text(REPORT)
    got = peer_suites.read_report(str(path), "tests/unittest/test_models.py")
    f = "tests/unittest/test_models.py::"
    assert got == {f + "test_a": "passed", f + "test_b[x]": "failed", f + "test_c": "skipped",
                   f + "TestVocab::test_d": "passed", f + "test_e": "error"}
    assert peer_suites.per_file(got) == {
        "tests/unittest/test_models.py": {"passed": 2, "failed": 1, "skipped": 1, "error": 1}}


def test_crashed_test_is_the_first_test_frame_of_the_last_run(tmp_path):
    log = tmp_path / "pytest.log"
    log.write_text(
        '\n===== -m pytest tests/unittest/test_models.py\n'
        'Fatal Python error: Segmentation fault\n'
        '  File "/x/site-packages/mxnet/ndarray/ndarray.py", line 2869 in backward\n'
        '  File "/tmp/s/tests/unittest/test_models.py", line 578 in test_big_rnn\n'
        '  File "/x/_pytest/python.py", line 187 in pytest_pyfunc_call\n'
        '\n===== -m pytest tests/unittest/test_models.py -k (not test_big_rnn)\n'
        'Fatal Python error: Segmentation fault\n'
        '  File "/tmp/s/tests/unittest/test_models.py", line 9 in helper\n'
        '  File "/tmp/s/tests/unittest/test_models.py", line 90 in test_other\n')
    assert peer_suites.crashed_test(str(log), "tests/unittest/test_models.py") == "test_other"
    log.write_text("\n===== -m pytest tests/unittest/test_models.py\nKilled\n")
    assert peer_suites.crashed_test(str(log), "tests/unittest/test_models.py") is None


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_extract_suite_takes_the_revision_s_files_from_a_bare_mirror(tmp_path):
    work = tmp_path / "work"
    (work / "tests" / "unittest").mkdir(parents=True)
    (work / "tests" / "unittest" / "test_x.py").write_text("def test_x():\n    pass\n")
    (work / "conftest.py").write_text("# root conftest\n")
    (work / "setup.py").write_text("# not taken\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(work)]
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "one"], check=True)
    subprocess.run(git + ["tag", "v1"], check=True)
    (work / "tests" / "unittest" / "test_x.py").write_text("changed later\n")
    subprocess.run(git + ["commit", "-q", "-am", "two"], check=True)
    mirror = tmp_path / "mirror.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(mirror)], check=True)

    suite = peer_suites.PeerSuite("demo", "v1", ("conftest.py", "tests/unittest"),
                                  "tests/unittest", ("gpu",))
    root = peer_suites.extract_suite(suite, str(mirror), str(tmp_path / "out"))
    assert (tmp_path / "out" / "tests" / "unittest" / "test_x.py").read_text() == \
        "def test_x():\n    pass\n"
    assert (tmp_path / "out" / "conftest.py").exists()
    assert not (tmp_path / "out" / "setup.py").exists()
    ini = open(os.path.join(root, "pytest.ini")).read()
    assert "markers =\n    gpu" in ini and "filterwarnings" not in ini


def test_against_lists_what_passed_in_the_reference_only(tmp_path, monkeypatch, capsys):
    reference = {"gluonnlp:t.py::a": "passed", "gluonnlp:t.py::b": "passed",
                 "gluonnlp:t.py::c": "failed"}
    ref_path = tmp_path / "ref.json"
    ref_path.write_text(json.dumps(reference))
    monkeypatch.setattr(peer_suites, "extract_suite", lambda suite, git_dir, into: into)
    monkeypatch.setattr(peer_suites, "run_suite", lambda *a: {
        "t.py::a": "passed", "t.py::b": "failed", "t.py::c": "passed"})
    code = peer_suites.main(["--gluonnlp", "unused", "--against", str(ref_path)])
    out = capsys.readouterr().out
    assert code == 1
    assert "passed in" in out and "gluonnlp:t.py::b: failed" in out
    assert "t.py::a:" not in out.split("but not here")[1]
