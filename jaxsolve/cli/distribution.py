"""Score distributions and the beat-a-score objective of category games: ``jaxsolve distribution <game>``,
``jaxsolve advise-target <game>`` (one command per registered game that names this module)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, List, Optional

import typer

from jaxsolve.cli import app
from jaxsolve.cli.common import JsonOpt, Run, for_each_game, handle_errors, out_folder, shared_options
from jaxsolve.cli.kniffel import ExtraBonusOpt, JokerOpt, RollsOpt, build_rules

distribution_app = typer.Typer(help="Exact score distributions under the optimal policy.", no_args_is_help=True)
advise_target_app = typer.Typer(help="Advise by the probability of reaching a score (the target objective).", no_args_is_help=True)
app.add_typer(distribution_app, name="distribution")
app.add_typer(advise_target_app, name="advise-target")

DEFAULT_DIR = Path("results") / "distribution"

FilledOpt = Annotated[Optional[List[str]], typer.Option("--filled", help="A box already filled (repeat); the rest of the game is solved.")]
DevicesOpt = Annotated[int, typer.Option("--devices", min=0, help="Shard over the first n visible devices (0: all).")]
MemoryOpt = Annotated[Optional[int], typer.Option("--max-memory", min=1, help="MiB one device may use; chunks shrink to fit.")]
ChunkOpt = Annotated[int, typer.Option("--chunk", min=1, max=1 << 16, help="Most states per compiled batch.")]


def check_sheet_state(rules, mask: int, upper: int, holds50: bool) -> None:
    """Refuse an upper total or a Yahtzee-box flag that no game reaches with these filled boxes."""
    from jaxsolve.errors import JaxsolveError
    from jaxsolve.games.category.position import check_state

    if mask == rules.full_mask:
        raise JaxsolveError("every box is filled: the game is over")
    try:
        check_state(rules, mask, upper, int(holds50))
    except JaxsolveError as exc:
        raise JaxsolveError(str(exc).replace("holds50 needs", "--holds50 needs")) from None


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


def distribution(
    game,
    rules: str | None = None,
    rolls: RollsOpt = None,
    joker: JokerOpt = None,
    extra_bonus: ExtraBonusOpt = None,
    filled: FilledOpt = None,
    at: Annotated[Optional[List[int]], typer.Option("--at", help="Report P(score >= T) (repeat, or several values).")] = None,
    target: Annotated[Optional[int], typer.Option("--target", min=1, help="Also solve the target objective and compare P(score >= T) under both policies (GPU-scale for the full game).")] = None,
    out_dir: Annotated[Path, out_folder("the .npy, .json and .png")] = DEFAULT_DIR,
    no_write: Annotated[bool, typer.Option("--no-write", help="Print only; write no files.")] = False,
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

    the_rules = build_rules(game, rules, rolls, joker, extra_bonus)
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
        sol = table_io.solved(the_rules, device=dev)
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
    target: Annotated[int, typer.Option("--target", "-t", min=1, help="Points still needed (at least).")],
    rules: str | None = None,
    rolls: RollsOpt = None,
    joker: JokerOpt = None,
    extra_bonus: ExtraBonusOpt = None,
    filled: FilledOpt = None,
    upper: Annotated[int, typer.Option("--upper", min=0, help="Upper-section total so far.")] = 0,
    holds50: Annotated[bool, typer.Option("--holds50", help="The Kniffel box holds 50.")] = False,
    rerolls: Annotated[int, typer.Option("--rerolls", min=0, help="Re-throws still allowed this turn (0: choose a box).")] = 0,
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

    the_rules = build_rules(game, rules, rolls, joker, extra_bonus)
    mask = _mask(filled, the_rules)
    check_sheet_state(the_rules, mask, upper, holds50)
    dev = run.setup()
    if len(dice) != the_rules.dice:
        from jaxsolve.errors import JaxsolveError

        raise JaxsolveError(f"need {the_rules.dice} dice, got {len(dice)}")
    devs = [dev] if devices == 1 else _devices(devices)
    tab = TG.solve_target(the_rules, chunk=chunk, devices=devs, prefilled=mask)
    choices = TG.target_options(tab, mask, upper, int(holds50), dice, rerolls, target)
    if as_json:
        typer.echo(json.dumps([c.__dict__ for c in choices]))
        return
    typer.echo(f"P(at least {target} more points) by choice, best first:")
    for c in choices:
        typer.echo(f"  {c.kind:4} {c.what:16} {c.probability:.6f}")


for_each_game(distribution_app, __name__, handle_errors(shared_options("float64")(distribution)))
for_each_game(advise_target_app, __name__, handle_errors(shared_options("fixed64", quiet_help=None)(advise_target)))
