"""Helpers the real-browser tests share: a `streamlit run app.py` server and page waits.

``streamlit_server(env=...)`` starts the app on a free loopback port (in its own process
group, stopped afterwards) and yields a :class:`Server`: its base URL, its process and
``output()``, the server's log so far (stdout and stderr), for tests that check the log.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SERVER_START_TIMEOUT = 60  # s
RUN_TIMEOUT = 60_000  # ms: one script run of a page


@dataclass
class Server:
    url: str
    proc: subprocess.Popen
    log: Any

    def output(self, tail: int | None = 4000) -> str:
        self.log.seek(0)
        text = self.log.read().decode("utf-8", "replace")
        return text if tail is None else text[-tail:]

    def stacks(self, wait_s: float = 1.0) -> str:
        """Every thread's Python stack in the server now (for a failure message): the server
        dumps them on SIGUSR1 into its log (``faulthandler``, registered by the
        ``sitecustomize`` of ``tests/serverdiag``)."""
        before = len(self.output(tail=None))
        if self.proc.poll() is not None:
            return f"(the server has exited with code {self.proc.returncode})"
        os.kill(self.proc.pid, signal.SIGUSR1)
        time.sleep(wait_s)
        return self.output(tail=None)[before:] or "(no stacks: faulthandler not registered?)"

    def __str__(self) -> str:
        return self.url


def _pythonpath() -> str:
    """The test server's PYTHONPATH: ``tests/serverdiag`` first (its ``sitecustomize``
    registers the stack dump of :meth:`Server.stacks`), then any PYTHONPATH already set."""
    paths = [str(ROOT / "tests" / "serverdiag"), os.environ.get("PYTHONPATH", "")]
    return os.pathsep.join(p for p in paths if p)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def network_address() -> str | None:
    """This machine's address on its network (not a loopback one), or None without one. A
    UDP socket "connected" to a documentation address picks the route's source address and
    sends nothing."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("198.51.100.1", 9))
        address = s.getsockname()[0]
        if address and not address.startswith("127.") and address != "0.0.0.0":
            return address
    return None


def health(url: str) -> str | None:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
            return r.read().decode("utf-8", "replace").strip()
    except (urllib.error.URLError, OSError):
        return None


@contextlib.contextmanager
def streamlit_server(
    env: dict[str, str] | None = None,
    port: int | None = None,
    address: str = "127.0.0.1",
    script: str = "app.py",
):
    """``streamlit run app.py`` (or another ``script`` of the repository, run from its root so
    that the app's ``.streamlit/config.toml`` applies) on a free loopback port, or on ``port``
    (a server started again where a browser already has its cookies), listening on
    ``address`` (and reached there: give a network address, from :func:`network_address`, for
    a server that must see its clients' addresses -- Streamlit reports none for 127.0.0.1);
    ``env`` is added to the environment. Yields a :class:`Server`, then stops it."""
    port = free_port() if port is None else port
    url = f"http://{address}:{port}"
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        script,
        "--server.headless",
        "true",
        "--server.port",
        str(port),
        "--server.address",
        address,
        "--browser.gatherUsageStats",
        "false",
        # Pages may be edited while the suite runs; don't watch files.
        "--server.fileWatcherType",
        "none",
    ]
    log = tempfile.TemporaryFile(mode="w+b")  # noqa: SIM115 -- closed with the server; a file, not a pipe: the server never blocks on it
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
        env={**os.environ, "PYTHONPATH": _pythonpath(), **(env or {})},
    )

    server = Server(url, proc, log)
    output = server.output
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while health(url) != "ok":
            if proc.poll() is not None:
                pytest.fail(
                    f"`{' '.join(cmd)}` exited with code {proc.returncode} before "
                    f"answering {url}/_stcore/health. Its output:\n{output()}",
                    pytrace=False,
                )
            if time.monotonic() > deadline:
                pytest.fail(
                    f"{url}/_stcore/health did not answer 'ok' within "
                    f"{SERVER_START_TIMEOUT} s. Server output:\n{output()}",
                    pytrace=False,
                )
            time.sleep(0.25)
        yield server
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)  # the server's own process group only
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        log.close()


def open_app(page, server: str, path: str) -> None:
    """Load ``path`` and wait until Streamlit has finished running the page's script."""
    page.goto(server + path, wait_until="domcontentloaded")
    wait_for_run(page)


def wait_for_run(page) -> None:
    page.wait_for_selector(
        '[data-testid="stApp"][data-test-script-state="notRunning"]',
        state="attached",
        timeout=RUN_TIMEOUT,
    )


def assert_no_exception(page) -> None:
    exceptions = page.locator('[data-testid="stException"]')
    if exceptions.count():
        pytest.fail(
            f"{page.url} shows {exceptions.count()} exception(s):\n\n"
            + "\n---\n".join(exceptions.all_inner_texts()),
            pytrace=False,
        )
    body = page.inner_text("body")
    assert "Traceback" not in body, f"{page.url} shows a traceback:\n{body[:3000]}"
    assert not page.js_errors, f"JavaScript errors on {page.url}: {page.js_errors}"
