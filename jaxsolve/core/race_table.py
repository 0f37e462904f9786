"""Commands of a race game for N players (``solve``, ``advise``), written once for every game
on the N-player engine (``jaxsolve.core.race_multi``): a game module brings its rules, presets,
solve and its one-turn advice; this module brings the argument parsing, the table file, the
report and the ``error: ...`` line on bad input (exit status 1, never a traceback).

A solved table is written with ``solve --out X.npz``: the value vectors, the rules and the cycles
whose best responses did not settle (with the equilibrium selected there), so ``advise --table``
answers without solving again and says when a position lies on such a cycle.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np

from jaxsolve.core.rules import Rules
from jaxsolve.errors import JaxsolveError


def fairest(values: np.ndarray, step: int) -> dict:
    """Head starts for seats 1..N-1 (seat 0, who moves first, gets none) that bring every seat's
    win probability closest to ``1/N`` (smallest largest gap), over every state of the table."""
    n = values.shape[-1]
    G = values.shape[0]
    grids = np.indices((G,) * (n - 1)).reshape(n - 1, -1).T
    idx = tuple([np.zeros(len(grids), np.int64)] + [grids[:, k] for k in range(n - 1)])
    p = values[idx]
    gap = np.max(np.abs(p - 1.0 / n), axis=1)
    k = int(np.argmin(gap))
    return {"points": [0] + [int(v) * step for v in grids[k]], "win": p[k].tolist(), "largest_gap": float(gap[k])}


def save(path: Path, rules: Any, values: np.ndarray, unsettled: list) -> None:
    meta = {"rules": rules.to_dict(), "rules_type": type(rules).__name__, "unsettled": unsettled}
    np.savez(path, values=values, meta=np.asarray(json.dumps(meta)))


def load(path: Path, rules_type: type[Rules]) -> tuple[Any, np.ndarray, list]:
    try:
        with np.load(path, allow_pickle=False) as data:
            values = np.asarray(data["values"])
            meta = json.loads(str(data["meta"]))
    except (OSError, KeyError, ValueError) as exc:
        raise JaxsolveError(f"{path}: not a table written by solve --out ({exc})") from None
    if meta.get("rules_type") != rules_type.__name__:
        raise JaxsolveError(f"{path} holds a table of {meta.get('rules_type')}, not {rules_type.__name__}")
    rules: Any = rules_type.from_dict(meta["rules"])
    n = rules.players
    if values.shape != (rules.levels,) * n + (n,) or not np.all(np.isfinite(values)) or np.max(np.abs(values.sum(axis=-1) - 1)) > 1e-9:
        raise JaxsolveError(f"{path}: the values do not fit the rules {rules.name} (shape {values.shape})")
    return rules, values, meta["unsettled"]


def cycle_note(scores: tuple, unsettled: list, step: int) -> str | None:
    """What the table says about the cycle of ``scores`` where best responses did not settle."""
    n = len(scores)
    mine = {tuple(scores[j:] + scores[:j]) for j in range(n)}
    for u in unsettled:
        if tuple(int(v) // step for v in u["scores"]) in mine:
            if u["selected"] == "mixed":
                return (
                    f"this position's cycle has no pure equilibrium: the values are a stationary mixed equilibrium "
                    f"(movers {u['mixer']} of the cycle mix between two adjacent policies with probabilities {[round(q, 6) for q in u['q']]})"
                )
            return f"this position's cycle has {u['pure']} pure equilibria: the values are the selected one (largest sum of the movers' own win probabilities)"
    return None


def main(
    argv: list[str] | None,
    *,
    prog: str,
    presets: Any,
    default: str,
    rules_type: type[Rules],
    solve: Callable[..., Any],
    advise: Callable[..., list[tuple[str, np.ndarray]]],
    step: int,
    advise_args: Callable[[argparse.ArgumentParser], None],
    simulate: Callable[..., np.ndarray] | None = None,
) -> int:
    parser = argparse.ArgumentParser(prog=prog, description=f"{prog}: the race for N players, each playing to win (max-n).")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("solve", "advise") + (("simulate",) if simulate is not None else ()):
        p = sub.add_parser(name)
        p.add_argument("--rules", default=default, help=f"Preset: {', '.join(presets)}.")
        for f in rules_type.option_fields():
            if f.name != "scoring":
                p.add_argument("--" + f.name.replace("_", "-"), type=int, default=None, help=f.metadata["option"])
        p.add_argument("--quiet", action="store_true", help="No progress bar.")
        p.add_argument("--json", action="store_true", help="Print the result as JSON.")
        if name == "solve":
            p.add_argument("--out", type=Path, default=None, help="Write the solved table to this .npz file.")
        elif name == "simulate":
            p.add_argument("--table", type=Path, default=None, help="A table written by solve --out (else solved first).")
            p.add_argument("--games", type=int, default=100_000, help="Games played by N players who all follow the solved equilibrium.")
            p.add_argument("--seed", type=int, default=0, help="Random seed.")
        else:
            p.add_argument("--table", type=Path, default=None, help="A table written by solve --out (else solved first).")
            p.add_argument("--scores", required=True, help="Every player's banked score in turn order, the player to move first: e.g. 300,1200,800.")
            advise_args(p)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        return _run(args, presets=presets, rules_type=rules_type, solve=solve, advise=advise, step=step, simulate=simulate)
    except JaxsolveError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def _rules(args: argparse.Namespace, presets: Any, rules_type: type[Rules]) -> Any:
    if args.rules not in presets:
        raise JaxsolveError(f"unknown rules {args.rules!r}; choose one of {', '.join(presets)}")
    changes = {f.name: getattr(args, f.name) for f in rules_type.option_fields() if f.name != "scoring" and getattr(args, f.name, None) is not None}
    return presets[args.rules].replace(**changes)


def _run(
    args: argparse.Namespace, *, presets: Any, rules_type: type[Rules], solve: Callable[..., Any], advise: Callable[..., Any], step: int, simulate: Callable[..., Any] | None = None
) -> int:
    from jaxsolve.core.progress import steps_bar

    table = getattr(args, "table", None)
    if table is not None:
        rules, values, unsettled = load(table, rules_type)
    else:
        rules = _rules(args, presets, rules_type)
        if args.command == "advise":
            scores = _scores(args.scores, rules, step)
        import jax

        jax.config.update("jax_enable_x64", True)
        with steps_bar(None, f"solving {rules.name}, layers", args.quiet) as steps:
            sol = solve(rules, progress=steps)
        values, unsettled = sol.values, [_plain(u, sol.values.shape[:-1], step) for u in sol.run.unsettled]
    n = rules.players
    if args.command == "simulate":
        assert simulate is not None
        if not 1 <= args.games <= 100_000_000 or args.seed < 0:
            raise JaxsolveError(f"--games must be 1..100,000,000 and --seed at least 0, got {args.games} and {args.seed}")
        wins = simulate(rules, values, unsettled, args.games, args.seed)
        start = values[(0,) * n]
        rate = wins / args.games
        se = np.sqrt(start * (1 - start) / args.games)
        if args.json:
            print(json.dumps({"games": args.games, "wins": wins.tolist(), "rate": rate.tolist(), "value": start.tolist(), "standard_error": se.tolist()}))
        else:
            for i in range(n):
                print(f"seat {i + 1}: won {rate[i]:.6f} of {args.games:,} games, solved {start[i]:.6f} ({(rate[i] - start[i]) / se[i]:+.2f} standard errors)")
        return 0
    if args.command == "solve":
        fair = fairest(values, step)
        start = values[(0,) * n]
        if args.out is not None:
            save(args.out, rules, values, unsettled)
        several = sum(1 for u in unsettled if u["pure"] > 1)
        none = sum(1 for u in unsettled if u["pure"] == 0)
        data = {"rules": rules.to_dict(), "start": start.tolist(), "fairest": fair, "unsettled": len(unsettled), "several_pure": several, "no_pure": none}
        if args.json:
            print(json.dumps(data))
        else:
            print(f"{rules.name}: {n} players, win probability per seat at the start: " + ", ".join(f"seat {i + 1} {v:.6f}" for i, v in enumerate(start)))
            print(f"fairest head starts: {fair['points']} points (win {', '.join(f'{v:.4f}' for v in fair['win'])})")
            print(f"cycles where best responses did not settle: {len(unsettled)} ({several} with several pure equilibria, {none} with none: mixed)")
            if args.out is not None:
                print(f"wrote {args.out}")
        return 0
    scores = _scores(args.scores, rules, step)
    options = advise(rules, values, scores, args)
    note = cycle_note(tuple(scores), unsettled, step)
    best = max(v[0] for _, v in options)
    if args.json:
        print(json.dumps({"scores": list(scores), "options": [{"option": label, "win": v.tolist(), "regret": float(best - v[0])} for label, v in options], "note": note}))
        return 0
    print(f"{rules.name}: banked " + ", ".join(f"{'you' if i == 0 else f'player +{i}'} {s * step}" for i, s in enumerate(scores)) + " (you move)")
    for label, v in sorted(options, key=lambda o: -o[1][0]):
        print(f"  {label:<22} you win {v[0]:.6f}   all: {' / '.join(f'{x:.4f}' for x in v)}   regret {best - v[0]:.6f}")
    if note:
        print(note)
    return 0


def _scores(text: str, rules: Any, step: int) -> tuple[int, ...]:
    try:
        points = [int(t) for t in text.replace(" ", "").split(",") if t]
    except ValueError:
        raise JaxsolveError(f"--scores must be {rules.players} whole numbers separated by commas, got {text!r}") from None
    if len(points) != rules.players:
        raise JaxsolveError(f"--scores needs {rules.players} banked scores (one per player, the player to move first), got {len(points)}")
    if any(p < 0 or p % step or p >= rules.goal for p in points):
        raise JaxsolveError(f"every banked score must be a multiple of {step} from 0 to below the goal {rules.goal}, got {text!r}")
    return tuple(p // step for p in points)


def _plain(u: dict, shape: tuple, step: int) -> dict:
    scores = [int(v) * step for v in np.unravel_index(u["members"][0], shape)]
    return {"scores": scores, "members": [int(m) for m in u["members"]], "pure": u["pure"], "mixed": u["mixed"], "selected": u["selected"], "mixer": u["mixer"], "q": u["q"]}
