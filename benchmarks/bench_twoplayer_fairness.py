"""Two figures of the whole two-player Yacht read from its stored table (docs/twoplayer.md).

``fairness``: the compensation points -- the first player's value P(win) + P(tie) / 2 when the
second player is given c points at the start (the first player's lead -c), from the stored
start row (``twoplayer.compensation``), and the c closest to 1/2. Each tie rule whose whole
table is stored is read; the others are named as not stored.

``moves``: N games of optimal against optimal from the stored table, at every decision of either
player whether the expected-score policy (the one-player ``score`` solution) would choose a move
worth less by the two-player table (``twoplayer.simulate(compare="score")``), per turn, for keeps
and boxes, with the mean win probability such a move loses. Batches of ``--batch`` games with the
seeds ``seed * 1000 + i``, one after the other in this process.

``--preset small`` solves ``yacht.small()`` in memory instead (float64; a check of the script).

    python benchmarks/bench_twoplayer_fairness.py fairness --out results/twoplayer/yacht-fairness
    python benchmarks/bench_twoplayer_fairness.py moves --games 100000 --batch 20000 --seed 1 --out results/twoplayer/yacht-moves-differ
    python benchmarks/bench_twoplayer_fairness.py moves --preset small --games 2000 --out /tmp/small-moves
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from machine import load  # noqa: E402

AROUND = 6
"""Compensation points shown either side of the fairest."""


def _table(preset: str, tie: str, keep: str):
    """The table of the preset: the whole Yacht's from the store (None if not stored), or
    ``yacht.small()`` solved in memory."""
    from jaxsolve.games.category.objectives import twoplayer
    from jaxsolve.games.category.objectives.twoplayer import store as twoplayer_store
    from jaxsolve.games.category.sheets import yacht

    if preset == "small":
        return twoplayer.solve(yacht.small(), tie=tie, keep=keep, dtype="float64")
    return twoplayer_store.load(yacht.get_rules("yacht"), tie, "yacht")


def _machine_words(m: dict) -> str:
    return f"{m.get('cpu', '?')}, {m.get('cpu_count', '?')} cores, {m.get('platform', '?')}, Python {m.get('python', '?')}, JAX {m.get('jax', '?')}"


def _times(w0: float, c0: float) -> dict:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return {"wall_seconds": round(time.perf_counter() - w0, 2), "cpu_seconds": round(time.process_time() - c0, 2),
            "peak_rss_gib": round(own.ru_maxrss / 2**20, 2), "load_end": load(), "finished": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}


def fairness(args) -> int:
    from jaxsolve.bench import machine
    from jaxsolve.games.category.objectives import twoplayer

    w0, c0 = time.perf_counter(), time.process_time()
    out: dict = {"preset": args.preset, "machine": machine(), "load_start": load(), "command": " ".join(["python", "benchmarks/bench_twoplayer_fairness.py", *sys.argv[1:]]),
                 "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "ties": {}, "not_stored": []}
    lines = [f"# Two-player {args.preset}: compensation points for the second player", ""]
    for tie in twoplayer.TIES:
        table = _table(args.preset, tie, "start")
        if table is None:
            out["not_stored"].append(tie)
            continue
        comp = twoplayer.compensation(table)
        best = comp.fairest
        near = [c for c in range(best - AROUND, best + AROUND + 1)]
        out["ties"][tie] = {
            "rules": table.rules.name, "dtype": str(table.layers[table.plans[0].n].dtype), "value_at_0": comp.value(0), "fairest": best,
            "fairest_value": comp.value(best), "values": {str(c): comp.value(c) for c in near},
            "window": [int(comp.points[0]), int(comp.points[-1])],
            "nonnegative_fairest": min((c for c in near if c >= 0), key=lambda c: (abs(comp.value(c) - 0.5), c)),
        }
        t = out["ties"][tie]
        lines += [
            f"## Ties: {tie} (a tie worth {twoplayer.TIES[tie]} to the first player)", "",
            f"The first player's value with no points given: {comp.value(0):.9f}. Closest to 1/2: c = **{best}** "
            f"({comp.value(best):.9f}, {comp.value(best) - 0.5:+.6f} from 1/2); among c >= 0: c = {t['nonnegative_fairest']}.", "",
            "| c (points given to the second player) | first player's lead | first player's value | minus 1/2 |", "|---|---|---|---|",
        ]
        lines += [f"| {c:+d} | {-c:+d} | {comp.value(c):.9f} | {comp.value(c) - 0.5:+.6f} |" for c in near]
        lines.append("")
    out.update(_times(w0, c0))
    if out["not_stored"]:
        lines += [f"Not stored, so not read: the tie rule(s) {', '.join(out['not_stored'])} (a whole solve each, about an hour on this machine).", ""]
    lines += [f"{out['wall_seconds']:.1f} s wall, {out['cpu_seconds']:.1f} CPU seconds (loading and checking the stored table included). "
              f"Machine: {_machine_words(out['machine'])}. Load (1, 5, 15 min) at the start {out['load_start']}, at the end {out['load_end']}.",
              "", f"Command: `{out['command']}`"]
    _write(args.out, out, lines)
    return 0


def moves(args) -> int:
    import numpy as np

    from jaxsolve.bench import machine
    from jaxsolve.games.category.engine import solutions
    from jaxsolve.games.category.objectives import twoplayer

    w0, c0 = time.perf_counter(), time.process_time()
    table = _table(args.preset, "share", "all")
    if table is None:
        raise SystemExit("no stored two-player table of yacht (ties share): run `jaxsolve twoplayer-table yacht` first")
    rules = table.rules
    sol = solutions.solution(rules, "score", game="yacht" if args.preset == "yacht" else None, dtype="float64")
    ready = time.perf_counter() - w0
    sizes = [min(args.batch, args.games - k) for k in range(0, args.games, args.batch)]
    total = None
    out: dict = {"preset": args.preset, "rules": rules.name, "tie": table.tie, "games": args.games, "batch": args.batch, "seed": args.seed,
                 "seeds": [args.seed * 1000 + i for i in range(len(sizes))], "tolerance": twoplayer.DIFFER_TOLERANCE,
                 "machine": machine(), "load_start": load(), "setup_seconds": round(ready, 2), "batches": [],
                 "command": " ".join(["python", "benchmarks/bench_twoplayer_fairness.py", *sys.argv[1:]]),
                 "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}
    mean = []
    for i, games in enumerate(sizes):
        b0, bc = time.perf_counter(), time.process_time()
        played = twoplayer.simulate(table, games, seed=args.seed * 1000 + i, compare="score", score_solution=sol)
        d = played.differ
        assert d is not None
        total = d if total is None else twoplayer.MovesDiffer(total.decisions + d.decisions, total.differ + d.differ, total.loss + d.loss, total.over + d.over)
        mean.append(played.score.sum())
        out["batches"].append({"seed": args.seed * 1000 + i, "games": games, "wall": round(time.perf_counter() - b0, 2),
                               "cpu": round(time.process_time() - bc, 2), "load": load(), "at": time.strftime("%H:%M:%S", time.gmtime())})
        print(f"batch {i}: {games:,} games in {out['batches'][-1]['wall']:.0f} s ({out['batches'][-1]['cpu']:.0f} CPU s), load {load()}; "
              f"keeps differ {total.rate('keep'):.4%}, boxes {total.rate('box'):.4%}", flush=True)
    assert total is not None
    turns = len(table.plans) - 1
    out.update(_times(w0, c0))
    out.update({
        "first_player_mean": float(np.sum(mean) / args.games), "core_us_per_game_turn": out["cpu_seconds"] / (args.games * turns) * 1e6,
        "decisions": int(total.decisions.sum()), "differ": int(total.differ.sum()), "rate": total.rate(), "mean_loss": total.mean_loss(),
        "kinds": {k: {"decisions": int(total.decisions[..., i].sum()), "differ": int(total.differ[..., i].sum()), "rate": total.rate(k),
                      "mean_loss": total.mean_loss(k), "loss_per_game": float(total.loss[..., i].sum() / args.games),
                      "losing_more_than": {f"{v:g}": int(total.over[..., i, j].sum()) for j, v in enumerate(twoplayer.LOSS_LEVELS)}}
                  for i, k in enumerate(twoplayer.DECISION_KINDS)},
        "per_seat": [{"decisions": int(total.decisions[s].sum()), "differ": int(total.differ[s].sum()),
                      "loss_per_game": float(total.loss[s].sum() / args.games)} for s in (0, 1)],
        "per_turn": total.per_turn(),
    })
    k, b = out["kinds"]["keep"], out["kinds"]["box"]
    lines = [
        f"# Two-player {rules.name}: where playing to win changes the move ({args.games:,} games)", "",
        f"{args.games:,} games of optimal against optimal ({'the stored table, every layer memory-mapped' if args.preset == 'yacht' else 'solved in memory, float64'}; "
        f"tie rule {table.tie}; {len(sizes)} batches of {args.batch:,}, seeds {out['seeds'][0]}..{out['seeds'][-1]}). At every decision of either player "
        "(a keep after each throw with re-throws left while the turn goes on -- keeping every die is writing now -- and the box written), the "
        "expected-score policy's choice in the same situation (the one-player `score` solution, float64, its own ties) is valued by the "
        f"two-player table; it **differs** where it is worth less than the best by more than {twoplayer.DIFFER_TOLERANCE:g} "
        f"(float ties of the {'float32' if args.preset == 'yacht' else 'float64'} table do not count). Loss: the first player's (or second's) probability of winning given away "
        "by that one choice, the rest of the game played to win.", "",
        "| | decisions | differ | share | mean loss where it differs | loss per game |", "|---|---|---|---|---|---|",
        f"| keeps | {k['decisions']:,} | {k['differ']:,} | {k['rate']:.3%} | {k['mean_loss']:.5f} | {k['loss_per_game']:.5f} |",
        f"| boxes | {b['decisions']:,} | {b['differ']:,} | {b['rate']:.3%} | {b['mean_loss']:.5f} | {b['loss_per_game']:.5f} |",
        f"| all | {out['decisions']:,} | {out['differ']:,} | {out['rate']:.3%} | {out['mean_loss']:.5f} | {(k['loss_per_game'] + b['loss_per_game']):.5f} |",
        "", "Of the differing choices, how many lose more than:", "",
        "| | " + " | ".join(f"{v:g}" for v in twoplayer.LOSS_LEVELS) + " |", "|---|" + "---|" * len(twoplayer.LOSS_LEVELS),
        *(f"| {name} | " + " | ".join(f"{x['losing_more_than'][f'{v:g}']:,}" for v in twoplayer.LOSS_LEVELS) + " |" for name, x in (("keeps", k), ("boxes", b))),
        "", "Per turn (both players' n-th turn together):", "",
        "| turn | keep decisions | keeps differ | mean loss | box decisions | boxes differ | mean loss |", "|---|---|---|---|---|---|---|",
    ]
    for row in out["per_turn"]:
        kk, bb = row["keep"], row["box"]
        lines.append(f"| {row['turn']} | {kk['decisions']:,} | {kk['rate']:.3%} | {kk['mean_loss']:.5f} | {bb['decisions']:,} | {bb['rate']:.3%} | {bb['mean_loss']:.5f} |")
    lines += [
        "", f"Per player: the first player's choices differ at {out['per_seat'][0]['differ']:,} of {out['per_seat'][0]['decisions']:,} decisions "
        f"(loss {out['per_seat'][0]['loss_per_game']:.5f} per game), the second's at {out['per_seat'][1]['differ']:,} of "
        f"{out['per_seat'][1]['decisions']:,} ({out['per_seat'][1]['loss_per_game']:.5f}). The games' mean for the first player: {out['first_player_mean']:.5f}.",
        "", f"{out['wall_seconds']:.0f} s wall, {out['cpu_seconds']:.0f} CPU seconds (`time.process_time`, loading included; {out['core_us_per_game_turn']:.0f} "
        f"core-microseconds per game and turn), peak RSS {out['peak_rss_gib']:.2f} GiB (the memory-mapped layers' pages read count in it). "
        f"Machine: {_machine_words(out['machine'])}. Load (1, 5, 15 min) at the start {out['load_start']}, at the end {out['load_end']}.",
        "", f"Command: `{out['command']}`",
    ]
    _write(args.out, out, lines)
    return 0


def _write(path: Path, out: dict, lines: list[str]) -> None:
    path.with_suffix(".json").write_text(json.dumps(out, indent=1) + "\n")
    path.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("fairness", "moves"))
    ap.add_argument("--preset", default="yacht", choices=("yacht", "small"), help="the stored whole Yacht, or yacht.small() solved in memory")
    ap.add_argument("--games", type=int, default=20_000, help="moves: games played")
    ap.add_argument("--batch", type=int, default=20_000, help="moves: games per batch")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, required=True, help="path without suffix: writes .json and .md")
    args = ap.parse_args(argv)
    if args.games < 1 or args.batch < 1:
        ap.error("--games and --batch must be at least 1")
    import jax

    jax.config.update("jax_enable_x64", True)  # the expected-score policy and the small preset's solves in float64
    return fairness(args) if args.what == "fairness" else moves(args)


if __name__ == "__main__":
    sys.exit(main())
