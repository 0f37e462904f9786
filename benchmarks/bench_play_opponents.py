"""What a game against computer opponents costs (``jaxsolve play GAME --opponents N``): the time
of your win probability at each of your decisions (``CategoryGame.win_advice``: the exact best
response of ``winning.advise_win``) and of the opponents' turns, over a whole game with the best
option (by points) each time.

    python benchmarks/bench_play_opponents.py [--game maxi --rules maxi-reduced-4-dice] [--opponents 2] [--seed 6] [--out results/play]

Writes ``opponents-cpu.md`` and ``opponents-cpu.json`` in ``--out`` with the machine (its load
average before and after: other jobs on the same cores stretch the wall seconds; the process
CPU seconds are given beside them).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from machine import describe


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="maxi")
    parser.add_argument("--rules", default="maxi-reduced-4-dice")
    parser.add_argument("--opponents", type=int, default=2)
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--out", type=Path, default=Path("."))
    args = parser.parse_args()

    from jaxsolve.core import runtime

    runtime.configure(x64=True)
    from jaxsolve import games, play

    before = describe()
    rules = games.get_game(args.game).get_rules(args.rules)
    t0 = time.perf_counter()
    g = play.new_game(args.game, rules, seed=args.seed, opponents=args.opponents)
    g.warm()
    start = time.perf_counter() - t0
    rows, theirs = [], []
    while not g.over:
        s = g.state
        if g.awaiting() == "choice":
            open_boxes = rules.num_boxes - bin(s.position.filled).count("1")
            w0, c0 = time.perf_counter(), time.process_time()
            view = g.win_advice()
            rows.append({"open": open_boxes, "throws_left": s.throws_left, "available": view.available,
                         "wall_s": round(time.perf_counter() - w0, 3), "cpu_s": round(time.process_time() - c0, 3)})
        mover_fill = g.awaiting() == "choice" and g.options()[0].move.get("action") == "fill"
        w0 = time.perf_counter()
        g.enter("")
        if mover_fill and not g.over:
            theirs.append(time.perf_counter() - w0)  # your fill and the opponents' whole turns after it
    after = describe()
    asked = [r for r in rows if r["available"]]
    first = [r["wall_s"] for i, r in enumerate(asked) if i == 0 or asked[i - 1]["open"] != r["open"]]
    later = [r["wall_s"] for i, r in enumerate(asked) if i > 0 and asked[i - 1]["open"] == r["open"]]
    data = {
        "game": args.game, "rules": args.rules, "opponents": args.opponents, "seed": args.seed,
        "start_seconds": round(start, 2), "decisions": rows,
        "first_of_turn_wall_s": {"median": statistics.median(first), "max": max(first)} if first else None,
        "later_in_turn_wall_s": {"median": statistics.median(later), "max": max(later)} if later else None,
        "fill_and_opponents_turns_wall_s": {"median": statistics.median(theirs), "max": max(theirs)} if theirs else None,
        "standings": list(g.summary().lines), "machine": before, "load_average_after": after["load_average"],
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "opponents-cpu.json").write_text(json.dumps(data, indent=1) + "\n")
    lines = [
        f"# A game against {args.opponents} computer opponents: {args.game} {args.rules} (seed {args.seed})",
        "",
        f"Machine: {before['cpu']}, {before['cpu_count']} cores, JAX {before['jax']}; load average {before['load_average']} before, "
        f"{after['load_average']} after (other jobs on the same cores: wall seconds are stretched; CPU seconds beside them).",
        "",
        f"Start (solve or load, compile, warm): {start:.1f} s. Your win probability, first decision of a turn (the turn's best response "
        f"solved): median {data['first_of_turn_wall_s']['median'] if first else '-'} s, max {max(first) if first else '-'} s; "
        f"later decisions of the turn: median {data['later_in_turn_wall_s']['median'] if later else '-'} s. Your fill with the "
        f"opponents' turns after it: median {statistics.median(theirs) * 1000 if theirs else 0:.0f} ms.",
        "",
        "| open boxes | re-throws left | P(win) offered | wall s | CPU s |",
        "|---|---|---|---|---|",
        *[f"| {r['open']} | {r['throws_left']} | {'yes' if r['available'] else 'no'} | {r['wall_s']} | {r['cpu_s']} |" for r in rows],
        "",
        "End: " + "; ".join(data["standings"]),
        "",
        f"Command: `python benchmarks/bench_play_opponents.py --game {args.game} --rules {args.rules} --opponents {args.opponents} --seed {args.seed} --out {args.out}`",
    ]
    (args.out / "opponents-cpu.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    main()
