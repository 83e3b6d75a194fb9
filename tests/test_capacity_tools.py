"""What ``benchmarks/capacity.py`` computes and prints around its measurements, without a server:
the cookies a session keeps (nginx's route cookie), the nginx configuration it runs, the soak's minute by
minute summary, the comparison with the bare page, the game's buttons found by their keys'
prefixes, and its command line. No test here measures a time.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest
from benchtools import load_benchmark


@pytest.fixture(scope="module")
def capacity():
    return load_benchmark("capacity")


# --------------------------------------------------------------------------- nginx


def test_a_session_keeps_its_cookies_as_a_browser_does(capacity):
    """Behind nginx a session's process is chosen by the route cookie of its first response:
    the page's GET is answered with it, the health check must send it back (and gets the XSRF
    cookie), and both go on the websocket. A stand-in server hands out one cookie per path and
    records the Cookie header of each request."""
    seen: list[tuple[str, str]] = []

    async def serve(reader, writer):
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        path = head[0].split()[1]
        cookie = next(
            (h.split(":", 1)[1].strip() for h in head if h.lower().startswith("cookie:")), ""
        )
        seen.append((path, cookie))
        name = "route" if path == "/page" else "_streamlit_xsrf"
        writer.write(
            f"HTTP/1.1 200 OK\r\nSet-Cookie: {name}=v{len(seen)}; Path=/\r\n"
            "Content-Length: 0\r\n\r\n".encode()
        )
        await writer.drain()
        writer.close()

    async def main():
        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            status, first = await capacity.http_get("127.0.0.1", port, "/page")
            _, second = await capacity.http_get("127.0.0.1", port, "/_stcore/health", first)
        return status, first, second

    status, first, second = _run(main())
    assert status == 200 and first == {"route": "v1"} and second == {"_streamlit_xsrf": "v2"}
    assert seen == [("/page", ""), ("/_stcore/health", "route=v1")]
    assert capacity.cookie_header(first | second) == "route=v1; _streamlit_xsrf=v2"


def test_deploy_nginx_conf_is_run_with_this_runs_ports_and_paths(capacity, tmp_path):
    text = capacity.NGINX_CONF.read_text(encoding="utf-8")
    conf = capacity.nginx_config(text, [41001, 41002], 42000, tmp_path)
    assert "server 127.0.0.1:41001;" in conf and "server 127.0.0.1:41002;" in conf
    assert "127.0.0.1:8501" not in conf and "127.0.0.1:8502" not in conf
    assert "listen 127.0.0.1:42000;" in conf and "listen 80;" not in conf
    assert "/var/log" not in conf and str(tmp_path / "error.log") in conf
    assert conf.startswith(f"pid {tmp_path / 'nginx.pid'};\ndaemon off;\n")
    assert f"proxy_temp_path {tmp_path / 'proxy'};" in conf
    assert "hash $mip_explorer_route consistent;" in conf  # the sticky sessions kept
    with pytest.raises(ValueError, match="listen 80;"):
        capacity.nginx_config(text.replace("listen 80;", "listen 8080;"), [1, 2], 3, tmp_path)


# --------------------------------------------------------------------------- the soak


def test_a_soak_is_summed_up_minute_by_minute(capacity):
    # 150 s: RSS sampled every 10 s (500 MB, then 520 MB from 60 s on), the app's CPU growing
    # by 1 s every 10 s; a change answered every second, 100 ms each, 300 ms in the second minute
    samples = [(float(t), 500.0 if t < 60 else 520.0, t / 10) for t in range(0, 151, 10)]
    changes = [(float(t), 100.0 if t < 60 or t >= 120 else 300.0) for t in range(150)]
    rows = capacity.soak_minutes(samples, changes, 150.0)
    assert [r.minute for r in rows] == [1, 2, 3]
    assert [r.rss_mean for r in rows] == [500.0, 520.0, 520.0]
    assert [r.changes for r in rows] == [60, 60, 30]
    assert [r.p95 for r in rows] == [100.0, 300.0, 100.0]
    # 6 s of CPU in each whole minute for 60 changes, 3 s for the last half-minute's 30
    assert [round(r.cpu_per_change, 6) for r in rows] == [100.0, 100.0, 100.0]
    assert capacity.soak_growth(rows) == 20.0


def test_a_minutes_cpu_is_read_at_its_bounds_not_at_its_last_sample(capacity):
    """Samples every 25 s: the first minute's last one is at 50 s; the CPU of 50-60 s belongs
    to the first minute, not to the second."""
    samples = [(float(t), 100.0, t / 10) for t in (0, 25, 50, 75, 100, 120)]
    changes = [(float(t), 1.0) for t in range(120)]
    first, second = capacity.soak_minutes(samples, changes, 120.0)
    assert round(first.cpu_per_change, 6) == round(second.cpu_per_change, 6) == 100.0


def test_a_one_minute_soak_prints_one_minute(capacity, capsys):
    """The meter's last sample comes a moment after the soak's minute: it counts in that minute,
    not in a second one of its own."""
    samples = [(0.0, 100.0, 0.0), (30.0, 100.0, 3.0), (60.02, 110.0, 6.0)]
    meter = SimpleNamespace(
        samples=samples, rss_peak=110.0, server=0.1, client=0.0, per_process=[0.1], proxy=0.0
    )
    actions = [capacity.Action("page", 1000.0 + k, 50.0) for k in range(60)]
    soak = capacity.PhaseResult(4, actions, [], meter, 60.02, [], [], 0.0, "app", 1000.0)
    capacity.print_soak(soak, 1.0, 2.0, False)
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    minutes = [row for row in rows if row and row[0].isdigit()]
    assert minutes == [["1", "103", "110", "60", "50", "100.0"]]


def test_a_soak_without_samples_says_so(capacity):
    rows = capacity.soak_minutes([], [], 600.0)
    assert len(rows) == 10 and rows[0].rss_mean is None and rows[0].cpu_per_change is None
    assert capacity.soak_growth(rows) is None
    assert capacity.soak_growth([]) is None


# --------------------------------------------------------------------------- the bare page


def _phase(capacity, site, n, ms, cpu_cores, window=10.0, errors=()):
    meter = SimpleNamespace(server=cpu_cores)
    actions = [capacity.Action("page", 0.0, m) for m in ms]
    return capacity.PhaseResult(n, actions, [], meter, window, [], list(errors), 0.0, site)


def test_each_phase_is_printed_beside_the_bare_page_with_ratios(capacity, capsys):
    # the app: 100 changes in 10 s at 0.5 cores -> 50 ms each, p95 200 ms; bare: 10 ms, 40 ms
    app = _phase(capacity, "app", 10, [100.0] * 90 + [200.0] * 10, 0.5)
    bare = _phase(capacity, "bare page", 10, [20.0] * 90 + [40.0] * 10, 0.1)
    assert capacity.cpu_per_change(app.meter, app.window, 100) == 50.0
    capacity.print_against_bare([("sessions, N = 10", app, bare), ("no anchor", app, None)])
    out = capsys.readouterr().out
    (row,) = [line for line in out.splitlines() if line.startswith("sessions, N = 10")]
    assert row.split() == [
        "sessions,", "N", "=", "10", "200", "40", "5.0×", "50.0", "10.0", "5.0×", "NOT", "met"
    ]  # fmt: skip
    assert "no anchor" not in out


def test_without_a_bare_phase_nothing_is_compared(capacity, capsys):
    app = _phase(capacity, "app", 10, [100.0], 0.5)
    capacity.print_against_bare([("sessions, N = 10", app, None)])
    assert capsys.readouterr().out == ""
    assert capacity.ratio(1.0, 0.0) is None and capacity.fmt_ratio(None) == "-"


# --------------------------------------------------------------------------- the game's buttons


def _session_with(capacity, *keys):
    s = capacity.Session("http://127.0.0.1:1", "play_attacker")
    for i, key in enumerate(keys):
        wid = f"$$ID-{i:032x}-{key}"
        s.widgets[wid] = capacity.Widget(wid, "button", "frag", None, None)
    return s


@pytest.mark.parametrize("suffix", ["", "_r3"])
def test_in_and_out_are_found_by_their_keys_prefix(capacity, suffix):
    s = _session_with(capacity, f"play_in{suffix}", f"play_out{suffix}", "play_info", "play_new")
    yes, no = capacity.round_buttons(s)
    assert capacity.user_key(yes.id) == f"play_in{suffix}"
    assert capacity.user_key(no.id) == f"play_out{suffix}"
    assert capacity.round_buttons(_session_with(capacity, "play_info", "play_new_game")) is None
    assert capacity.user_key("$$ID-0a1b-None") == "None"


def test_an_answer_presses_the_rounds_in_or_out_button(capacity):
    import random

    s = _session_with(capacity, "play_in_r7", "play_out_r7")
    asked = []

    async def rerun(fragment_id="", extra=None, timeout=0.0):
        asked.append((fragment_id, capacity.user_key(extra.id), extra.trigger_value))
        return None

    s.rerun = rerun
    for seed in range(6):
        _run(capacity.answer_round(s, random.Random(seed)))
    assert {key for _, key, _ in asked} == {"play_in_r7", "play_out_r7"}
    assert all(frag == "frag" and trigger for frag, _, trigger in asked)
    with pytest.raises(capacity.SessionError, match="neither a round nor a new game"):
        _run(capacity.answer_round(_session_with(capacity, "other"), random.Random(0)))


def _run(coroutine):
    """``asyncio.run`` in a thread of its own: in a worker that also drives a browser,
    Playwright's sync API keeps an event loop running in this thread, and asyncio.run() refuses
    to start a second one."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


# --------------------------------------------------------------------------- the command line


def test_the_command_line(capacity):
    args = capacity.parse_args(["--proxy", "--quick"])
    assert args.proxy and args.sessions == capacity.QUICK_SESSIONS and args.soak is None
    soak = capacity.parse_args(["--soak", "10"])
    assert soak.soak == 10 and soak.sessions == (capacity.SOAK_SESSIONS,)
    assert capacity.parse_args(["--soak", "2", "--sessions", "5"]).sessions == (5,)
    with pytest.raises(SystemExit):
        capacity.parse_args(["--soak", "10", "--sessions", "10,20"])
    with pytest.raises(SystemExit):
        capacity.parse_args(["--soak", "0"])
