"""The APL article's tables: the printed figures, and the same tables recomputed next to them
(``apl_tables``, rendered by ``apl_tables_markdown``). M. Mitsos, "Analyse von Kniffel und
Ermittlung der optimalen Spielstrategie über APL", APL-Journal 28 (2009), issue 1/2; tables 1,
10, 21, 22.

Rows are in table order (``BOX_NAMES``); success probabilities in percent, expected values in
points. Tables 21/22 analyse the start position with the first throw ``EW = 1 1 2 2 5`` (the
dice glyphs are lost in the transcription; this throw reproduces E(HABE; EW) = 21.1489).
"""

from __future__ import annotations

from typing import Any

from jaxsolve.games.category.answers import advisor, analysis
from jaxsolve.games.category.sheets.sheet import BOX_NAMES
from jaxsolve.games.category.sheets.position import Position
from jaxsolve.games.category.sheets.rules import CategoryRules

EW = (1, 1, 2, 2, 5)

# Tables 1 (the first throw only) and 10 (one turn), in table order: (W %, E points) per box.
TABLE1, TABLE10 = (
    dict(zip(BOX_NAMES, printed))
    for printed in (
        [
            (59.81, 0.8333), (59.81, 1.6667), (59.81, 2.5000), (59.81, 3.3333), (59.81, 4.1667), (59.81, 5.0000),
            (21.30, 3.7269), (2.01, 0.3511), (3.86, 0.9645), (15.43, 4.6296), (3.09, 1.2346), (0.08, 0.0386), (100.00, 17.5000),
        ],
        [
            (83.85, 1.5278), (83.85, 3.0556), (83.85, 4.5833), (83.85, 6.1111), (83.85, 7.6389), (83.85, 9.1667),
            (54.13, 10.2087), (13.23, 2.4215), (19.12, 4.7806), (41.18, 12.3536), (12.97, 5.1899), (1.26, 0.6316), (100.00, 21.2500),
        ],
    )
)

COLUMNS = ("turn_nothrow", "turn_ew", "turn_opt", "game_nothrow", "game_ew", "game_opt")
ROWS = BOX_NAMES + ("sum", "rest", "game")

# Tables 21 (W: boxes met, %) and 22 (E: points) side by side, row by row: each a value per column.
TABLES_21_22 = {
    "aces": ((50.15, 50.15, 50.15, 42.44, 66.67, 24.63), (0.0000, 0.0000, 0.0000, 0.3781, 0.0000, 0.1575)),
    "twos": ((20.83, 20.83, 20.83, 0.00, 0.00, 0.00), (0.0000, 0.0000, 0.0000, 0.7253, 2.6667, 0.4391)),
    "threes": ((6.56, 6.56, 6.56, 3.47, 0.00, 2.89), (0.0000, 0.0000, 0.0000, 0.7870, 0.0000, 0.6145)),
    "fours": ((1.16, 1.16, 1.16, 1.16, 0.00, 0.96), (0.0000, 0.0000, 0.0000, 0.8333, 0.0000, 1.0110)),
    "fives": ((0.00, 0.00, 0.00, 0.00, 0.00, 0.00), (0.0000, 0.0000, 0.0000, 0.9002, 0.0000, 1.3558)),
    "sixes": ((0.00, 0.00, 0.00, 16.20, 0.00, 13.31), (0.0000, 0.0000, 0.0000, 0.8642, 0.0000, 1.3062)),
    "three_kind": ((19.29, 19.29, 19.29, 15.43, 0.00, 13.72), (2.8048, 3.2917, 3.1780, 0.6096, 0.0000, 1.3834)),
    "four_kind": ((2.01, 2.01, 2.01, 1.93, 0.00, 7.18), (0.3376, 0.4267, 0.6645, 0.0965, 0.0000, 0.4359)),
    "full_house": ((0.00, 0.00, 0.00, 3.86, 33.33, 15.43), (0.8681, 0.7716, 1.0858, 0.9324, 8.3333, 2.5024)),
    "small_straight": ((0.00, 0.00, 0.00, 12.35, 0.00, 11.70), (3.7037, 3.3333, 7.6888, 3.7037, 0.0000, 4.7261)),
    "large_straight": ((0.00, 0.00, 0.00, 3.09, 0.00, 9.26), (1.2346, 1.4815, 3.8670, 1.2346, 0.0000, 2.9150)),
    "kniffel": ((0.00, 0.00, 0.00, 0.08, 0.00, 0.91), (0.0386, 0.0386, 0.1857, 0.0386, 0.0000, 0.5298)),
    "chance": ((0.00, 0.00, 0.00, 0.00, 0.00, 0.00), (11.0725, 11.8056, 8.5971, 1.6860, 0.0000, 1.5817)),
    "sum": ((100.00, 100.00, 100.00, 100.00, 100.00, 100.00), (20.0598, 21.1489, 25.2669, 12.7894, 11.0000, 18.9584)),
    "rest": ((0.00, 0.00, 0.00, 1035.78, 1039.39, 1043.55), (0.0000, 0.0000, 0.0000, 172.9645, 176.0446, 171.0149)),
    "game": ((0.00, 0.00, 0.00, 1135.78, 1139.39, 1143.55), (0.0000, 0.0000, 0.0000, 185.7539, 187.0446, 189.9733)),
}
TABLE21 = {row: w for row, (w, _) in TABLES_21_22.items()}
TABLE22 = {row: e for row, (_, e) in TABLES_21_22.items()}

# Optimal keep for EW as printed (the transcription keeps only the number of dice).
KEEPS_PRINTED = {
    ("goals", "turn"): "nothing (every option meets a box: a tie)",
    ("goals", "game"): "5 dice (glyphs lost; a full house at 33.33 % needs a re-throw of one die)",
    ("score", "turn"): "1 die (glyph lost)",
    ("score", "game"): "4 dice (glyphs lost)",
}


def _mark(ours, printed, digits):
    if ours is None:
        return "n/a"
    return "=" if round(ours, digits) == round(printed, digits) else "≠"


def apl_tables(rules: CategoryRules) -> dict:
    """The article's tables 1, 10, 21 and 22 recomputed under ``rules`` (the ``kniffel-apl``
    preset), next to the printed figures.

    Every cell carries ``ours``, ``printed`` and ``mark``: ``=`` (equal to the printed digits),
    ``≠`` (different), ``tie`` (different, but the cells of a group of tied options, see
    ``tie_groups``, sum to the printed sum: only the tie-breaking differs), ``n/a`` (not defined here: the
    article prints 0 as the game value of a single-turn column).
    """
    out: dict = {"rules": rules.name, "ew": list(EW)}
    for name, throws, printed in (("table1", 1, TABLE1), ("table10", rules.throws, TABLE10)):
        ours = analysis.single_box_table(rules, throws)
        out[name] = {
            box: {
                "W_percent": {"ours": ours[box][0], "printed": printed[box][0], "mark": _mark(ours[box][0], printed[box][0], 2)},
                "E_points": {"ours": ours[box][1], "printed": printed[box][1], "mark": _mark(ours[box][1], printed[box][1], 4)},
            }
            for box in BOX_NAMES
        }
    start = Position()
    for name, objective, printed_rows, scale, digits in (("table21", "goals", TABLE21, 100.0, 2), ("table22", "score", TABLE22, 1.0, 4)):
        cols: dict[str, dict[str, Any]] = {}
        cases: dict[str, dict[str, Any]] = {"nothrow": dict(throws=1), "ew": dict(dice=EW, throws_left=rules.throws - 1), "opt": {}}
        for case, kwargs in cases.items():
            a = analysis.analyze_turn(rules, start, objective=objective, **kwargs)
            cols[f"turn_{case}"] = {**{b: scale * a.turn_split[b] for b in BOX_NAMES}, "sum": scale * a.turn_value, "rest": 0.0, "game": None}
            game = {b: scale * a.game_turn_split[b] for b in BOX_NAMES}
            cols[f"game_{case}"] = {**game, "sum": scale * a.this_turn, "rest": scale * a.rest, "game": scale * a.game_value}
        table: dict = {"columns": list(COLUMNS), "rows": {}}
        ties = {scope: advisor.tie_groups(rules, objective, scope) for scope in advisor.SCOPES}
        table["tie_groups"] = {scope: [list(g) for g in ties[scope]] for scope in advisor.SCOPES}
        for row in ROWS:
            cells = []
            for j, col in enumerate(COLUMNS):
                ours, pr = cols[col][row], printed_rows[row][j]
                mark = _mark(ours, pr, digits)
                scope = col.split("_")[0]
                if mark == "≠":
                    for group in ties[scope]:
                        if row in group:
                            ours_sum = sum(cols[col][b] for b in group)
                            printed_sum = sum(printed_rows[b][j] for b in group)
                            if abs(ours_sum - printed_sum) <= 0.5 * 10**-digits * len(group):
                                mark = "tie"
                cells.append({"ours": ours, "printed": pr, "mark": mark})
            table["rows"][row] = cells
        keeps = {}
        for scope in advisor.SCOPES:
            adv = advisor.advise(rules, start, EW, rules.throws - 1, objective, scope=scope)
            keeps[scope] = {"ours": adv.best.label, "printed": KEEPS_PRINTED[(objective, scope)]}
        table["best_option_for_ew"] = keeps
        out[name] = table
    return out


def _fmt(x, digits):
    return "n/a" if x is None else f"{x:.{digits}f}"


def apl_tables_markdown(data: dict) -> str:
    """A Markdown rendering of ``apl_tables()``: ours / printed, differences marked."""
    ew = " ".join(map(str, data["ew"]))
    lines = [
        f"# APL article tables recomputed ({data['rules']})",
        "",
        "Generated by `jaxsolve tables kniffel`. Each cell: ours / printed; **≠** marks a difference at the",
        "printed digits, *tie* a difference only in how exactly tied options are broken (the cells of the",
        "tied group sum to the printed sum), n/a a cell the article fills with 0 for a single-turn column.",
        f"Tied groups are found from the computed values: boxes whose fill values lie within {advisor.TIE_TOL:g} (relative)",
        "of the best box after some first-turn throw (`advisor.tie_groups`).",
        "",
    ]
    for name, title in (("table1", "Table 1: first throw only, one box open"), ("table10", "Table 10: one turn (2 throws), one box open")):
        lines += [f"## {title}", "", "| box | W [%] ours | printed | | E [points] ours | printed | |", "|---|---:|---:|---|---:|---:|---|"]
        for box, cell in data[name].items():
            w, e = cell["W_percent"], cell["E_points"]
            lines.append(f"| {box} | {w['ours']:.2f} | {w['printed']:.2f} | {w['mark']} | {e['ours']:.4f} | {e['printed']:.4f} | {e['mark']} |")
        lines.append("")
    heads = {
        "turn_nothrow": "turn, no re-throw",
        "turn_ew": f"turn, EW={ew}",
        "turn_opt": "turn, optimal",
        "game_nothrow": "game, no re-throw",
        "game_ew": f"game, EW={ew}",
        "game_opt": "game, optimal",
    }
    for name, title, digits in (
        ("table21", "Table 21: start position, W (boxes met, %)", 2),
        ("table22", "Table 22: start position, E (points)", 4),
    ):
        t = data[name]
        lines += [f"## {title}", ""]
        for scope, keep in t["best_option_for_ew"].items():
            lines.append(f"- best option for EW = {ew}, {scope}: ours `{keep['ours']}`; printed: {keep['printed']}")
        lines += ["", "| row | " + " | ".join(heads[c] for c in COLUMNS) + " |", "|---|" + "---:|" * len(COLUMNS)]
        for row, cells in t["rows"].items():
            parts = []
            for c in cells:
                mark = {"=": "", "≠": " **≠**", "tie": " *tie*", "n/a": " (n/a)"}[c["mark"]]
                parts.append(f"{_fmt(c['ours'], digits)} / {c['printed']:.{digits}f}{mark}")
            lines.append(f"| {row} | " + " | ".join(parts) + " |")
        lines.append("")
    counts: dict[str, int] = {}
    for name in ("table1", "table10"):
        for cell in data[name].values():
            for c in cell.values():
                counts[c["mark"]] = counts.get(c["mark"], 0) + 1
    for name in ("table21", "table22"):
        for cells in data[name]["rows"].values():
            for c in cells:
                counts[c["mark"]] = counts.get(c["mark"], 0) + 1
    lines.append("Cells: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return "\n".join(lines) + "\n"
