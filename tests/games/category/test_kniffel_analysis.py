"""Kniffel analysis: position notation, APL article tables and start values, advisor vs policy, CLI."""

import json
import random
import sys

import jax.numpy as jnp
import numpy as np
import pytest
from typer.testing import CliRunner

from jaxsolve.cli import app
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.answers import advisor, analysis
from jaxsolve.games.category.checks import apl_article
from jaxsolve.games.category.engine import policy, solutions, solver, tables
from jaxsolve.games.category.sheets.position import Position, format_position, parse_dice, parse_position, possible_scores
from jaxsolve.games.category.sheets.kniffel import BOX_NAMES, get_rules

APL = get_rules("kniffel-apl")
runner = CliRunner()

# M. Mitsos, "Analyse von Kniffel und Ermittlung der optimalen Spielstrategie ueber APL",
# APL-Journal 28 (2009), issue 1/2. Tables 1 and 10: (success %, expected points), table order,
# with the digits printed there.
TABLE1 = [
    (59.81, 0.8333), (59.81, 1.6667), (59.81, 2.5000), (59.81, 3.3333), (59.81, 4.1667), (59.81, 5.0000),
    (21.30, 3.7269), (2.01, 0.3511), (3.86, 0.9645), (15.43, 4.6296), (3.09, 1.2346), (0.08, 0.0386), (100.00, 17.5000),
]
TABLE10 = [
    (83.85, 1.5278), (83.85, 3.0556), (83.85, 4.5833), (83.85, 6.1111), (83.85, 7.6389), (83.85, 9.1667),
    (54.13, 10.2087), (13.23, 2.4215), (19.12, 4.7806), (41.18, 12.3536), (12.97, 5.1899), (1.26, 0.6316), (100.00, 21.2500),
]


@pytest.fixture(scope="module")
def apl_score():
    return solutions.solution(APL, "score")


@pytest.fixture(scope="module")
def apl_goals():
    return solutions.solution(APL, "goals")


# --- position notation -------------------------------------------------------------------


def test_parse_and_format_round_trip():
    pos = parse_position("aces=3 twos=- 4er=12, Dreierpasch:24 kniffel=50", APL)
    assert pos.scores[0] == 3 and pos.scores[1] == 0 and pos.scores[3] == 12 and pos.scores[6] == 24 and pos.scores[11] == 50
    assert pos.upper_total == 15 and pos.all_same_held == 1
    assert pos.state(APL) == (solver.filled_mask([0, 1, 3, 6, 11]), 15, 1)
    assert format_position(pos) == "aces=3 twos=- fours=12 three_kind=24 kniffel=50"
    assert parse_position(format_position(pos), APL) == pos
    assert parse_position("start") == Position() == parse_position("")
    big = parse_position("aces=5 twos=10 threes=15 fours=20 fives=25 sixes=30")
    assert big.upper_total == 105 and big.state(APL)[1] == 63


def test_state_notation_new_and_old_spellings():
    mask = solver.filled_mask(["aces", "kniffel"], APL)
    new = parse_position("filled=aces,kniffel upper=3 all_same_held=1", APL)
    assert new.state(APL) == (mask, 3, 1)
    assert str(new) == "filled=aces,kniffel upper=3 all_same_held=1"
    for text in ("filled=aces,kniffel upper=3 holds50=1", "upper 3 | filled aces,kniffel | armed", "upper 3 | filled aces,kniffel | holds50"):
        assert parse_position(text, APL) == new, text
    with pytest.raises(JaxsolveError, match="given twice"):
        parse_position("filled=aces,kniffel upper=3 all_same_held=1 holds50=1", APL)
    with pytest.raises(JaxsolveError, match="all_same_held needs the kniffel box"):
        parse_position("filled=aces upper=3 holds50=1", APL)


@pytest.mark.parametrize(
    "text, message",
    [
        ("aces=7", "aces=7 is impossible"),
        ("full_house=20", "full_house=20 is impossible"),
        ("kniffel=25", "kniffel=25 is impossible"),
        ("three_kind=4", "three_kind can hold 0, 5..30"),
        ("sevens=3", "unknown box 'sevens'"),
        ("aces=1 1s=2", "given twice"),
        ("aces", "write box=score"),
        ("chance=abc", "not a number"),
    ],
)
def test_bad_positions(text, message):
    with pytest.raises(JaxsolveError, match=message):
        parse_position(text, APL)


def test_dice_parsing():
    assert parse_dice("5 2 2 1 1", APL) == (1, 1, 2, 2, 5) == parse_dice("11225", APL) == parse_dice([1, 1, 2, 2, 5], APL)
    assert parse_dice(None, APL) is None
    for bad, msg in [("1 1 2 2 7", "not a face"), ("1 1 2 2 5 6", "6 dice given"), ("1 2", "2 dice given"), ("1 1 2 2 x", "not a face")]:
        with pytest.raises(JaxsolveError, match=msg):
            parse_dice(bad, APL)


def test_possible_scores_follow_rules():
    assert possible_scores("aces") == frozenset(range(6))
    assert possible_scores("sixes") == frozenset(range(0, 31, 6))
    assert possible_scores("full_house") == {0, 25}
    assert possible_scores("chance") == frozenset(range(5, 31)) | {0}


# --- article figures ----------------------------------------------------------------------


@pytest.mark.parametrize("throws, printed", [(1, TABLE1), (2, TABLE10)], ids=["table1", "table10"])
def test_single_box_tables(throws, printed):
    ours = analysis.single_box_table(APL, throws)  # compiled once per shape, then cheap
    for box, (w, e) in zip(BOX_NAMES, printed):
        assert round(ours[box][0], 2) == pytest.approx(w, abs=1e-9), box
        assert round(ours[box][1], 4) == pytest.approx(e, abs=1e-9), box


def test_start_position_score(apl_score):
    opt = analysis.analyze_turn(APL, Position(), objective="score", sol=apl_score)
    assert round(opt.game_value, 4) == 189.9733  # printed in table 22
    assert opt.game_value == pytest.approx(189.973320, abs=1e-6)  # regression pin (our float64 value)
    assert round(opt.this_turn, 4) == 18.9584 and round(opt.rest, 4) == 171.0149
    assert round(opt.turn_value, 4) == 25.2669
    nothrow = analysis.analyze_turn(APL, Position(), objective="score", throws=1, sol=apl_score)
    assert round(nothrow.game_value, 4) == 185.7539  # printed in table 22
    assert nothrow.game_value == pytest.approx(185.753854, abs=1e-6)  # regression pin (our float64 value)
    assert round(nothrow.this_turn, 4) == 12.7894 and round(nothrow.turn_value, 4) == 20.0598
    ew = analysis.analyze_turn(APL, Position(), dice=(1, 1, 2, 2, 5), throws_left=1, objective="score", sol=apl_score)
    assert round(ew.turn_value, 4) == 21.1489 and round(ew.game_value, 4) == 187.0446 and round(ew.this_turn, 4) == 11.0
    # table 22, last column: the first turn's points per box under the game-optimal policy
    printed = [0.1575, 0.4391, 0.6145, 1.0110, 1.3558, 1.3062, 1.3834, 0.4359, 2.5024, 4.7261, 2.9150, 0.5298, 1.5817]
    assert [round(opt.game_turn_split[b], 4) for b in BOX_NAMES] == printed


def test_start_position_goals(apl_goals):
    opt = analysis.analyze_turn(APL, Position(), objective="goals", sol=apl_goals)
    assert round(100 * opt.game_value, 2) == 1143.55
    assert opt.turn_value == pytest.approx(1.0)
    nothrow = analysis.analyze_turn(APL, Position(), objective="goals", throws=1, sol=apl_goals)
    assert round(100 * nothrow.game_value, 2) == 1135.78
    assert round(100 * nothrow.rest, 2) == 1035.78


@pytest.fixture(scope="module")
def apl_tables(apl_score, apl_goals):
    return apl_article.apl_tables(APL)


def test_apl_tables_marks(apl_tables):
    data = apl_tables
    marks = [c["mark"] for t in ("table1", "table10") for cell in data[t].values() for c in cell.values()]
    assert marks and set(marks) == {"="}
    for t in ("table21", "table22"):
        rows = data[t]["rows"]
        # the game columns' sums, rests and game values all agree with the article
        for row in ("sum", "rest", "game"):
            assert [c["mark"] for c in rows[row][3:]] == ["="] * 3
        assert all(c["mark"] in ("=", "tie", "n/a") for cells in rows.values() for c in cells)
    assert data["table22"]["best_option_for_ew"]["game"]["ours"] == "keep 1 1 2 2, re-throw 1"
    text = apl_article.apl_tables_markdown(data)
    assert "| chance | 100.00 | 100.00 | = |" in text


# --- advisor vs the solver's policy -------------------------------------------------------


def _random_position(rng: random.Random, rules) -> Position:
    n_filled = rng.randrange(0, 13)
    boxes = rng.sample(range(13), n_filled)
    scores = [None] * 13
    for b in boxes:
        scores[b] = rng.choice(sorted(possible_scores(b, rules)))
    return Position(tuple(scores))


def _policy_choice(sol, pos, faces, throws_left):
    """What the engine's one turn policy (``policy.optimal_turn``) does in this situation."""
    rules, objective = sol.rules, sol.objective
    values = jnp.asarray(np.nan_to_num(sol.values.reshape(-1)), sol.values.dtype)
    state = tables.EngineState._make(jnp.asarray([x], jnp.int32) for x in pos.state(rules))
    sp = tables.space(rules.dice)
    counts = sp.counts_of_faces(faces)
    t = sp.throw_index(counts)
    turn = policy.optimal_turn(values, state, rules, objective)
    value = float(turn.values[throws_left, t, 0])
    box = ("box", BOX_NAMES[int(turn.box[t, 0])], value)
    if throws_left == 0:
        return box
    k = int(turn.keep[throws_left - 1, t, 0])
    if k == sp.keep_index(counts):
        return box
    return ("keep", tuple(sp.faces_of(sp.keeps[k])), value)


@pytest.mark.parametrize("objective", ["score", "goals"])
def test_advisor_best_equals_policy(objective, apl_score, apl_goals):
    sol = apl_score if objective == "score" else apl_goals
    rng = random.Random(7 if objective == "score" else 11)
    for _ in range(12):
        pos = _random_position(rng, APL)
        faces = tuple(sorted(rng.randint(1, 6) for _ in range(5)))
        left = rng.randint(0, APL.throws - 1)
        adv = advisor.advise(APL, pos, faces, left, objective, sol=sol)
        kind, what, value = _policy_choice(sol, pos, faces, left)
        assert adv.best.value == pytest.approx(adv.value, abs=1e-9)
        assert adv.best.value == pytest.approx(value, abs=1e-9)
        tol = policy.rtol(sol.values.dtype) * max(1.0, abs(adv.value))
        assert adv.options[-1].regret >= -tol and all(a.value >= b.value - tol for a, b in zip(adv.options, adv.options[1:]))
        chosen = [o for o in adv.options if (o.box if kind == "box" else o.keep) == what and o.kind == kind]
        assert len(chosen) == 1 and chosen[0].regret <= 1e-9
        assert (adv.best.kind, adv.best.box if kind == "box" else adv.best.keep) == (kind, what)
        boxes_listed = {o.box for o in adv.options if o.kind == "box"}
        assert boxes_listed == {BOX_NAMES[b] for b in pos.open_boxes}
        if left == 0:
            assert all(o.kind == "box" for o in adv.options)


def test_advisor_lists_every_distinct_keep(apl_score):
    adv = advisor.advise(APL, Position(), (1, 1, 2, 2, 5), 1, "score", sol=apl_score)
    keeps = [o.keep for o in adv.options if o.kind == "keep"]
    assert len(keeps) == len(set(keeps)) == 3 * 3 * 2 - 1  # every sub-multiset but keeping all
    assert adv.best.keep == (1, 1, 2, 2)
    single = advisor.advise(APL, Position(), (1, 1, 2, 2, 5), 1, "score", scope="turn")
    assert single.best.keep == (5,) and round(single.value, 4) == 21.1489


def test_analysis_errors(apl_score):
    with pytest.raises(JaxsolveError, match="re-throws left must be between 0 and 1"):
        advisor.advise(APL, Position(), (1, 1, 2, 2, 5), 2, "score", sol=apl_score)
    with pytest.raises(JaxsolveError, match="needs the dice"):
        advisor.advise(APL, Position(), None, 0, "score", sol=apl_score)
    full = Position(tuple([0] * 13))
    with pytest.raises(JaxsolveError, match="game is over"):
        advisor.advise(APL, full, (1, 1, 2, 2, 5), 0, "score", sol=apl_score)
    with pytest.raises(JaxsolveError, match="value table is for"):
        analysis.analyze_turn(APL, Position(), objective="goals", sol=apl_score)


# --- command line ---------------------------------------------------------------------------


def test_cli_advise_json(apl_score):
    result = runner.invoke(
        app, ["advise", "kniffel", "--rules", "kniffel-apl", "--position", "aces=3 twos=- kniffel=50", "--dice", "1", "1", "2", "2", "5", "--rolls-left", "1", "--json", "--no-cache"]
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["position"] == "aces=3 twos=- kniffel=50" and out["dice"] == [1, 1, 2, 2, 5]
    opts = out["options"]
    assert opts[0]["regret"] == 0 and opts[0]["value"] == pytest.approx(out["value"])
    assert all(a["value"] >= b["value"] for a, b in zip(opts, opts[1:]))
    assert {o["box"] for o in opts if o["kind"] == "box"} == set(BOX_NAMES) - {"aces", "twos", "kniffel"}


def test_cli_batch_reads_the_new_and_the_old_keys(tmp_path, apl_score):
    from jaxsolve.games.category.engine import table_io

    path = tmp_path / "apl.npy"
    table_io.save_solution(path, apl_score, game="kniffel")
    lines = [
        {"state": {"filled": ["aces", "kniffel"], "upper": 3, "all_same_held": 1}, "dice": [1, 1, 2, 2, 5], "throws_left": 1},
        {"state": {"filled": ["aces", "kniffel"], "upper": 3, "holds50": 1}, "dice": [1, 1, 2, 2, 5], "rolls_left": 1},
        {"position": "aces=3 kniffel=50", "dice": [1, 1, 2, 2, 5], "throws_left": 1, "rolls_left": 1},
    ]
    batch = tmp_path / "questions.jsonl"
    batch.write_text("".join(json.dumps(q) + "\n" for q in lines))
    result = runner.invoke(app, ["advise", "kniffel", "--values", str(path), "--batch", str(batch), "--top", "3", "--no-cache"])
    assert result.exit_code == 1, result.output  # the third line gives both spellings
    new, old, both = (json.loads(x) for x in result.stdout.splitlines())
    assert new == old and len(new["options"]) == 3
    assert both == {"error": "line 3: give throws_left or its old spelling rolls_left, not both"}


def test_cli_advise_text_and_values_export(tmp_path, apl_score):
    from jaxsolve.games.category.engine import table_io

    path = tmp_path / "apl.npy"
    table_io.save_solution(path, apl_score, game="kniffel")
    result = runner.invoke(app, ["advise", "kniffel", "--values", str(path), "--dice", "11225", "--top", "3", "--no-cache"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[2] == "value 187.044559 points"  # regression pin; table 22 prints 187.0446
    assert lines[3].split() == ["#", "option", "value", "regret"]
    assert lines[4].split()[:6] == ["1", "keep", "1", "1", "2", "2,"] and len(lines) == 8 and lines[7].strip().startswith("...")
    bad = runner.invoke(app, ["advise", "kniffel", "--values", str(path), "--objective", "goals", "--dice", "11225"])
    assert bad.exit_code == 1 and "holds the kniffel/kniffel-apl/score/float64 table, not kniffel/kniffel-apl/goals/float64" in bad.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["--dice", "1", "1", "2", "2", "7"], "die '7' is not a face 1..6"),
        (["--dice", "1", "1", "2", "2", "5", "6"], "6 dice given"),
        (["--dice", "11225", "--rolls-left", "2"], "re-throws left must be between 0 and 1"),
        (["--position", "aces=7", "--dice", "11225"], "aces=7 is impossible"),
        (["--position", "full_house=20", "--dice", "11225"], "full_house=20 is impossible"),
        (["--position", "bogus=3", "--dice", "11225"], "unknown box 'bogus'"),
        ([], "needs the dice"),
        (["--rules", "nope", "--dice", "11225"], "unknown Kniffel rules 'nope'"),
        (["--objective", "fun", "--dice", "11225"], "unknown objective 'fun'; choose one of score, goals"),
        (["--values", "missing.npy", "--dice", "11225"], "does not exist"),
    ],
)
def test_cli_bad_input_is_one_line_error(args, message, monkeypatch):
    monkeypatch.setitem(sys.modules, "jaxsolve.games.category.simulation.heuristic", None)
    result = runner.invoke(app, ["advise", "kniffel", "--rules", "kniffel-apl", *args] if "--rules" not in args else ["advise", "kniffel", *args])
    assert result.exit_code == 1, result.output
    assert result.stderr.strip().startswith("error: ") and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.output


def test_cli_heuristic_strategy_uses_module(monkeypatch):
    from jaxsolve.games.category.simulation import heuristic

    seen = {}

    def ratings(rules, position, dice, throws_left, reading, strength, seed):
        seen.update(rules=rules.name, position=str(position), dice=dice, throws_left=throws_left)
        return [{"option": "keep 1 1 2 2, re-throw 1", "value": 12.5}, {"option": "fill chance (11)", "value": 11.0}]

    monkeypatch.setattr(heuristic, "ratings", ratings)
    result = runner.invoke(app, ["advise", "kniffel", "--rules", "kniffel-apl", "--strategy", "heuristic", "--position", "aces=2", "--dice", "1", "1", "2", "2", "5", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert seen == {"rules": "kniffel-apl", "position": "aces=2", "dice": (1, 1, 2, 2, 5), "throws_left": 1}
    assert [o["option"] for o in out["options"]] == ["keep 1 1 2 2, re-throw 1", "fill chance (11)"]
    assert out["options"][1]["regret"] == pytest.approx(1.5)


def test_cli_tables_writes_files(tmp_path, apl_tables, monkeypatch):
    monkeypatch.setattr(apl_article, "apl_tables", lambda rules=None: apl_tables)  # computed once above
    out = tmp_path / "apl_tables.md"
    result = runner.invoke(app, ["tables", "kniffel", "--out", str(out), "--quiet", "--no-cache"])
    assert result.exit_code == 0, result.output
    data = json.loads(out.with_suffix(".json").read_text())
    assert data["table22"]["rows"]["game"][5]["ours"] == pytest.approx(189.973320, abs=1e-6)
    assert "≠" not in out.read_text().split("Cells:")[1]
    bad = runner.invoke(app, ["tables", "kniffel", "--out", str(tmp_path / "x.txt")])
    assert bad.exit_code == 1 and "must end in .md" in bad.stderr


def test_tie_groups_found_from_the_values(apl_goals):
    """Ties are read off the computed option values (within advisor.TIE_TOL), not declared."""
    assert advisor.tie_groups(APL, "score", "turn") == (("three_kind", "four_kind", "chance"),)
    assert advisor.tie_groups(APL, "goals", "turn") == (BOX_NAMES,)
    # the goals objective is symmetric under face f <-> 7 - f where straights allow it
    assert advisor.tie_groups(APL, "goals", "game") == (("aces", "sixes"), ("threes", "fours"))
