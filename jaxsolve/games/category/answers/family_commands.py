"""The category family's own commands: ``analyze``, ``distribution``, ``advise-target``, ``target-table``, ``distribution-table`` and
``simulate`` (typer-free: each is a function returning a ``Report`` and its options as ``Param``
values; the registration makes them ``Command``s and the CLI builds ``jaxsolve NAME GAME`` from
them as it builds ``solve`` and ``advise``). Every computation gets its float dtype as a value.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.answers import commands
from jaxsolve.games.game import Param, Report

HERE = Path(".")  # default output folder: the current one; results/ is written only by the scripts that regenerate it
MAX_GAMES = 10_000_000  # all games of a strategy are played side by side, in memory at once
MAX_SEED = 2**32 - 1

FILLED = Param("filled", list, None, "A box already filled (repeat); the rest of the game is solved.")
DEVICES = Param("devices", int, 1, "Shard over the first n visible devices (0: all).", min=0)
CHUNK = Param("chunk", int, 256, "Most states per compiled batch.", min=1, max=1 << 16)

ANALYZE_PARAMS = (
    commands.MORE_DICE,
    commands.OBJECTIVE,
    commands.POSITION,
    commands.DICE,
    commands.THROWS_LEFT,
    Param(
        "split", bool, True,
        "Per-box split and SD of the rest of the game (a forward walk over the states optimal play reaches; seconds on a CPU).",
        flags=("--split/--no-split",),
    ),
    Param("table", Path, None, "Read the value table from a `solve <game> --out` export instead of the solution cache.", aliases=("--values",)),
)
DISTRIBUTION_PARAMS = (
    FILLED,
    Param("at", list, None, "Report P(score >= T) (repeat, or several values).", item=int, min=0),
    Param("target", int, None, "Also solve the target objective and compare P(score >= T) under both policies (GPU-scale for the full game).", min=1),
    Param("out", Path, HERE, "Folder for the .npy, .json and .png (default: the current folder).", flags=("--out", "-o")),
    Param("no_files", bool, False, "Print only; write no files.", aliases=("--no-write",)),
    DEVICES,
    Param("max_memory", int, None, "MiB one device may use; chunks shrink to fit.", min=1),
    CHUNK,
)
ADVISE_TARGET_PARAMS = (
    Param("dice", list, None, "The dice showing, e.g. 6 6 1 2 3.", item=int, argument=True, required=True),
    Param("target", int, None, "Points still needed (at least).", flags=("--target", "-t"), required=True, min=1),
    FILLED,
    Param("upper", int, 0, "Upper-section total so far.", min=0),
    Param("all_same_held", bool, False, "The all-same box (Kniffel, Yahtzee, Yatzy) holds its points.", flags=("--all-same-held",), aliases=("--holds50",)),
    Param("throws_left", int, 0, "Re-throws still allowed this turn (0: choose a box).", aliases=("--rerolls",), min=0),
    Param("table", Path, None, "Answer from a `target-table` export (any position of the game it covers) instead of solving."),
    DEVICES,
    Param("chunk", int, 8, "Most states per compiled batch.", min=1, max=1 << 16),
)


def _out_param(use: str) -> Param:
    """The ``--out`` of a table export; by default the table goes where ``advise --opponent`` ``use``."""
    return Param(
        "out", Path, None,
        "The .npy to write (its layers beside it as NAME-layer_L.npy, one JSON sidecar); default: the whole game's table into the "
        f"solution store, where `advise --opponent` {use}.",
        flags=("--out", "-o"),
    )


TARGET_TABLE_PARAMS = (
    _out_param("answers table questions from"),
    FILLED,
    Param("store", str, "float32", "float32, or uint16 (round(65535 p): half the bytes, error at most 7.7e-6).", choices=("float32", "uint16")),
    Param("at", list, None, "Report the start's P(final >= T) (repeat, or several values).", item=int, min=0),
    DEVICES,
    Param("max_memory", int, 2048, "MiB one device may use; chunks shrink to fit.", min=1),
    Param("chunk", int, 8, "Most states per compiled batch.", min=1, max=1 << 16),
)
DISTRIBUTION_TABLE_PARAMS = (
    _out_param("reads the opponents' distributions from"),
    FILLED,
    DEVICES,
    Param("max_memory", int, None, "MiB one device may use; chunks shrink to fit.", min=1),
    CHUNK,
)
TWOPLAYER_TABLE_PARAMS = (
    Param("ties", str, "share", "What a tie is worth to the player who started: share (half), win (all) or lose (nothing).", choices=("share", "win", "lose")),
    Param("max_memory", int, 0, "MiB for a layer's tables and a chunk's working set; chunks shrink to fit (0: what the largest layer needs, "
          "at least 2048).", min=0),
    Param("chunk", int, 8, "Most pairs of sheets per compiled batch.", min=1, max=1 << 16),
    Param("open_boxes", int, 0, "Only every position where both players have at most this many boxes open (an end-game table); 0: the whole game.",
          flags=("--open",), min=0, max=20),
)
SIMULATE_PARAMS = (
    Param("strategy", str, "optimal", "optimal, heuristic, heuristic:<strength> (strong, medium, weak), greedy, or several comma-separated.", flags=("--strategy", "-s")),
    Param("heuristic_reading", str, "fresh-turn", "Heuristic: the start value's bonus term, fresh-turn (default) or chain."),
    Param("bot_seed", int, 0, "Heuristic: seed of the bot's forecast errors (weaker strengths)."),
    Param("games", int, 100_000, "Games per strategy.", flags=("--games", "-n"), min=1, max=MAX_GAMES),
    Param("seed", int, 7, "Random seed (same seed, same games).", min=0, max=MAX_SEED),
    Param("chunk", int, 1024, "Distinct states per compiled policy evaluation.", min=1, max=1 << 20),
    Param("out", Path, HERE, "Folder for the JSON summary and histogram PNG (default: the current folder).", flags=("--out", "-o")),
    Param("no_files", bool, False, "Write no JSON/PNG files."),
)


def _mask(filled, rules) -> int:
    from jaxsolve.games.category.engine import solver

    return solver.filled_mask(filled or [], rules)


def _devices(devices: int, device):
    """What the layered drivers take for ``--devices``: this device (1), the first n, or all (0: None)."""
    return [device] if devices == 1 else (None if devices == 0 else devices)


def check_sheet_state(rules, mask: int, upper: int, all_same_held: bool) -> None:
    """Refuse an upper total or an all-same-box flag that no game reaches with these filled boxes."""
    from jaxsolve.games.category.sheets.position import check_state

    if mask == rules.full_mask:
        raise JaxsolveError("every box is filled: the game is over")
    try:
        check_state(rules, mask, upper, int(all_same_held))
    except JaxsolveError as exc:
        raise JaxsolveError(str(exc).replace("all_same_held needs", "--holds50 needs")) from None


# ----------------------------------------------------------------------------- twoplayer-endgame


def endgame_command(rules, **options) -> Report:
    """``twoplayer-endgame``: the sheets of ``--mine`` and ``--theirs`` checked
    (``check_endgame_sheets``), then ``endgame.endgame_command``."""
    from jaxsolve.games.category.objectives.twoplayer import endgame

    check_endgame_sheets(rules, options.get("mine"), options.get("theirs"))
    return endgame.endgame_command(rules, **options)


def check_endgame_sheets(rules, mine: str | None, theirs: str | None) -> None:
    """Refuse ``--mine`` / ``--theirs`` whose filled counts are no turn of the player to move:
    the other has as many boxes filled (the mover started) or one more (the other started).
    A sheet that does not parse is left to the command's own message."""
    from jaxsolve.games.category.objectives import winning
    from jaxsolve.games.category.sheets.position import PositionError

    commands.check_numbers(("--mine", mine), ("--theirs", theirs))
    if mine is None or theirs is None:
        return
    try:
        a, b = (bin(winning.parse_opponent(text, rules).position.state(rules)[0]).count("1") for text in (mine, theirs))
    except PositionError:
        return
    if b not in (a, a + 1):
        raise JaxsolveError(
            f"--mine has {a} boxes filled and --theirs {b}: at the turn of the player to move (--mine) the other has as many boxes "
            f"filled ({a}, the mover started) or one more ({a + 1}, the other started)"
        )


# ----------------------------------------------------------------------------- analyze


def analyze_command(rules, *, game, rules_given, dtype, device, quiet, more_dice, objective, position, dice, throws_left, split, table) -> Report:
    """Value of a position as a single turn and within the game; split over boxes and bonuses, SD."""
    from jaxsolve.games.category.answers import advisor, analysis
    from jaxsolve.games.category.engine import solutions
    from jaxsolve.games.category.sheets.position import parse_dice, parse_position

    dice_text = commands._dice_text(dice, more_dice)
    rules, objective, sol = commands._context(game, rules, rules_given, objective, table, dtype)
    pos = parse_position(position, rules)
    faces = parse_dice(dice_text, rules)
    sol = sol or solutions.solution(rules, objective, game=game, dtype=dtype)
    # a position is a score sheet or a state; both give the state (the annotation names the sheet only)
    turn = analysis.analyze_turn(rules, pos, faces, throws_left, objective, sol=sol)  # type: ignore[arg-type]
    brk = analysis.breakdown(rules, pos, faces, throws_left, objective, sol=sol) if split else None  # type: ignore[arg-type]
    data = turn.to_dict()
    if brk is not None:
        data["rest_of_game"] = {"mean": brk.mean, "sd": brk.sd, "split": brk.split}
    unit = commands.unit(objective)
    sheet = f"sheet {pos.total} points, " if pos.total is not None else ""
    lines = [
        f"{rules.name}, {objective}: {pos} ({sheet}upper {pos.upper_total})",
        advisor.describe_turn(faces, turn.throws_left),
        f"as a single turn:  {turn.turn_value:.6f} {unit}",
        f"within the game:   {turn.game_value:.6f} {unit} = {turn.this_turn:.6f} this turn + {turn.rest:.6f} rest",
    ]
    if brk is not None:
        lines.append(f"rest of the game under the optimal policy: mean {brk.mean:.6f}, SD {brk.sd:.6f} {unit}")
        lines += [f"  {name:<16} {v:10.4f}" for name, v in brk.split.items() if not (objective == "goals" and name.endswith("bonus"))]
    return Report(tuple(lines), data, result=(turn, brk))


# ----------------------------------------------------------------------------- distribution


def plot_distribution(p, path: Path, title: str, marks=()) -> None:
    """Bar plot of a distribution over final scores as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    top = int(np.flatnonzero(np.cumsum(p) < 1 - 1e-4).max(initial=0)) + 2
    fig, ax = plt.subplots(figsize=(9, 4))
    ax.bar(np.arange(top), p[:top], width=1.0, color="#3465a4")
    for t in marks:
        ax.axvline(t, color="#cc0000", lw=0.8)
    ax.set_xlabel("points")
    ax.set_ylabel("probability")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def distribution_command(rules, *, game, dtype, device, quiet, filled, at, target, out, no_files, devices, max_memory, chunk) -> Report:
    """Exact distribution of the final score under the score-optimal policy: mean, SD, percentiles,
    P(score >= T); with ``target``, the target objective's P(score >= T) beside it. ``result``:
    ``P(final score = k)`` from the position (an array)."""
    import jax

    from jaxsolve.core.progress import layer_bars
    from jaxsolve.games.category.objectives import distribution as D
    from jaxsolve.games.category.engine import table_io
    from jaxsolve.io import export

    mask = _mask(filled, rules)
    at = sorted(set(at or [200, 250, 300]))
    name = rules.name + (f"-filled{mask}" if mask else "")
    if not no_files:
        export.check_output_dir(out, create=True)
        export.check_writable(out / f"{name}.npy")
    devs = _devices(devices, device)
    if isinstance(devs, int) and devs > len(jax.devices()):
        raise JaxsolveError(f"--devices {devs}: only {len(jax.devices())} visible")
    memory = None if max_memory is None else max_memory << 20
    sizes = {k: len(D.sub_layer_states(rules, k, mask)[0]) for k in range(rules.num_boxes)}
    with layer_bars(sizes, quiet) as advance:
        sol = table_io.solved(rules, game=game, dtype=dtype, device=device)
        dist = D.distribution(rules, sol, dtype=dtype, chunk=chunk, devices=devs, max_memory=memory, keep="start", prefilled=mask, on_layer=advance)
    p = dist.at(mask)
    summary = D.summarize(p, at_least=at)
    data = {
        "rules": rules.name,
        "filled": mask,
        "game_value": sol.value(mask),
        **summary.to_dict(),
        "dtype": str(p.dtype),
        "devices": dist.device,
        "compile_seconds": round(dist.compile_seconds, 3),
        "seconds": round(dist.seconds, 3),
        "layers": dist.timings,
    }
    if target is not None:
        from jaxsolve.games.category.objectives import target as TG

        with layer_bars(sizes, quiet, label="target") as advance:
            tab = TG.solve_target(
                rules, dtype=dtype, chunk=chunk, devices=devs, max_memory=memory or TG.DEFAULT_MAX_MEMORY, keep="start", prefilled=mask, on_layer=advance
            )
        v = tab.at(mask)
        data["target"] = {
            "target": target,
            "p_target_policy": float(v[target]) if target < len(v) else 0.0,
            "p_score_policy": float(p[target:].sum()),
            "seconds": round(tab.seconds, 3),
            "compile_seconds": round(tab.compile_seconds, 3),
        }
    if not no_files:
        path = out / f"{name}.npy"
        export.save(path, p, {"game": game, "rules": rules.to_dict(), "what": "P(final score = k) from the state, score-optimal policy", **data})
        plot_distribution(p, out / f"{name}.png", f"{rules.name}: mean {summary.mean:.2f}, SD {summary.sd:.2f}", at)
        data["files"] = [str(path), str(export.sidecar_path(path)), str(out / f"{name}.png")]
    lines = [
        f"{rules.name}: mean {summary.mean:.7f} (game value {sol.value(mask):.7f}), SD {summary.sd:.5f}, mode {summary.mode}",
        "percentiles: " + ", ".join(f"{q}%: {v}" for q, v in summary.percentiles.items()),
        *(f"P(score >= {t}) = {pr:.6f}" for t, pr in summary.at_least.items()),
    ]
    if target is not None:
        tg = data["target"]
        lines.append(f"P(score >= {target}): {tg['p_target_policy']:.6f} under the target policy, {tg['p_score_policy']:.6f} under the score policy")
    details = [f"computed on {dist.device} in {dist.seconds:.1f} s (+{dist.compile_seconds:.1f} s compile)"]
    details += [f"wrote {f}" for f in data.get("files", [])]
    return Report(tuple(lines), data, tuple(details), result=p)


# ----------------------------------------------------------------------------- advise-target


def advise_target_command(rules, *, game, dtype, device, quiet, dice, target, filled, upper, all_same_held, throws_left, table, devices, chunk) -> Report:
    """Every choice ranked by the probability of scoring at least ``target`` more points: from a
    ``target-table`` export (``table``: reads the next layer only), or solving the rest of the
    game from the position's filled boxes (few open boxes: seconds on a CPU)."""
    from jaxsolve.games.category.objectives import target as TG
    from jaxsolve.games.category.objectives import target_situation

    mask = _mask(filled, rules)
    check_sheet_state(rules, mask, upper, all_same_held)
    if len(dice) != rules.dice:
        raise JaxsolveError(f"need {rules.dice} dice, got {len(dice)}")
    if table is not None:
        covered = TG.load_table(table, game=game, rules=rules, layers=()).prefilled  # the sidecar only
        if mask & covered != covered:
            closed = [n for b, n in enumerate(rules.box_names) if covered >> b & 1]
            raise JaxsolveError(f"{table} covers only positions with the boxes {', '.join(closed)} filled")
        tab = TG.load_table(table, game=game, rules=rules, layers=[bin(mask).count("1") + 1])
    else:
        tab = TG.solve_target(rules, dtype=dtype, chunk=chunk, devices=_devices(devices, device), prefilled=mask)
    choices = target_situation.target_options(tab, mask, upper, int(all_same_held), dice, throws_left, target)
    lines = [f"P(at least {target} more points) by choice, best first:", *(f"  {c.kind:4} {c.what:16} {c.probability:.6f}" for c in choices)]
    return Report(tuple(lines), [c.__dict__ for c in choices], result=choices)


def target_table_command(rules, *, game, dtype, device, quiet, out, filled, store, at, devices, max_memory, chunk) -> Report:
    """Solve the target objective for every state of the game (or of the subgame with ``filled``
    boxes closed) and export every layer (``target.save_table``), for ``advise-target --table``;
    without ``out``, the whole game's table into the solution store (``target.store_path``), for
    ``advise --opponent`` (its layers noted there as checked: no first read hashes them)."""
    from jaxsolve.games.category.objectives import distribution as D
    from jaxsolve.games.category.objectives import target as TG
    from jaxsolve.core.progress import layer_bars

    mask = _mask(filled, rules)
    in_store, out = _table_out(game, rules, mask, out, "target")
    sizes = {k: len(D.sub_layer_states(rules, k, mask)[0]) for k in range(rules.num_boxes)}
    with layer_bars(sizes, quiet, label="target") as advance:
        tab = TG.solve_target(
            rules, dtype=dtype, chunk=chunk, devices=_devices(devices, device), max_memory=max_memory << 20, prefilled=mask, on_layer=advance
        )
    paths = TG.save_table(out, tab, game=game, store=store)
    if in_store:
        TG.seal_table(out)
    start = tab.at(mask)
    points = sorted(set(at or [100, 200, 250, 300, 350, 400, 500]) | {0})
    tail = {t: float(start[t]) if t < len(start) else 0.0 for t in points}
    values = sum(int(a.size) for a in tab.layers if a is not None)
    data = {
        "rules": rules.name, "prefilled": mask, "file": str(out), "files": len(paths), "store": store, "values": values,
        "seconds": tab.seconds, "compile_seconds": tab.compile_seconds, "device": tab.device, "p_at_least": {str(t): v for t, v in tail.items()},
    }
    lines = [
        f"{rules.name}: target table of {values:,} state-target values in {tab.seconds:.1f} s (+{tab.compile_seconds:.1f} s compiling) on {tab.device}",
        *(f"  max P(final >= {t}) = {v:.6f}" for t, v in tail.items()),
        f"wrote {out} and {len(paths) - 1} layer files beside it",
    ]
    return Report(tuple(lines), data, result=tab)


def _table_out(game, rules, mask: int, out, kind: str):
    """Where a ``target-table`` / ``distribution-table`` goes: ``out``, else (the whole game
    only) the solution store's ``target.store_path(game, rules, kind)``; checked writable.
    Returns (in the store, the path)."""
    from jaxsolve.games.category.objectives import target as TG
    from jaxsolve.io import cache, export

    if mask == rules.full_mask:
        raise JaxsolveError("every box is filled: the game is over")
    in_store = out is None
    if in_store:
        if mask:
            raise JaxsolveError("the solution store keeps the whole game's table: give --out for the table of a subgame (--filled)")
        if not cache.enabled():
            raise JaxsolveError("--no-cache: give --out for the table")
        out = TG.store_path(game, rules, kind)
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JaxsolveError(f"cannot create {out.parent}: {exc.strerror or exc}") from None
    export.check_writable(out)
    return in_store, out


def distribution_table_command(rules, *, game, dtype, device, quiet, out, filled, devices, max_memory, chunk) -> Report:
    """The exact distribution of the remaining score (P(k more points) under the score-optimal
    policy) of every state of the game (or of the subgame with ``filled`` boxes closed), solved
    in ``dtype`` (float64) and exported in float32, every layer (``target.save_table``); without
    ``out``, the whole game's into the solution store (``target.store_path(..., 'distribution')``),
    where ``advise --opponent`` reads each opponent's row instead of computing it."""
    import numpy as np

    from jaxsolve.core.progress import layer_bars
    from jaxsolve.games.category.objectives import distribution as D
    from jaxsolve.games.category.engine import table_io
    from jaxsolve.games.category.objectives import target as TG

    mask = _mask(filled, rules)
    in_store, out = _table_out(game, rules, mask, out, "distribution")
    sizes = {k: len(D.sub_layer_states(rules, k, mask)[0]) for k in range(rules.num_boxes)}
    memory = None if max_memory is None else max_memory << 20
    with layer_bars(sizes, quiet, label="distribution") as advance:
        sol = table_io.solved(rules, game=game, dtype=dtype, device=device)
        tab = D.distribution(rules, sol, dtype=dtype, chunk=chunk, devices=_devices(devices, device), max_memory=memory, keep="all", prefilled=mask, on_layer=advance)
    start = np.asarray(tab.at(mask), np.float64)
    for k, layer in enumerate(tab.layers):  # one layer at a time: float64 and float32 of the whole table are never held at once
        if layer is not None:
            tab.layers[k] = np.asarray(layer).astype(np.float32)
    paths = TG.save_table(out, tab, game=game, store="float32")
    if in_store:
        TG.seal_table(out)
    summary = D.summarize(start)
    values = sum(int(a.size) for a in tab.layers if a is not None)
    data = {
        "rules": rules.name, "prefilled": mask, "file": str(out), "files": len(paths), "store": "float32", "values": values,
        "bytes": sum(Path(p).stat().st_size for p in paths), "seconds": tab.seconds, "compile_seconds": tab.compile_seconds, "device": tab.device,
        "mean": summary.mean, "sd": summary.sd,
    }
    lines = [
        f"{rules.name}: distribution table of {values:,} state-point values in {tab.seconds:.1f} s (+{tab.compile_seconds:.1f} s compiling) on {tab.device}",
        f"  from the start: mean {summary.mean:.6f} more points, SD {summary.sd:.5f}",
        f"wrote {out} and {len(paths) - 1} layer files beside it ({data['bytes']:,} bytes)",
    ]
    return Report(tuple(lines), data, result=tab)


def twoplayer_table_command(rules, *, game, dtype, device, quiet, ties, max_memory, chunk, open_boxes=0) -> Report:
    """Solve the two-player game of ``rules`` (both play to win), or with ``open_boxes`` every
    position where both players have at most that many boxes open, and keep every layer in the
    solution store, each written as it is done (``twoplayer_store.save``), for simulated play
    and advice (``twoplayer_store.load``). Refused up front where the layers would not fit this
    machine's memory or the store's disk (``twoplayer_store.estimate``)."""
    import numpy as np

    from jaxsolve.core.progress import layer_bars
    from jaxsolve.games.category.objectives.twoplayer import store as twoplayer_store
    from jaxsolve.io import cache

    if not cache.enabled():
        raise JaxsolveError("--no-cache: the two-player table is kept only in the solution store")
    if open_boxes > rules.num_boxes:
        raise JaxsolveError(f"--open {open_boxes}: {rules.name} has {rules.num_boxes} boxes")
    k = open_boxes or None
    size = twoplayer_store.estimate(rules, dtype, k)
    path = twoplayer_store.store_path(game, rules, ties, str(np.dtype(dtype)), k)
    size.check(path.parent)
    what = "two players" if k is None else f"two players, every position with at most {k} open boxes each"
    _say(f"{rules.name}, {what}: {size.pairs:,} pairs of sheets, {size.values:,} state-lead values, "
         f"{size.disk_bytes / 2**30:.2f} GiB on disk, about {size.core_seconds / 60:.0f} core-minutes")
    t = [time.perf_counter(), time.process_time()]

    def told(n: int, pairs: int) -> None:
        now = [time.perf_counter(), time.process_time()]
        if not quiet:
            _say(f"layer {n}: {pairs:,} pairs in {now[0] - t[0]:.1f} s ({now[1] - t[1]:.1f} CPU s), load {_load()}, {time.strftime('%H:%M:%S', time.gmtime())} UTC")
        t[:] = now

    with layer_bars(size.layer_pairs, quiet, label="layer") as advance:

        def on_layer(n: int, pairs: int) -> None:
            advance(n, pairs)
            told(n, pairs)

        tab, writer = twoplayer_store.save(game, rules, tie=ties, dtype=dtype, chunk=chunk, devices=[device] if device is not None else 1,
                                           max_memory=(max_memory << 20) or max(2 << 30, size.memory_bytes), on_layer=on_layer, open_boxes=k)
    data = {
        "rules": rules.name, "tie": ties, "dtype": str(np.dtype(dtype)), "file": str(path), "pairs": size.pairs, "values": size.values,
        "bytes": writer.bytes, "start": tab.start if k is None else None, "open_boxes": k, "seconds": tab.seconds, "compile_seconds": tab.compile_seconds, "device": tab.device,
    }
    lines = [
        f"{rules.name}, {what} (ties {ties}): {size.values:,} state-lead values in {tab.seconds:.1f} s (+{tab.compile_seconds:.1f} s compiling) on {tab.device}",
        f"  the first player's P(win) + {twoplayer_store.twoplayer.TIES[ties]} P(tie) = {tab.start:.9f}" if k is None else
        f"  the first layer: {tab.plans[0].pairs:,} pairs of sheets with {rules.num_boxes - tab.plans[0].a} open boxes each",
        f"wrote {path} and {len(writer.records)} layer files beside it ({writer.bytes / 2**30:.2f} GiB)",
    ]
    return Report(tuple(lines), data, result=tab)


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


# ----------------------------------------------------------------------------- simulate


def parse_strategies(text: str) -> list[str]:
    """Comma-separated strategy names, checked against the registry (order kept, no repeats).

    ``heuristic:<strength>`` names a bot strength of the heuristic (checked too).
    """
    from jaxsolve.games.category.simulation import heuristic, strategies

    names = [s.strip() for s in text.split(",") if s.strip()]
    if not names:
        raise JaxsolveError(f"no strategy given; choose from {', '.join(strategies.names())}")
    for name in names:
        base, colon, level = name.partition(":")
        if base not in strategies.names():
            raise JaxsolveError(f"unknown strategy {name!r}; choose from {', '.join(strategies.names())}")
        if colon and base != "heuristic":
            raise JaxsolveError(f"strategy {base!r} has no strength levels (only heuristic:<strength>)")
        if colon:
            heuristic.strength_sd(level)
    return list(dict.fromkeys(names))


def comparison_table(summaries: list[dict]) -> str:
    """The strategies' summaries side by side as a text table."""
    ref = next((s["mean"] for s in summaries if s["strategy"] == "optimal"), None)
    rows = [("", [s["strategy"] for s in summaries])]
    add = lambda label, fn: rows.append((label, [fn(s) for s in summaries]))  # noqa: E731
    add("games", lambda s: f"{s['games']:,}")
    add("mean", lambda s: f"{s['mean']:.3f}")
    add("SD", lambda s: f"{s['sd']:.3f}")
    add("standard error", lambda s: f"{s['se']:.3f}")
    if ref is not None:
        add("% of optimal mean", lambda s: f"{100 * s['mean'] / ref:.2f}")
    for p in ("5", "25", "50", "75", "95"):
        add(f"percentile {p}", lambda s, p=p: f"{s['percentiles'][p]:.0f}")
    for t in ("200", "250", "300"):
        add(f"P(score >= {t})", lambda s, t=t: f"{s['p_at_least'][t]:.4f}")
    add("upper bonus rate", lambda s: f"{s['upper_bonus_rate']:.4f}")
    add("extra bonus (mean)", lambda s: f"{s['extra_bonus_mean']:.2f}")
    if any(s["instant_bonus_mean"] for s in summaries):
        add("Im-Hieb bonus (mean)", lambda s: f"{s['instant_bonus_mean']:.2f}")
    for name in summaries[0]["boxes"]:
        add(f"{name} points / scored", lambda s, n=name: f"{s['boxes'][n]['mean_points']:.2f} / {s['boxes'][n]['scored']:.3f}")
    add("games per second", lambda s: f"{s['games_per_second']:,.0f}")
    width = max(len(r[0]) for r in rows)
    cols = [max(len(r[1][i]) for r in rows) for i in range(len(summaries))]
    lines = [f"{label:<{width}}  " + "  ".join(f"{v:>{c}}" for v, c in zip(vals, cols)) for label, vals in rows]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)


def plot_histogram(results, path: Path) -> None:
    """Histogram of final scores, one step curve per strategy (bins of 5 points)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    top = max(int(r.scores.max()) for r in results)
    bins = np.arange(0, top + 10, 5).tolist()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for r in results:
        ax.hist(r.scores, bins=bins, density=True, histtype="step", label=f"{r.strategy}: mean {r.mean:.2f}, SD {r.sd:.2f}")
    ax.set_xlabel("final score")
    ax.set_ylabel("fraction of games per point")
    ax.set_title(f"{results[0].rules.name}: {results[0].games:,} games per strategy, seed {results[0].seed}")
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _say(message: str) -> None:
    try:
        sys.stderr.write(message + "\n")
        sys.stderr.flush()
    except OSError:
        pass


def simulate_command(rules, *, game, dtype, device, quiet, strategy, heuristic_reading, bot_seed, games, seed, chunk, out, no_files) -> Report:
    """Many games with each strategy, side by side: the score distributions compared (and, unless
    ``no_files``, a JSON summary and a histogram written into ``out``)."""
    from jaxsolve.games.category.simulation import heuristic, simulate, strategies
    from jaxsolve.io import export

    names = parse_strategies(strategy)
    heuristic.check_reading(heuristic_reading)
    if not no_files:
        export.check_output_dir(out, create=True)
    results = []
    for name in names:
        t0 = time.perf_counter()
        extra: dict = {"reading": heuristic_reading, "seed": bot_seed} if name.partition(":")[0] == "heuristic" else {}
        if name == "optimal":
            extra = {"game": game}
        strat = strategies.make(name, rules, device=device, dtype=dtype, **extra)
        built = time.perf_counter() - t0
        if not quiet:
            _say(f"{name}: playing {games:,} games ...")
        res = simulate.simulate(rules, strat, games, seed, chunk=chunk, device=device)
        res.setup_seconds += built
        results.append(res)

    summaries = [r.summary() for r in results]
    files = {}
    if not no_files:
        tag = "" if heuristic_reading == heuristic.DEFAULT_READING else f"_{heuristic_reading}"
        stem = f"{game}_{rules.name}_{'-'.join(names).replace(':', '_')}{tag}_{games}_seed{seed}"
        json_path, png_path = out / f"{stem}.json", out / f"{stem}.png"
        try:
            payload = {"rules": rules.to_dict(), "games": games, "seed": seed, "device": str(device), "strategies": summaries}
            export.atomic_write_text(json_path, json.dumps(payload, indent=1))
            plot_histogram(results, png_path)
        except OSError as exc:
            raise JaxsolveError(f"cannot write to {out}: {exc.strerror}") from None
        files = {"json": str(json_path), "png": str(png_path)}
    data = {"rules": rules.name, "games": games, "seed": seed, "strategies": summaries, "files": files}
    lines = (f"{rules.name}: {games:,} games per strategy, seed {seed}, on {device}", *comparison_table(summaries).split("\n"))
    details = (f"wrote {files['json']} and {files['png']}",) if files else ()
    return Report(lines, data, details, result=results)
