"""The category family's own commands: ``twoplayer-endgame``, ``analyze``, ``distribution``, ``advise-target`` and
``simulate`` (the table exports are in ``table_commands``; typer-free: each is a function returning a ``Report`` and its options as ``Param``
values; the registration makes them ``Command``s and the CLI builds ``jaxsolve NAME GAME`` from
them as it builds ``solve`` and ``advise``). Every computation gets its float dtype as a value.
"""

from __future__ import annotations

import contextlib
import json
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
        raise JaxsolveError(str(exc).replace("all_same_held needs", "--all-same-held needs")) from None


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
    from jaxsolve.core.progress import steps_bar
    from jaxsolve.games.category.answers import advisor, analysis
    from jaxsolve.games.category.engine import solutions
    from jaxsolve.games.category.sheets.position import parse_dice, parse_position

    dice_text = commands._dice_text(dice, more_dice)
    rules, objective, sol = commands._context(game, rules, rules_given, objective, table, dtype)
    pos = parse_position(position, rules)
    faces = parse_dice(dice_text, rules)
    sol = sol or solutions.solution(rules, objective, game=game, dtype=dtype)
    # a position is a score sheet or a state; both give the state (the annotation names the sheet only)
    with steps_bar(2 if split else 1, "analyzing the turn" + (", then the rest of the game (a forward walk)" if split else ""), quiet) as steps:
        turn = analysis.analyze_turn(rules, pos, faces, throws_left, objective, sol=sol)  # type: ignore[arg-type]
        steps.advance()
        brk = analysis.breakdown(rules, pos, faces, throws_left, objective, sol=sol) if split else None  # type: ignore[arg-type]
        steps.advance(int(split))
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


@contextlib.contextmanager
def _figure(path: Path, size: tuple[float, float], dpi: int, xlabel: str, ylabel: str, title: str):
    """Matplotlib axes (the Agg backend) with these labels, drawn on in the block, then laid out
    and written to ``path`` as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=size)
    yield ax
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def plot_distribution(p, path: Path, title: str, marks=()) -> None:
    """Bar plot of a distribution over final scores as PNG."""
    import numpy as np

    top = int(np.flatnonzero(np.cumsum(p) < 1 - 1e-4).max(initial=0)) + 2
    with _figure(path, (9, 4), 120, "points", "probability", title) as ax:
        ax.bar(np.arange(top), p[:top], width=1.0, color="#3465a4")
        for t in marks:
            ax.axvline(t, color="#cc0000", lw=0.8)


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

        tab = _solve_target(rules, sizes, quiet, dtype=dtype, chunk=chunk, devices=devs, max_memory=memory or TG.DEFAULT_MAX_MEMORY, keep="start", prefilled=mask)
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


def _solve_target(rules, sizes: dict[int, int], quiet: bool, **options):
    """``target.solve_target(rules, **options)`` with a bar per layer of ``sizes`` states."""
    from jaxsolve.core.progress import layer_bars
    from jaxsolve.games.category.objectives import target as TG

    with layer_bars(sizes, quiet, label="target layer") as advance:
        return TG.solve_target(rules, on_layer=advance, **options)


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
        from jaxsolve.games.category.objectives import distribution as D

        sizes = {k: len(D.sub_layer_states(rules, k, mask)[0]) for k in range(bin(mask).count("1"), rules.num_boxes)}
        tab = _solve_target(rules, sizes, quiet, dtype=dtype, chunk=chunk, devices=_devices(devices, device), prefilled=mask)
    choices = target_situation.target_options(tab, mask, upper, int(all_same_held), dice, throws_left, target)
    lines = [f"P(at least {target} more points) by choice, best first:", *(f"  {c.kind:4} {c.what:16} {c.probability:.6f}" for c in choices)]
    return Report(tuple(lines), [c.__dict__ for c in choices], result=choices)


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
    import numpy as np

    top = max(int(r.scores.max()) for r in results)
    bins = np.arange(0, top + 10, 5).tolist()
    title = f"{results[0].rules.name}: {results[0].games:,} games per strategy, seed {results[0].seed}"
    with _figure(path, (8, 4.5), 110, "final score", "fraction of games per point", title) as ax:
        for r in results:
            ax.hist(r.scores, bins=bins, density=True, histtype="step", label=f"{r.strategy}: mean {r.mean:.2f}, SD {r.sd:.2f}")
        ax.legend()


def simulate_command(rules, *, game, dtype, device, quiet, strategy, heuristic_reading, bot_seed, games, seed, chunk, out, no_files) -> Report:
    """Many games with each strategy, side by side: the score distributions compared (and, unless
    ``no_files``, a JSON summary and a histogram written into ``out``)."""
    from jaxsolve.core.progress import steps_bar
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
        with steps_bar(rules.num_boxes, f"{name}: {games:,} games, turns", quiet) as turns:
            res = simulate.simulate(rules, strat, games, seed, chunk=chunk, device=device, on_turn=lambda turn, _: turns(turn + 1))
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
