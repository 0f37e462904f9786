"""``jaxsolve simulate <game>``: play many games of a category game with one or more strategies, side by side."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from jaxsolve.cli.common import JsonOpt, Run, for_each_game, handle_errors, limited, out_folder, shared_options, simulate_app
from jaxsolve.errors import JaxsolveError

DEFAULT_DIR = Path("results/simulate")
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
    bot_seed: Annotated[int, typer.Option("--bot-seed", help="Heuristic: seed of the bot's forecast errors (weaker strengths).")] = 0,
    games: Annotated[int, typer.Option("--games", "-n", help="Games per strategy.")] = 100_000,
    seed: Annotated[int, typer.Option("--seed", help="Random seed (same seed, same games).")] = 7,
    rules: str | None = None,
    instant_kniffel: Annotated[Optional[int], typer.Option("--instant-kniffel", help="Im-Hieb bonus for a Kniffel right after the first throw (kniffel-imhieb: 30).")] = None,
    instant_other: Annotated[Optional[int], typer.Option("--instant-other", help="Im-Hieb bonus for any other box scored right after the first throw (kniffel-imhieb: 5).")] = None,
    chunk: Annotated[int, typer.Option("--chunk", help="Distinct states per compiled policy evaluation.")] = 1024,
    out_dir: Annotated[Path, out_folder("the JSON summary and histogram PNG")] = DEFAULT_DIR,
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
    the_rules = game.get_rules(rules).replace(instant_kniffel=instant_kniffel, instant_other=instant_other)
    dev = run.setup()
    quiet = run.quiet

    results = []
    for name in names:
        t0 = time.perf_counter()
        extra = {"reading": heuristic_reading, "seed": bot_seed} if name.partition(":")[0] == "heuristic" else {}
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


for_each_game(simulate_app, __name__, handle_errors(shared_options("fixed32")(simulate_games)))
