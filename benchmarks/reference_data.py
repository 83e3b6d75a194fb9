"""How long does the reference-data page take to settle after each kind of control change?

Serves the app (``streamlit run app.py``, timed by ``instrumented_server.py --run-times``) and
``bare_page.py`` on two local servers started by this run, opens the page "Can a defense look
private while its reference data leak?" (``/reference_data``) in Debian's Chromium
(``/usr/bin/chromium``, through Playwright, 1024×768) and changes each of its controls several
times, one at a time. For every change it prints the time from the change (key press or
click) until the page has settled -- the same "settled" as ``browser.py``: the request left,
a script run that started after it finished, then no DOM mutation and no message for 150 ms
(not counted) -- as median and max, and their ratio to the target of 2 s.

The controls, by what a change costs:

* **view**: the three selection-rule thresholds, the attack, the training-only toggle (they
  re-read the sweep); the theory's ε₀ and N_T/N_R sliders and its privacy axis (Figure 2,
  which has nothing to do with the sweep);
* **data, new**: the first seed or the class separation moved to a value never used in this
  run: a new sweep of the default's size, in its own process (``appkit.jobs``, the quick lane);
* **data, larger**: features, N_T or seeds one step up: a new sweep larger than the default's,
  which ``appkit.jobs`` runs in the long lane, at a lower CPU priority (``nice``);
* **data, again**: the same control one step back, to a setting already swept (the sweep is
  cached: computed once per data setting).

Each round changes every control once, in this order, so the larger settings are left again
before the next control: the seed and separation changes stay at the default's size.

For each data change it also notes whether the page showed a progress bar while it waited.
Each kind's times are also split into the server's script run(s) answering it and the rest
(the browser drawing, Streamlit's own work). The bare page's press is measured in the same
rounds as a yardstick for the machine's load, which is printed too (``/proc/loadavg``) at
the start and the end: on a busy machine absolute times can triple.

Before the browser, **the sweep's floor**, in this process with the ``--root`` checkout's
``mipcore`` (a subprocess): for a few data settings, the sweep the page asks for
(``run_sweep``) in wall and CPU seconds, split into what no change can remove without
changing the result -- generating the data (``make_splits``) and the 55 L-BFGS fits
(``_fit_werm``), timed alone -- and the rest (the attacks, the intervals, the tables); and
the same sweep through ``appkit.jobs.run``, as the page runs it (its own process). A data
change cannot settle faster than its data and fits take on this machine at this load.

This script only reports: it never asserts and always exits 0.

    python benchmarks/reference_data.py [--root PATH] [--repeats 5] [--quick] [--no-floor]

``--quick``: 2 changes per control and fewer controls (a few of each kind), the floor of the
default setting only; a few minutes on a busy machine. ``--no-floor``: the browser part only.
``--root``: another checkout to serve (e.g. an older one, for before/after).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGET_MS = 2000.0
PAGE_PATH = "/reference_data"
# A data change runs a sweep: allow it the longest a near-ceiling sweep takes on a busy machine.
DATA_TIMEOUT_MS = 180_000


def _browser_module():
    """``benchmarks/browser.py`` (its server, probe and settle logic), loaded by path."""
    name = "mipb_browser"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, HERE / "browser.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses need the module registered
    spec.loader.exec_module(module)
    return module


B = _browser_module()

# Seen by the page itself: a progress bar was on screen since the last arm (a data change).
PROGRESS_PROBE_JS = r"""
(() => {
  if (window.__refprog) return;
  const P = { seen: false };
  window.__refprog = P;
  setInterval(() => {
    if (document.querySelector('[data-testid="stMain"] [data-testid="stProgress"]')) P.seen = true;
  }, 40);
})();
"""


@dataclass(frozen=True)
class Control:
    """One control of the page, found by its widget key (Streamlit's ``st-key-<key>`` class).

    ``widget``: "slider" (arrow keys), "radio" (click the next option), "toggle" (click),
    "number_up" (the number input's + button). ``pattern``: for a slider, the keys pressed in
    turn ("RL": alternate, "R": always right -- a value never used before).
    """

    kind: str
    key: str
    name: str
    widget: str
    pattern: str = "RL"
    quick: bool = False


CONTROLS = (
    Control("view", "t_train", "threshold, attack on D_T", "slider", quick=True),
    Control("view", "t_gap", "threshold, attack gap", "slider"),
    Control("view", "t_ref", "threshold, attack on D_R", "slider"),
    Control("view", "attack", "attack (radio)", "radio", quick=True),
    Control("view", "train_only", "training-only toggle", "toggle"),
    Control("view", "eps0", "theory: ε₀", "slider", quick=True),
    Control("view", "ratio", "theory: N_T/N_R", "slider"),
    Control("view", "unit", "theory: privacy axis (radio)", "radio"),
    Control("data, new", "seed", "first seed (+)", "number_up", quick=True),
    Control("data, new", "sep", "class separation (+0.1)", "slider", "R", quick=True),
    Control("data, larger", "d", "features (+10)", "slider", "R", quick=True),
    Control("data, again", "d", "features, back (swept)", "slider", "L", quick=True),
    Control("data, larger", "nt", "N_T, training records (+100)", "slider", "R"),
    Control("data, again", "nt", "N_T, back (swept)", "slider", "L"),
    Control("data, larger", "seeds", "seeds (+1)", "slider", "R"),
    Control("data, again", "seeds", "seeds, back (swept)", "slider", "L"),
)


@dataclass
class Samples:
    control: Control
    ms: list[float] = field(default_factory=list)
    script_ms: list[float] = field(default_factory=list)  # the server's runs answering it
    progress: list[bool] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def locate(page, c: Control):
    """The element a change of ``c`` operates on (a slider's thumb, a radio, a toggle, a button)."""
    box = page.locator(f'[data-testid="stMain"] .st-key-{c.key}')
    if c.widget == "slider":
        return box.locator(B.SLIDER_INPUT).first
    if c.widget == "radio":
        return box.locator('[role="radiogroup"]').first
    if c.widget == "toggle":
        return box.locator("label").first
    if c.widget == "number_up":
        return box.locator('[data-testid="stNumberInputStepUp"]').first
    raise ValueError(f"widget={c.widget!r}")


def change(page, c: Control, step: int, timeout_ms: float) -> tuple[float, bool]:
    """Change ``c`` once (its ``step``-th change) and wait until the page has settled.

    Returns (ms from the change to settled, whether a progress bar was seen meanwhile)."""
    el = locate(page, c)
    el.scroll_into_view_if_needed()
    page.evaluate(
        "el => { window.__mipb.arm(el); window.__refprog.seen = false; }", el.element_handle()
    )
    action = c.widget != "slider"
    if c.widget == "slider":
        el.focus()
        key = c.pattern[step % len(c.pattern)]
        page.keyboard.press("ArrowRight" if key == "R" else "ArrowLeft")
    elif c.widget == "radio":
        options = el.locator('label:has(input[type="radio"])')
        n = options.count()
        checked = next((i for i in range(n) if options.nth(i).locator("input").is_checked()), 0)
        options.nth((checked + 1) % n).click()
    else:
        el.click()
    try:
        result = page.wait_for_function(
            B.WAIT_SETTLED, arg=[B.QUIET_MS, action], polling=20, timeout=timeout_ms
        ).json_value()
    except Exception as exc:
        why = page.evaluate(B.WHY_NOT, [B.QUIET_MS, action])
        raise RuntimeError(f"not settled: {why.get('why') if why else exc}") from None
    if result.get("exceptions"):
        raise RuntimeError("the page shows an exception")
    if not action and not result.get("moved"):
        raise RuntimeError("the slider did not move (at its end?)")
    return float(result["ms"]), bool(page.evaluate("() => window.__refprog.seen"))


def measure(page, runs, s: Samples, step: int) -> None:
    """One timed change of ``s.control``, noted in ``s`` (or its error)."""
    timeout = DATA_TIMEOUT_MS if s.control.kind.startswith("data") else 60_000
    try:
        mark = runs.mark()
        ms, prog = change(page, s.control, step, timeout)
        s.ms.append(ms)
        s.progress.append(prog)
        walls = runs.walls_since(mark)
        if walls:
            s.script_ms.append(sum(walls))
    except Exception as exc:
        s.errors.append(B.short_error(exc))


# --------------------------------------------------------------------------- the floor

# (name, LeakConfig fields): the page's default, and settings near the work ceiling
FLOOR_SETTINGS = (
    ("default (600 + 600 records, 300 features)", {}),
    ("class separation 0.2", {"class_sep": 0.2}),
    ("1000 features", {"n_features": 1000}),
    ("3000 + 3000 records", {"n_train": 3000, "n_ref": 3000}),
)


def python_floor(root: Path, quick: bool, repeats: int) -> None:
    """Print the floor table, measured in a subprocess that imports ``root``'s mipcore."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--floor-only", "--root", str(root)]
    cmd += ["--quick"] if quick else []
    cmd += ["--floor-repeats", str(repeats)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, check=False)
    except subprocess.TimeoutExpired:
        print("floor: not measured (over 30 minutes)")
        return
    print(out.stdout.rstrip())
    if out.returncode != 0:
        print("floor: failed --", (out.stderr.strip().splitlines() or ["?"])[-1][:200])


def floor_only(root: Path, quick: bool, repeats: int) -> None:
    """The floor table (runs with ``root`` first on ``sys.path``)."""
    sys.path.insert(0, str(root))
    import dataclasses
    import warnings

    warnings.simplefilter("ignore")  # convergence warnings of overlapping classes
    import logging

    import appkit.jobs

    logging.getLogger("streamlit").setLevel(logging.ERROR)  # "no ScriptRunContext" per poll
    from mipcore.experiments import reference_sweep as rl

    def clock(fn):
        c, w = time.process_time(), time.perf_counter()
        value = fn()
        return value, time.perf_counter() - w, time.process_time() - c

    def floor_parts(cfg) -> tuple[float, float, float, float]:
        """(data wall, data CPU, fits wall, fits CPU) of one sweep's irreducible part."""
        dw = dc = fw = fc = 0.0
        with rl._one_blas_thread():
            for rep in range(cfg.n_seeds):
                splits, w_, c_ = clock(lambda rep=rep: rl.make_splits(cfg, rep))
                dw, dc = dw + w_, dc + c_
                train, ref = splits.train, splits.reference
                for w in cfg.weights:
                    c0, w0 = time.process_time(), time.perf_counter()
                    rl._fit(
                        train,
                        ref,
                        w,
                        cfg.model,
                        cfg.l2,
                        cfg.tol,
                        cfg.max_iter,
                        cfg.hidden_layer_sizes,
                        rep,
                    )
                    w_, c_ = time.perf_counter() - w0, time.process_time() - c0
                    fw, fc = fw + w_, fc + c_
        return dw, dc, fw, fc

    rl.run_sweep(rl.LeakConfig(n_seeds=1, weights=(0.0, 1.0)))  # imports, BLAS
    # the job server (a fork server) starts with the first job: not counted
    appkit.jobs.run(rl.run_sweep, rl.LeakConfig(n_seeds=1, weights=(0.0, 1.0), seed=99))
    settings = FLOOR_SETTINGS[:1] if quick else FLOOR_SETTINGS
    print(
        f"\nThe sweep's floor ({root}'s mipcore; median of {repeats} runs each, seconds; "
        f"load {loadavg()}):"
    )
    print(
        f"{'data setting':<44} {'sweep wall':>10} {'CPU':>6} {'data+fits wall':>14} {'CPU':>6} "
        f"{'rest CPU':>8} {'in a job':>8} {'floor/2s':>8}"
    )
    for name, fields in settings:
        rows = []
        for r in range(repeats):
            cfg = dataclasses.replace(rl.LeakConfig(), seed=1000 + r, **fields)
            _, sw, sc = clock(lambda cfg=cfg: rl.run_sweep(cfg))
            dw, dc, fw, fc = floor_parts(cfg)
            job_cfg = dataclasses.replace(cfg, seed=2000 + r)  # never a cache hit
            _, jw, _ = clock(lambda c=job_cfg: appkit.jobs.run(rl.run_sweep, c, label="floor"))
            rows.append((sw, sc, dw + fw, dc + fc, sc - dc - fc, jw))
        med = [statistics.median(col) for col in zip(*rows, strict=True)]
        print(
            f"{name:<44} {med[0]:>10.2f} {med[1]:>6.2f} {med[2]:>14.2f} {med[3]:>6.2f} "
            f"{med[4]:>8.2f} {med[5]:>8.2f} {med[2] / 2:>7.2f}x"
        )
    print(
        "data+fits: make_splits and the 11 x 5 L-BFGS fits alone (the rest: attacks, intervals, "
        "tables, verdicts);\n'in a job': the same sweep through appkit.jobs.run, as the page "
        "runs it. CPU seconds are this process's."
    )


def fmt(ms: float | None) -> str:
    return "-" if ms is None else f"{ms:,.0f}"


def report(samples: list[Samples], bare: list[float], args, seconds: float, loads: tuple) -> None:
    print(
        f"\n{'kind':<12} {'control':<34} {'n':>2} {'median ms':>10} {'max ms':>9} "
        f"{'median/2s':>9} {'max/2s':>7} {'script ms':>10} {'progress':>9}  result"
    )
    worst: dict[str, float] = {}
    for s in samples:
        med = statistics.median(s.ms) if s.ms else None
        mx = max(s.ms) if s.ms else None
        script = statistics.median(s.script_ms) if s.script_ms else None
        prog = f"{sum(s.progress)}/{len(s.progress)}" if s.control.kind != "view" else ""
        verdict = (
            "not measured"
            if med is None
            else "within 2 s"
            if mx is not None and mx <= TARGET_MS
            else "median within, max over"
            if med <= TARGET_MS
            else "OVER"
        )
        if s.errors:
            verdict += f" ({len(s.errors)} failed: {s.errors[-1][:60]})"
        print(
            f"{s.control.kind:<12} {s.control.name:<34} {len(s.ms):>2} {fmt(med):>10} "
            f"{fmt(mx):>9} {'-' if med is None else f'{med / TARGET_MS:.2f}x':>9} "
            f"{'-' if mx is None else f'{mx / TARGET_MS:.2f}x':>7} {fmt(script):>10} "
            f"{prog:>9}  {verdict}"
        )
        if mx is not None:
            worst[s.control.kind] = max(worst.get(s.control.kind, 0.0), mx)
    bmed = statistics.median(bare) if bare else None
    print(
        f"\nbare page (one slider), press -> settled: median {fmt(bmed)} ms, max "
        f"{fmt(max(bare) if bare else None)} ms over {len(bare)} presses (the machine's yardstick)"
    )
    for kind, mx in worst.items():
        print(f"  slowest {kind}: {mx / 1000:.2f} s = {mx / TARGET_MS:.2f}x the 2 s target")
    print(
        f"\nTarget: settled <= {TARGET_MS / 1000:g} s after a control change. {args.repeats} "
        f"change(s) per control, round-robin over the controls; 'script ms' is the median of the\n"
        "server's script run(s) answering a change (timed inside the server; the rest is the "
        "browser and Streamlit); 'progress' counts the data changes during which a progress\n"
        "bar was on screen. Settled = request sent, a script run started after it finished, "
        f"then no DOM mutation and no message for {B.QUIET_MS} ms (not counted)."
    )
    print(
        f"Load average (1, 5, 15 min) at the start: {loads[0]}; at the end: {loads[1]} "
        f"(this machine has {os.cpu_count()} cores). Run time {seconds:.0f} s."
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=HERE.parent, help="app checkout to serve")
    parser.add_argument("--repeats", "-k", type=int, default=5, help="changes per control")
    parser.add_argument("--quick", action="store_true", help="2 changes of 7 controls")
    parser.add_argument("--no-floor", action="store_true", help="skip the sweep's floor")
    parser.add_argument(
        "--floor-repeats", type=int, default=2, help="sweeps per data setting in the floor"
    )
    parser.add_argument("--floor-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quick:
        args.repeats = min(args.repeats, 2)
    if args.floor_only:
        floor_only(args.root.resolve(), args.quick, args.floor_repeats)
        return 0
    B.exit_on_sigterm()
    started = time.monotonic()
    load_start = loadavg()
    root = args.root.resolve()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("playwright is not installed (requirements-dev.txt); nothing measured.")
        return 0
    if not os.access(B.CHROMIUM, os.X_OK):
        print(f"no Chromium at {B.CHROMIUM}; nothing measured.")
        return 0
    if not args.no_floor:
        B.progress("the sweep's floor…")
        python_floor(root, args.quick, 1 if args.quick else args.floor_repeats)
    controls = [c for c in CONTROLS if c.quick or not args.quick]
    samples = [Samples(c) for c in controls]
    bare_ms: list[float] = []
    print(f"Reference-data page: {root}; Chromium {B.CHROMIUM}, 1024x768.")
    try:
        with (
            tempfile.TemporaryDirectory(prefix="mipb-ref-") as scratch,
            B.Server(root, "app.py", launcher=B.timed(Path(scratch) / "app.log")) as app,
            B.Server(root, B.bare_page_for(root)) as bare_server,
            sync_playwright() as pw,
        ):
            runs = B.RunLog(Path(scratch) / "app.log")
            browser = pw.chromium.launch(executable_path=B.CHROMIUM, args=B.CHROMIUM_ARGS)
            try:
                viewport = {"width": 1024, "height": 768}
                ctx = browser.new_context(viewport=viewport)
                ctx.add_init_script(B.PROBE_JS)
                ctx.add_init_script(PROGRESS_PROBE_JS)
                t0 = time.perf_counter()
                B.progress("opening the page (its first load runs the default sweep)…")
                page, _ = B.open_settled(ctx, app.url + PAGE_PATH, timeout_ms=DATA_TIMEOUT_MS)
                print(f"first load (default sweep included): {time.perf_counter() - t0:.1f} s")
                bctx = browser.new_context(viewport=viewport)
                bctx.add_init_script(B.PROBE_JS)
                bpage, _ = B.open_settled(bctx, bare_server.url + "/")
                binfo = B.slider_info(bpage)
                bkey = "ArrowRight"
                for rnd in range(args.repeats):
                    B.progress(f"round {rnd + 1} of {args.repeats}…")
                    for s in samples:
                        measure(page, runs, s, rnd)
                    with contextlib.suppress(Exception):
                        bare_ms.append(B.press_and_settle(bpage, binfo, bkey).ms)
                    bkey = B.flip(bkey)
            finally:
                browser.close()
    except KeyboardInterrupt:
        print("interrupted; servers stopped. What was measured until then:")
    except Exception as exc:
        print(f"benchmark aborted: {B.short_error(exc)}. What was measured until then:")
    report(samples, bare_ms, args, time.monotonic() - started, (load_start, loadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
