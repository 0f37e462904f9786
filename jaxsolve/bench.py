"""``jaxsolve bench``: time the solves of every game on the visible backends.

Each case runs twice in this process: the first run includes compiling, the second is warm.
Compile time is the solver's own figure where it reports one, else first minus warm. Peak
memory is the device's ``peak_bytes_in_use`` where the backend reports it (GPU), else the
process's resident high-water mark so far (CPU; cumulative over the cases run before).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import os
import platform
import time
from pathlib import Path
from typing import Callable

import jax

from jaxsolve.core.runtime import peak_memory
from jaxsolve.errors import JaxsolveError


@dataclasses.dataclass
class Case:
    game: str
    variant: str
    backend: str
    dtype: str
    devices: int
    run: Callable[[], tuple[float, float | None]]  # -> (result value, compile seconds or None)


def machine() -> dict:
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next((ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")), cpu)
    except OSError:
        pass
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
        "jax": jax.__version__,
        "devices": [str(d) for d in jax.devices()],
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }


def cases(quick: bool = False, backends=None) -> list[Case]:
    """Every (game, variant, dtype, device count) to time on each backend, from the registry:
    each game's ``small`` rules with ``quick``, else its ``bench_presets``, plus the game's own
    extra cases (``bench_extra``: e.g. the transition operators and the score distribution of
    a category game)."""
    from jaxsolve import games

    out = []
    backends = backends or sorted({d.platform for d in jax.devices()})
    dtypes = ["float64"] if quick else ["float32", "float64"]
    for backend in backends:
        devs = jax.devices(backend)
        for dt in dtypes:
            for game in games.games():
                variants = [game.small()] if quick else [game.get_rules(name) for name in game.bench_presets or (game.default,)]
                for rules in variants:

                    def run(game=game, rules=rules, dt=dt, dev=devs[0]):
                        sol = game.solve(rules, dtype=dt, device=dev)
                        return float(sol.game_value), getattr(sol, "compile_seconds", None)

                    out.append(Case(game.name, rules.name, backend, dt, 1, run))
                    if game.bench_extra is not None:
                        out += [Case(game.name, label, backend, dt, n, fn) for label, n, fn in game.bench_extra(rules, quick, dt, devs)]
    return out


def _first_runs(cases, only: str | None):
    """``(case, value, compile seconds or None, first-run seconds)`` of every case whose game
    contains ``only`` (every case without it), each run once and timed."""
    for case in cases:
        if only and only not in case.game:
            continue
        t0 = time.perf_counter()
        value, compile_s = case.run()
        yield case, value, compile_s, time.perf_counter() - t0


def run_bench(quick: bool = False, backends=None, only: str | None = None, progress=None) -> dict:
    """Time every case; returns ``{"machine": ..., "rows": [...]}``."""
    jax.config.update("jax_enable_x64", True)
    rows = []
    for case, value, compile_s, first in _first_runs(cases(quick, backends), only):
        t0 = time.perf_counter()
        value, _ = case.run()
        warm = time.perf_counter() - t0
        peak, peak_kind = peak_memory(jax.devices(case.backend)[0])
        row = {
            "game": case.game, "variant": case.variant, "backend": case.backend, "dtype": case.dtype,
            "devices": case.devices, "compile_s": round(compile_s if compile_s else max(first - warm, 0.0), 3),
            "first_s": round(first, 3), "warm_s": round(warm, 3), "peak_mib": round(peak, 1), "peak_kind": peak_kind,
            "device": str(jax.devices(case.backend)[0]), "result": value,
        }
        rows.append(row)
        if progress:
            progress(row)
    if not rows:
        raise JaxsolveError(f"no benchmark case matches {only!r}")
    return {"machine": machine(), "quick": quick, "rows": rows}


SUITES = ("quick", "full")
REPEAT_BELOW_S = 60.0  # a suite case whose first run takes longer is not run a second time


def suite_cases(suite: str, backend: str) -> list[Case]:
    """The cases of ``jaxsolve bench --suite``: every registered game's solve in its own
    precision (``Game.precision``) -- its ``small`` rules for ``quick``, else its
    ``bench_presets`` -- and the game's own suite cases (``Game.bench_suite``: e.g. a score
    distribution, saved throws). A game joins the suite by its registration alone."""
    from jaxsolve import games

    if suite not in SUITES:
        raise JaxsolveError(f"unknown suite {suite!r}; choose one of {', '.join(SUITES)}")
    quick = suite == "quick"
    dev = jax.devices(backend)[0]
    out = []
    for game in games.games():
        dt = game.precision
        variants = [game.small()] if quick else [game.get_rules(name) for name in game.bench_presets or (game.default,)]
        for rules in variants:

            def run(game=game, rules=rules, dt=dt):
                sol = game.solve(rules, dtype=dt, device=dev)
                return float(sol.game_value), getattr(sol, "compile_seconds", None)

            out.append(Case(game.name, rules.name, backend, dt, 1, run))
            if game.bench_suite is not None:
                out += [Case(game.name, f"{rules.name}: {label}", backend, dt, 1, fn) for label, fn in game.bench_suite(rules, quick, dt, dev)]
    return out


def device_tag(backend: str) -> str:
    """A file-name tag naming the device a suite ran on: ``cpu``, ``gpu-nvidia-h100-80gb-hbm3``."""
    dev = jax.devices(backend)[0]
    kind = getattr(dev, "device_kind", "") or ""
    tag = backend if backend == "cpu" or not kind else f"{backend}-{kind}"
    return "".join(c if c.isalnum() else "-" for c in tag.lower()).strip("-")


def run_suite(suite: str, backend: str, only: str | None = None, progress=None) -> dict:
    """Time every suite case on ``backend``: compile apart (the solver's own figure, else first
    run minus warm run), the warm run a second run (or, past ``REPEAT_BELOW_S``, the first run
    less its compile time)."""
    jax.config.update("jax_enable_x64", True)
    rows = []
    for case, value, compile_s, first in _first_runs(suite_cases(suite, backend), only):
        if first < REPEAT_BELOW_S or compile_s is None:
            t0 = time.perf_counter()
            value, _ = case.run()
            warm, how = time.perf_counter() - t0, "second run"
        else:
            warm, how = first - compile_s, "first run less compile"
        peak, peak_kind = peak_memory(jax.devices(backend)[0])
        row = {
            "game": case.game, "variant": case.variant, "backend": backend, "dtype": case.dtype, "devices": 1,
            "compile_s": round(compile_s if compile_s else max(first - warm, 0.0), 3), "first_s": round(first, 3),
            "warm_s": round(warm, 3), "warm_from": how, "peak_mib": round(peak, 1), "peak_kind": peak_kind,
            "device": str(jax.devices(backend)[0]), "result": value,
        }
        rows.append(row)
        if progress:
            progress(row)
    if not rows:
        raise JaxsolveError(f"no benchmark case matches {only!r}")
    return {"machine": machine(), "suite": suite, "backend": backend, "device_tag": device_tag(backend), "quick": suite == "quick", "rows": rows}


def write_suite(report: dict, out_dir: Path) -> list[Path]:
    """``suite_<suite>_<device>.{md,json}`` in ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = out_dir / f"suite_{report['suite']}_{report['device_tag']}"
    md, js = stem.with_suffix(".md"), stem.with_suffix(".json")
    dev = report["rows"][0]["device"]
    head = [f"# jaxsolve bench --suite {report['suite']} on {dev} ({report['device_tag']})", "", f"Command: `jaxsolve bench --suite {report['suite']} --device {report['backend']}`", ""]
    md.write_text("\n".join(head) + "\n" + markdown(report))
    js.write_text(json.dumps(report, indent=2, default=str))
    return [md, js]


def markdown(report: dict) -> str:
    cols = ["game", "variant", "backend", "dtype", "devices", "compile_s", "warm_s", "peak_mib", "device"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(str(r[c]) for c in cols) + " |" for r in report["rows"]]
    m = report["machine"]
    lines += ["", f"Machine: {m['cpu']} ({m['cpu_count']} CPUs), {m['platform']}, JAX {m['jax']}, devices {', '.join(m['devices'])}, load {m['load_average']}."]
    lines += ["Peak memory: device peak_bytes_in_use where reported (GPU), else the process RSS high-water mark so far (cumulative)."]
    return "\n".join(lines) + "\n"


def write(report: dict, out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    tag = "quick" if report["quick"] else "full"
    md, js = out_dir / f"bench_{tag}.md", out_dir / f"bench_{tag}.json"
    md.write_text(markdown(report))
    js.write_text(json.dumps(report, indent=2, default=str))
    return [md, js]
