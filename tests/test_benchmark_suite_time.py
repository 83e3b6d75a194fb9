"""``benchmarks/suite_time.py``: its plugin counts the AppTest runs of each test, so a test is
put in the right kind, and its report splits the time by kind.

Its floor ("the 'numbers' tests alone take …") is only a floor if a test that runs the app
is never counted as one that checks numbers; this runs the plugin on a small test file in a
pytest of its own and checks what it wrote. No time is asserted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import suite_time  # noqa: E402 -- a script of benchmarks/, not a package

TESTS = textwrap.dedent(
    """\
    import pytest
    from streamlit.testing.v1 import AppTest

    def test_numbers():
        assert sum(range(10)) == 45

    def test_two_runs():
        at = AppTest.from_string("import streamlit as st\\nst.write('hi')").run()
        at.run()
        assert not at.exception

    @pytest.mark.slow
    def test_slow():
        pass
    """
)


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("suite")
    (tmp / "test_sample.py").write_text(TESTS, encoding="utf-8")
    prefix = tmp / "times"
    env = dict(os.environ, **{suite_time.OUT: str(prefix)})
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "benchmarks"), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "suite_time", "-p",
         "no:cacheprovider", "-o", "addopts=", "-W", "ignore", "test_sample.py"],
        cwd=tmp, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    files = list(tmp.glob("times.*"))
    assert len(files) == 1
    return {
        r["id"].split("::")[1]: r
        for r in map(json.loads, files[0].read_text(encoding="utf-8").splitlines())
    }


def test_each_test_is_timed_with_its_apptest_runs(rows):
    assert set(rows) == {"test_numbers", "test_two_runs", "test_slow"}
    assert rows["test_numbers"]["runs"] == 0
    assert rows["test_two_runs"]["runs"] == 2
    assert 0 < rows["test_two_runs"]["in_runs"] <= rows["test_two_runs"]["seconds"]
    assert [suite_time._kind(rows[n]) for n in ("test_numbers", "test_two_runs", "test_slow")] == [
        "numbers",
        "AppTest",
        "slow",
    ]
    browser = dict(rows["test_two_runs"], markers=["browser"])
    assert suite_time._kind(browser) == "browser"  # a browser test may also run AppTest


def test_the_report_splits_the_time_by_kind(rows, capsys):
    suite_time.report(list(rows.values()), wall=1.0, workers=1)
    out = capsys.readouterr().out
    assert "3 tests" in out
    assert "AppTest: 2 runs" in out
    numbers = rows["test_numbers"]["seconds"]
    assert f"the 'numbers' tests alone take {numbers:.0f} s" in out
