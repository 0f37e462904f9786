"""Which reading of the Scandinavian rules gives the published 248.63 (Larsson and Sjöberg, 2012)?

Solves the base game and candidate readings in float64 and writes their game values to
``OUT.md`` and ``OUT.json`` (``--out OUT``, default ``readings`` in the current folder; the
committed ones are ``results/yatzy/readings``):

* the stated rules (preset ``yatzy``) and the house rules ``fh5``, ``tp4``, ``fh5+tp4``;
* ``tp1``: two pairs also takes a single pair (2 x v), two different pairs score 2a + 2b;
* ``pair``: two pairs scored like one pair (2 x the highest pair, whatever else is showing).

    python scripts/yatzy_readings.py --out results/yatzy/readings
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import jax

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
jax.config.update("jax_enable_x64", True)

from jaxsolve.games.category.sheets import yatzy  # noqa: E402
from jaxsolve.bench import machine  # noqa: E402
from jaxsolve.games.category.engine import solver  # noqa: E402
from jaxsolve.games.category.sheets.sheet import Box  # noqa: E402

PUBLISHED = 248.63


def pair_reading():
    base = yatzy.YATZY_SHEET
    two = base[7]
    boxes = base[:7] + (Box(two.name, "groups", (2,), aliases=two.aliases),) + base[8:]
    return yatzy.scandinavian(name="yatzy+two-pairs-as-pair").replace(boxes=boxes, name="yatzy+two-pairs-as-pair")


READINGS = [
    ("stated rules (preset `yatzy`)", lambda: yatzy.get_rules("yatzy")),
    ("five of a kind is a full house (`yatzy+fh5`)", lambda: yatzy.get_rules("yatzy+fh5")),
    ("four of a kind is two pairs (`yatzy+tp4`)", lambda: yatzy.get_rules("yatzy+tp4")),
    ("both (`yatzy+fh5+tp4`)", lambda: yatzy.get_rules("yatzy+fh5+tp4")),
    ("two pairs also takes a single pair (`scandinavian(tp1=True)`)", lambda: yatzy.scandinavian(tp1=True)),
    ("two pairs scored as one pair (2 x highest pair)", pair_reading),
]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path("readings"), help="path of the table without suffix: writes .md and .json (default: readings in the current folder)")
    args = ap.parse_args(argv)
    rows = []
    for label, make in READINGS:
        rules = make()
        t0 = time.perf_counter()
        value = solver.solve(rules).game_value
        rows.append({"reading": label, "rules": rules.name, "value": value, "rounds_to_published": round(value, 2) == PUBLISHED, "seconds": time.perf_counter() - t0})
        print(f"{label:70s} {value:.7f}", flush=True)
    m = machine()
    out = args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps({"machine": m, "published": PUBLISHED, "rows": rows}, indent=2) + "\n")
    lines = [
        "# Readings of the Scandinavian rules and the published 248.63",
        "",
        f"Float64 game values (`python scripts/yatzy_readings.py`; {m['cpu']}, jax {m['jax']}, {m['date']}). The published value is",
        f"{PUBLISHED} (M. Larsson and A. Sjöberg, \"Optimal Yatzy strategy\", KTH, 2012).",
        "",
        "| reading | game value | rounds to 248.63 |",
        "| --- | ---: | --- |",
    ] + [f"| {r['reading']} | {r['value']:.7f} | {'yes' if r['rounds_to_published'] else 'no'} |" for r in rows] + [""]
    out.with_suffix(".md").write_text("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
