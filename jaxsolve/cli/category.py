"""The category family's own commands: ``analyze``, ``distribution``, ``advise-target`` and
``simulate``, one subcommand per registered game that lists them in ``family_commands`` (the
generic ``solve``, ``advise``, ``play`` and ``tables`` come from ``jaxsolve.cli.commands``)."""

from __future__ import annotations

import copy
import inspect
import json
import time
from pathlib import Path
from typing import Annotated, List, Optional

import typer

from jaxsolve.cli.common import INT_LIMIT, JsonOpt, Run, collect, handle_errors, limited, out_folder, rules_params, shared_options, typer_parameters
from jaxsolve.errors import JaxsolveError

ObjectiveOpt = Annotated[Optional[str], typer.Option("--objective", help="score (expected points, default) or goals (expected boxes met).")]
PositionOpt = Annotated[str, typer.Option("--position", "-p", help='Filled boxes with scores, e.g. "aces=3 twos=- kniffel=50" (default: start).')]
DiceOpt = Annotated[Optional[str], typer.Option("--dice", "-d", help="Dice showing: --dice 1 1 2 2 5 (or 11225).")]
ThrowsLeftOpt = Annotated[Optional[int], typer.Option("--throws-left", "--rolls-left", min=-INT_LIMIT, max=INT_LIMIT, help="Re-throws still allowed this turn (default: all but the first throw).")]
TableOpt = Annotated[Optional[Path], typer.Option("--table", "--values", help="Read the value table from a `solve <game> --out` export instead of the solution cache.")]
MoreDice = Annotated[Optional[List[str]], typer.Argument(hidden=True, help="The rest of --dice.")]

DISTRIBUTION_DIR = Path(".")  # the current folder; results/ is written only by the scripts that regenerate it

FilledOpt = Annotated[Optional[List[str]], typer.Option("--filled", help="A box already filled (repeat); the rest of the game is solved.")]
DevicesOpt = Annotated[int, typer.Option("--devices", max=INT_LIMIT, min=0, help="Shard over the first n visible devices (0: all).")]
MemoryOpt = Annotated[Optional[int], typer.Option("--max-memory", max=INT_LIMIT, min=1, help="MiB one device may use; chunks shrink to fit.")]
ChunkOpt = Annotated[int, typer.Option("--chunk", min=1, max=1 << 16, help="Most states per compiled batch.")]


def check_sheet_state(rules, mask: int, upper: int, all_same_held: bool) -> None:
    """Refuse an upper total or an all-same-box flag that no game reaches with these filled boxes."""
    from jaxsolve.errors import JaxsolveError
    from jaxsolve.games.category.position import check_state

    if mask == rules.full_mask:
        raise JaxsolveError("every box is filled: the game is over")
    try:
        check_state(rules, mask, upper, int(all_same_held))
    except JaxsolveError as exc:
        raise JaxsolveError(str(exc).replace("all_same_held needs", "--holds50 needs")) from None


def _devices(n: int):
    return None if n == 0 else n


def _mask(filled, rules):
    from jaxsolve.games.category import solver

    return solver.filled_mask(filled or [], rules)


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


def analyze(
    game,
    more_dice: MoreDice = None,
    rules=None,
    rules_given: bool = False,
    objective: ObjectiveOpt = None,
    position: PositionOpt = "start",
    dice: DiceOpt = None,
    throws_left: ThrowsLeftOpt = None,
    split: Annotated[bool, typer.Option("--split/--no-split", help="Per-box split and SD of the rest of the game (a forward walk over the states optimal play reaches; seconds on a CPU).")] = True,
    table: TableOpt = None,
    as_json: JsonOpt = False,
    run: Run = Run(),
):
    """Value of a position as a single turn and within the game; split over boxes and bonuses, SD."""
    from jaxsolve.games.category import advisor, analysis, commands, solutions
    from jaxsolve.games.category.position import parse_dice, parse_position

    dice_text = commands._dice_text(dice, more_dice)
    run.setup()
    the_rules, the_objective, sol = commands._context(game.name, rules, rules_given, objective, table, run.dtype)
    pos = parse_position(position, the_rules)
    faces = parse_dice(dice_text, the_rules)
    sol = sol or solutions.solution(the_rules, the_objective, game=game.name)
    turn = analysis.analyze_turn(the_rules, pos, faces, throws_left, the_objective, sol=sol)
    brk = analysis.breakdown(the_rules, pos, faces, throws_left, the_objective, sol=sol) if split else None
    if as_json:
        out = turn.to_dict()
        if brk is not None:
            out["rest_of_game"] = {"mean": brk.mean, "sd": brk.sd, "split": brk.split}
        typer.echo(json.dumps(out))
        return
    unit = commands.unit(the_objective)
    sheet = f"sheet {pos.total} points, " if pos.total is not None else ""
    typer.echo(f"{the_rules.name}, {the_objective}: {pos} ({sheet}upper {pos.upper_total})")
    typer.echo(advisor.describe_turn(faces, turn.throws_left))
    typer.echo(f"as a single turn:  {turn.turn_value:.6f} {unit}")
    typer.echo(f"within the game:   {turn.game_value:.6f} {unit} = {turn.this_turn:.6f} this turn + {turn.rest:.6f} rest")
    if brk is None:
        return
    typer.echo(f"rest of the game under the optimal policy: mean {brk.mean:.6f}, SD {brk.sd:.6f} {unit}")
    for name, v in brk.split.items():
        if the_objective == "goals" and name.endswith("bonus"):
            continue
        typer.echo(f"  {name:<16} {v:10.4f}")



def distribution(
    game,
    rules=None,
    filled: FilledOpt = None,
    at: Annotated[Optional[List[int]], typer.Option("--at", min=-INT_LIMIT, max=INT_LIMIT, help="Report P(score >= T) (repeat, or several values).")] = None,
    target: Annotated[Optional[int], typer.Option("--target", max=INT_LIMIT, min=1, help="Also solve the target objective and compare P(score >= T) under both policies (GPU-scale for the full game).")] = None,
    out_dir: Annotated[Path, out_folder("the .npy, .json and .png")] = DISTRIBUTION_DIR,
    no_files: Annotated[bool, typer.Option("--no-files", help="Print only; write no files.")] = False,
    no_write: Annotated[bool, typer.Option("--no-write", hidden=True, help="Old spelling of --no-files.")] = False,
    devices: DevicesOpt = 1,
    max_memory: MemoryOpt = None,
    chunk: ChunkOpt = 256,
    as_json: JsonOpt = False,
    run: Run = Run(),
):
    """Exact distribution of the final score under the score-optimal policy: mean, SD, percentiles, P(score >= T)."""
    from jaxsolve.io import export
    from jaxsolve.errors import JaxsolveError
    from jaxsolve.games.category import distribution as D
    from jaxsolve.games.category import table_io
    from jaxsolve.core.progress import layer_bars

    the_rules = rules
    no_write = no_files or no_write
    mask = _mask(filled, the_rules)
    at = sorted(set(at or [200, 250, 300]))
    if any(t < 0 for t in at):
        raise JaxsolveError("--at targets must be >= 0")
    name = the_rules.name + (f"-filled{mask}" if mask else "")
    if not no_write:
        export.check_output_dir(out_dir, create=True)
        export.check_writable(out_dir / f"{name}.npy")
    dev = run.setup()
    quiet = run.quiet
    import jax

    devs = [dev] if devices == 1 else _devices(devices)
    if isinstance(devs, int) and devs > len(jax.devices()):
        raise JaxsolveError(f"--devices {devs}: only {len(jax.devices())} visible")
    memory = None if max_memory is None else max_memory << 20
    sizes = {k: len(D.sub_layer_states(the_rules, k, mask)[0]) for k in range(the_rules.num_boxes)}
    with layer_bars(sizes, quiet or as_json) as advance:
        sol = table_io.solved(the_rules, game=game.name, device=dev)
        dist = D.distribution(the_rules, sol, chunk=chunk, devices=devs, max_memory=memory, keep="start", prefilled=mask, on_layer=advance)
    p = dist.at(mask)
    summary = D.summarize(p, at_least=at)
    result = {
        "rules": the_rules.name,
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
        from jaxsolve.games.category import target as TG

        with layer_bars(sizes, quiet or as_json, label="target") as advance:
            tab = TG.solve_target(the_rules, chunk=chunk, devices=devs, max_memory=memory or TG.DEFAULT_MAX_MEMORY, keep="start", prefilled=mask, on_layer=advance)
        v = tab.at(mask)
        result["target"] = {
            "target": target,
            "p_target_policy": float(v[target]) if target < len(v) else 0.0,
            "p_score_policy": float(p[target:].sum()),
            "seconds": round(tab.seconds, 3),
            "compile_seconds": round(tab.compile_seconds, 3),
        }
    if not no_write:
        path = out_dir / f"{name}.npy"
        export.save(path, p, {"game": game.name, "rules": the_rules.to_dict(), "what": "P(final score = k) from the state, score-optimal policy", **result})
        plot_distribution(p, out_dir / f"{name}.png", f"{the_rules.name}: mean {summary.mean:.2f}, SD {summary.sd:.2f}", at)
        result["files"] = [str(path), str(export.sidecar_path(path)), str(out_dir / f"{name}.png")]
    if as_json:
        typer.echo(json.dumps(result, default=str))
        return
    typer.echo(f"{the_rules.name}: mean {summary.mean:.7f} (game value {sol.value(mask):.7f}), SD {summary.sd:.5f}, mode {summary.mode}")
    typer.echo("percentiles: " + ", ".join(f"{q}%: {v}" for q, v in summary.percentiles.items()))
    for t, pr in summary.at_least.items():
        typer.echo(f"P(score >= {t}) = {pr:.6f}")
    if target is not None:
        tg = result["target"]
        typer.echo(f"P(score >= {target}): {tg['p_target_policy']:.6f} under the target policy, {tg['p_score_policy']:.6f} under the score policy")
    if not quiet:
        typer.echo(f"computed on {dist.device} in {dist.seconds:.1f} s (+{dist.compile_seconds:.1f} s compile)")
        for f in result.get("files", []):
            typer.echo(f"wrote {f}")


def advise_target(
    game,
    dice: Annotated[List[int], typer.Argument(help="The dice showing, e.g. 6 6 1 2 3.")],
    target: Annotated[int, typer.Option("--target", "-t", max=INT_LIMIT, min=1, help="Points still needed (at least).")],
    rules=None,
    filled: FilledOpt = None,
    upper: Annotated[int, typer.Option("--upper", max=INT_LIMIT, min=0, help="Upper-section total so far.")] = 0,
    all_same_held: Annotated[bool, typer.Option("--all-same-held", "--holds50", help="The all-same box (Kniffel, Yahtzee, Yatzy) holds its points.")] = False,
    throws_left: Annotated[int, typer.Option("--throws-left", "--rerolls", max=INT_LIMIT, min=0, help="Re-throws still allowed this turn (0: choose a box).")] = 0,
    devices: DevicesOpt = 1,
    chunk: ChunkOpt = 256,
    as_json: JsonOpt = False,
    run: Run = Run(),
):
    """Rank every choice by the probability of scoring at least --target more points.

    Solves the rest of the game from the position's filled boxes (few open boxes: CPU; the
    whole game: GPU-scale).
    """
    from jaxsolve.games.category import target as TG

    the_rules = rules
    mask = _mask(filled, the_rules)
    check_sheet_state(the_rules, mask, upper, all_same_held)
    dev = run.setup()
    if len(dice) != the_rules.dice:
        from jaxsolve.errors import JaxsolveError

        raise JaxsolveError(f"need {the_rules.dice} dice, got {len(dice)}")
    devs = [dev] if devices == 1 else _devices(devices)
    tab = TG.solve_target(the_rules, chunk=chunk, devices=devs, prefilled=mask)
    choices = TG.target_options(tab, mask, upper, int(all_same_held), dice, throws_left, target)
    if as_json:
        typer.echo(json.dumps([c.__dict__ for c in choices]))
        return
    typer.echo(f"P(at least {target} more points) by choice, best first:")
    for c in choices:
        typer.echo(f"  {c.kind:4} {c.what:16} {c.probability:.6f}")


SIMULATE_DIR = Path(".")  # the current folder; results/ is written only by the scripts that regenerate it
MAX_GAMES = 10_000_000  # all games of a strategy are played side by side, in memory at once
MAX_SEED = 2**32 - 1


def parse_strategies(text: str) -> list[str]:
    """Comma-separated strategy names, checked against the registry (order kept, no repeats).

    ``heuristic:<strength>`` names a bot strength of the heuristic (checked too).
    """
    from jaxsolve.games.category import heuristic, strategies

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
    bins = np.arange(0, top + 10, 5)
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


def simulate_games(
    game,
    strategy: Annotated[str, typer.Option("--strategy", "-s", help="optimal, heuristic, heuristic:<strength> (strong, medium, weak), greedy, or several comma-separated.")] = "optimal",
    heuristic_reading: Annotated[str, typer.Option("--heuristic-reading", help="Heuristic: the start value's bonus term, fresh-turn (default) or chain.")] = "fresh-turn",
    bot_seed: Annotated[int, typer.Option("--bot-seed", min=-INT_LIMIT, max=INT_LIMIT, help="Heuristic: seed of the bot's forecast errors (weaker strengths).")] = 0,
    games: Annotated[int, typer.Option("--games", "-n", help="Games per strategy.")] = 100_000,
    seed: Annotated[int, typer.Option("--seed", help="Random seed (same seed, same games).")] = 7,
    rules=None,
    chunk: Annotated[int, typer.Option("--chunk", min=-INT_LIMIT, max=INT_LIMIT, help="Distinct states per compiled policy evaluation.")] = 1024,
    out_dir: Annotated[Path, out_folder("the JSON summary and histogram PNG")] = SIMULATE_DIR,
    no_files: Annotated[bool, typer.Option("--no-files", help="Write no JSON/PNG files.")] = False,
    as_json: JsonOpt = False,
    run: Run = Run(),
):
    """Play many games of {title} with each strategy and compare the score distributions."""
    from jaxsolve.games.category import heuristic, simulate, strategies
    from jaxsolve.io import export

    names = parse_strategies(strategy)
    heuristic.check_reading(heuristic_reading)
    limited("--games", games, 1, MAX_GAMES)
    limited("--seed", seed, 0, MAX_SEED)
    limited("--chunk", chunk, 1, 1 << 20)
    if not no_files:
        export.check_output_dir(out_dir, create=True)
    the_rules = rules
    dev = run.setup()
    quiet = run.quiet

    results = []
    for name in names:
        t0 = time.perf_counter()
        extra = {"reading": heuristic_reading, "seed": bot_seed} if name.partition(":")[0] == "heuristic" else {}
        if name == "optimal":
            extra = {"game": game.name}
        strat = strategies.make(name, the_rules, device=dev, **extra)
        built = time.perf_counter() - t0
        if not (quiet or as_json):
            typer.echo(f"{name}: playing {games:,} games ...", err=True)
        res = simulate.simulate(the_rules, strat, games, seed, chunk=chunk, device=dev)
        res.setup_seconds += built
        results.append(res)

    summaries = [r.summary() for r in results]
    files = {}
    if not no_files:
        tag = "" if heuristic_reading == heuristic.DEFAULT_READING else f"_{heuristic_reading}"
        stem = f"{game.name}_{the_rules.name}_{'-'.join(names).replace(':', '_')}{tag}_{games}_seed{seed}"
        json_path, png_path = out_dir / f"{stem}.json", out_dir / f"{stem}.png"
        try:
            payload = {"rules": the_rules.to_dict(), "games": games, "seed": seed, "device": str(dev), "strategies": summaries}
            export.atomic_write_text(json_path, json.dumps(payload, indent=1))
            plot_histogram(results, png_path)
        except OSError as exc:
            raise JaxsolveError(f"cannot write to {out_dir}: {exc.strerror}") from None
        files = {"json": str(json_path), "png": str(png_path)}

    if as_json:
        typer.echo(json.dumps({"rules": the_rules.name, "games": games, "seed": seed, "strategies": summaries, "files": files}))
        return
    typer.echo(f"{the_rules.name}: {games:,} games per strategy, seed {seed}, on {dev}")
    typer.echo(comparison_table(summaries))
    if files and not quiet:
        typer.echo(f"wrote {files['json']} and {files['png']}")




GROUPS = {
    "analyze": ("Split a position's value over the boxes and bonuses, with its spread.", analyze, ("float64", "No notes on stderr (which cached table is used).")),
    "distribution": ("Exact score distributions under the optimal policy.", distribution, ("float64", "No progress bars; print only the result.")),
    "advise-target": ("Advise by the probability of reaching a score (the target objective).", advise_target, ("fixed64", None)),
    "simulate": ("Play many games at once with a strategy.", simulate_games, ("fixed32", "No progress bars; print only the result.")),
}


def _hide_old_spellings(p: inspect.Parameter) -> list[inspect.Parameter]:
    """An option declared with several long spellings keeps the first; the later ones (old
    spellings) become hidden options named ``<name>__old<i>``, merged back by ``_merge_old``."""
    meta = getattr(p.annotation, "__metadata__", ())
    info = next((m for m in meta if isinstance(m, typer.models.OptionInfo)), None)
    decls = [] if info is None else [info.default] * (isinstance(info.default, str) and info.default.startswith("-")) + list(info.param_decls)
    longs = [d for d in decls if d.startswith("--")]
    if len(longs) < 2:
        return [p]
    kept = copy.copy(info)
    kept.param_decls = tuple(d for d in info.param_decls if d not in longs[1:])
    base = p.annotation.__origin__
    bounds = {} if base is bool else {"min": info.min, "max": info.max}
    hidden = [
        p.replace(name=f"{p.name}__old{i}", default=None, annotation=Annotated[Optional[base], typer.Option(old, hidden=True, **bounds)])
        for i, old in enumerate(longs[1:])
    ]
    return [p.replace(annotation=Annotated[base, kept]), *hidden]


def _merge_old(kwargs: dict) -> dict:
    """Fold the hidden old spellings into their options (an old spelling given wins over a default)."""
    for key in [k for k in kwargs if "__old" in k]:
        value = kwargs.pop(key)
        if value is not None:
            kwargs[key.split("__old")[0]] = value
    return kwargs


def _bind(fn, game):
    """``fn`` as a command of ``game``: its ``rules`` parameter becomes ``--rules`` and the rule
    overrides (from the registry), handed to ``fn`` as one rules value (and ``rules_given``)."""
    P = inspect.Parameter
    specs = rules_params(game)
    own = [q for p in inspect.signature(fn, eval_str=True).parameters.values() if p.name not in ("game", "rules", "rules_given") for q in _hide_old_spellings(p)]
    extra = [q for s in specs for q in typer_parameters(s)]
    wants_given = "rules_given" in inspect.signature(fn).parameters

    def command(*args, **kwargs):
        kwargs = _merge_old(kwargs)
        values = collect(specs, kwargs)
        name = values.pop("rules")
        given = name is not None or any(v is not None for v in values.values())
        more = {"rules_given": given} if wants_given else {}
        return fn(*args, game=game, rules=game.build_rules(name, **values), **more, **kwargs)

    params = [p.replace(kind=P.KEYWORD_ONLY) for p in own + extra]
    command.__name__ = fn.__name__
    command.__doc__ = (fn.__doc__ or "").replace("{title}", game.title)
    command.__signature__ = inspect.Signature(params)
    command.__annotations__ = {p.name: p.annotation for p in params}
    return command


def add_family_commands(app: typer.Typer, games) -> None:
    from jaxsolve.cli.commands import add_game_subcommands

    for name, (help_text, fn, (x64, quiet_help)) in GROUPS.items():
        group = typer.Typer(help=help_text, no_args_is_help=True)
        for game in games:
            if name in game.family_commands:
                group.command(game.name)(handle_errors(shared_options(x64, quiet_help)(_bind(fn, game))))
        add_game_subcommands(group, name, [g for g in games if name not in g.family_commands])
        app.add_typer(group, name=name)
