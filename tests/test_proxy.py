"""Two app processes, one PostgreSQL, behind Debian's nginx running ``deploy/nginx.conf``.

* A teacher starts a class on process 1; a student opens the join link on process 2, joins and
  answers 3 rounds; the teacher's dashboard (refreshing every 2 s) shows 1 player and 3 guesses:
  the class lives in the shared database, not in a process.
* Through nginx (the example configuration of docs/deploy.md, ports and paths replaced): the page loads,
  its websocket connects (the page renders its title), a student joins the same class and
  answers a round, and ``/_stcore/metrics`` is denied.

* One browser, one process; a class behind one address, both: nginx keys its upstream on a
  cookie of its own (``mip_explorer_route``, given on a browser's first request), not on the
  client's address, so every request of a browser that keeps its cookie reaches one process,
  and fresh browsers from one address (127.0.0.1 here, a school's NAT in a lecture hall) reach
  both. The test's copy of the file names the upstream in a response header.

The cross-process part of the class test goes to process 2 directly (which process nginx picks
for a browser is random). Needs ``nginx`` and MIP_EXPLORER_TEST_POSTGRES_URL (``.ci/postgres``): skips
without them, fails under ``CI=true``. The class tables live in a schema of this module's own,
dropped afterwards.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest
from browsertools import RUN_TIMEOUT, assert_no_exception, free_port, open_app, streamlit_server
from classtools import PAGE, join_and_answer, start_class, wait_metric

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.postgres, pytest.mark.proxy]

ROOT = Path(__file__).resolve().parents[1]
NGINX_CONF = ROOT / "deploy" / "nginx.conf"
POSTGRES_URL = os.environ.get("MIP_EXPLORER_TEST_POSTGRES_URL", "").strip()
IN_CI = os.environ.get("CI") == "true"


def _unavailable(reason: str):
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: the proxy test must run)", pytrace=False)
    pytest.skip(reason)


def _nginx() -> str:
    path = shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/sbin/nginx") if os.access(p, os.X_OK)), None
    )
    if not path:
        _unavailable("nginx is not installed (Debian: apt-get install nginx; .ci/run does)")
    return path


@pytest.fixture(scope="module")
def database_url():
    """The test PostgreSQL, in a fresh schema (the store creates its tables on first use)."""
    if not POSTGRES_URL:
        _unavailable(
            "MIP_EXPLORER_TEST_POSTGRES_URL is not set: the proxy test needs a PostgreSQL "
            "(.ci/run starts one; by hand: bash -c 'source .ci/postgres && python -m pytest ...')"
        )
    import sqlalchemy as sa

    url = sa.make_url(POSTGRES_URL)
    if url.drivername in ("postgresql", "postgres"):
        url = url.set(drivername="postgresql+psycopg")
    admin = sa.create_engine(url, connect_args={"connect_timeout": 5})
    schema = f"test_proxy_{uuid.uuid4().hex[:12]}"
    try:
        with admin.begin() as conn:
            conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    except sa.exc.OperationalError as exc:
        pytest.fail(f"the test PostgreSQL cannot be reached: {exc.orig}", pytrace=False)
    scoped = url.update_query_dict({"options": f"-csearch_path={schema}"})
    yield scoped.render_as_string(hide_password=False)
    with admin.begin() as conn:
        conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
    admin.dispose()


def _replace(text: str, old: str, new: str) -> str:
    assert old in text, f"deploy/nginx.conf no longer contains {old!r}: update the test"
    return text.replace(old, new)


@contextlib.contextmanager
def nginx_proxy(upstreams: list[int], tmp: Path):
    """Debian's nginx on a free port, running deploy/nginx.conf with the upstream ports and
    its pid, log and temporary paths moved into ``tmp``; stopped afterwards."""
    nginx = _nginx()
    port = free_port()
    conf = NGINX_CONF.read_text(encoding="utf-8")
    conf = _replace(conf, "server 127.0.0.1:8501;", f"server 127.0.0.1:{upstreams[0]};")
    conf = _replace(conf, "server 127.0.0.1:8502;", f"server 127.0.0.1:{upstreams[1]};")
    conf = _replace(conf, "listen 80;", f"listen 127.0.0.1:{port};")
    # which upstream answered, for the test of sticky sessions (beside the cookie's header:
    # a location's own add_header would hide the server's)
    conf = _replace(
        conf,
        "add_header Set-Cookie $mip_explorer_route_cookie;",
        "add_header Set-Cookie $mip_explorer_route_cookie;\n"
        "        add_header X-Upstream $upstream_addr always;",
    )
    conf = _replace(conf, "/var/log/nginx/mip-explorer.error.log", str(tmp / "error.log"))
    conf = _replace(conf, "/var/log/nginx/mip-explorer.access.log", str(tmp / "access.log"))
    temp_paths = "".join(
        f"    {kind}_temp_path {tmp / kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    conf = _replace(conf, "http {\n", "http {\n" + temp_paths)
    conf = f"pid {tmp / 'nginx.pid'};\ndaemon off;\n" + conf
    (tmp / "nginx.conf").write_text(conf, encoding="utf-8")
    log = tmp / "nginx.out"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [nginx, "-p", str(tmp), "-c", str(tmp / "nginx.conf")],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"

    def output() -> str:
        texts = [p.read_text("utf-8", "replace") for p in (log, tmp / "error.log") if p.exists()]
        return "\n".join(texts)[-4000:]

    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.read().decode().strip() == "ok":
                        break
            except (urllib.error.URLError, OSError):
                pass
            if proc.poll() is not None:
                pytest.fail(f"nginx exited with code {proc.returncode}:\n{output()}", pytrace=False)
            if time.monotonic() > deadline:
                pytest.fail(f"nginx on {url} did not pass /_stcore/health:\n{output()}")
            time.sleep(0.2)
        yield url
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)  # nginx's own process group only
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


@pytest.fixture(scope="module")
def servers(chromium_path, database_url, tmp_path_factory):
    """(process 1's URL, process 2's URL, nginx's URL)."""
    _nginx()  # skip (or fail) before starting anything
    env = {"MIP_EXPLORER_DATABASE_URL": database_url}
    with (
        streamlit_server(env=env) as one,
        streamlit_server(env=env) as two,
        nginx_proxy(
            [int(one.url.rsplit(":", 1)[1]), int(two.url.rsplit(":", 1)[1])],
            tmp_path_factory.mktemp("nginx"),
        ) as proxy,
    ):
        yield one.url, two.url, proxy


# --------------------------------------------------------------------------- tests


def test_nginx_denies_metrics(servers):
    _one, _two, proxy = servers
    with pytest.raises(urllib.error.HTTPError) as denied:
        urllib.request.urlopen(f"{proxy}/_stcore/metrics", timeout=5)
    assert denied.value.code == 403


def _get(url: str, cookie: str | None = None) -> tuple[str, str | None]:
    """(the upstream that answered, the route cookie nginx gave, if any)."""
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    with urllib.request.urlopen(request, timeout=10) as r:
        r.read()
        given = [
            c.split(";", 1)[0]
            for c in r.headers.get_all("Set-Cookie") or []
            if c.startswith("mip_explorer_route=")
        ]
        return r.headers["X-Upstream"], (given[0] if given else None)


def test_one_browser_reaches_one_process_and_a_class_behind_one_address_both(servers):
    one, two, proxy = servers
    upstreams = {u.removeprefix("http://") for u in (one, two)}
    first, cookie = _get(proxy + PAGE)
    assert first in upstreams
    assert cookie is not None and re.fullmatch(r"mip_explorer_route=[0-9a-f]{32}", cookie)
    # the same browser (its cookie kept): the same process for the page, the health check
    # the frontend makes before its websocket, and a reload; no second cookie
    for path in ("/_stcore/health", PAGE, "/", "/_stcore/health", f"{PAGE}?rounds=5"):
        assert _get(proxy + path, cookie) == (first, None)
    # 24 fresh browsers, all from 127.0.0.1: both processes serve some of them (each fresh
    # browser's process is a fair coin: all 24 on one side has probability 2 * 2^-24)
    fresh = [_get(f"{proxy}/_stcore/health") for _ in range(24)]
    assert all(c is not None for _, c in fresh)
    assert len({c for _, c in fresh}) == 24
    assert {u for u, _ in fresh} == upstreams


def test_a_class_spans_two_processes_and_nginx(servers, new_page):
    one, two, proxy = servers
    teacher = new_page()
    code = start_class(teacher, one)

    # A student on the other process: the class is in the shared database.
    join_and_answer(new_page(), two, code, "Ada", rounds=3)
    wait_metric(teacher, "Players", "1")
    wait_metric(teacher, "Guesses so far", "3")

    # Through nginx: the page loads, its websocket connects (the title renders), a student
    # joins and answers a round.
    student = new_page()
    open_app(student, proxy, PAGE)
    student.get_by_role("heading", name=re.compile("Play the attacker")).first.wait_for(
        timeout=RUN_TIMEOUT
    )
    join_and_answer(student, proxy, code, "Grace", rounds=1)
    wait_metric(teacher, "Players", "2")
    wait_metric(teacher, "Guesses so far", "4")
    assert_no_exception(teacher)
