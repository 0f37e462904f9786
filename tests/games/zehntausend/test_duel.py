"""The Zehntausend duel on the race-duel engine: against plain value iteration, advice, play,
exports and the command line."""

import functools
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from duel_reference import last_turn_probability, option_values, solve_reference
from jaxsolve import play
from jaxsolve.cli import app
from jaxsolve.errors import JaxsolveError
from jaxsolve.core import race
from jaxsolve.games.zehntausend import duel, duel_advisor, duel_commands
from jaxsolve.games.zehntausend.duel_rules import PRESETS, DuelRules
from jaxsolve.games.zehntausend.rules import PRESETS as TURN_PRESETS
from jaxsolve.games.zehntausend import scoring
from jaxsolve.games.zehntausend.scoring import build_tables, parse_throw
from jaxsolve.games.played import PlayError

runner = CliRunner()


@pytest.fixture(scope="module")
def small():
    return duel.solve(PRESETS["small"])


@pytest.mark.parametrize(
    "rules",
    [
        DuelRules("t-300", goal=300),
        DuelRules("t-400-entry", goal=400, entry=150),
        DuelRules("t-300-last", goal=300, end="last-turn", bound=400),
    ],
    ids=lambda r: r.name,
)
def test_against_plain_value_iteration(rules):
    sol, ref = solved_pair(rules)
    assert sol.dtype == "float64" and sol.residual <= 1e-13
    assert np.max(np.abs(sol.start - ref)) < 1e-9


@functools.lru_cache(maxsize=None)
def solved_pair(rules):
    """The duel solved and its turn-start values by plain value iteration (the reference)."""
    return duel.solve(rules), solve_reference(rules.goal, rules.entry, rules.end, rules.bound)[0]


NEAR_THROWS = ("123466", "155234", "11236", "5234", "1155", "152", "15", "1")


def reachable(rules, turn, dice):
    """Whether a turn brings ``turn`` points and ``dice`` dice thrown together (the advisor
    refuses other positions)."""
    try:
        scoring.check_reachable(rules.turn_rules, turn, dice)
    except JaxsolveError:
        return False
    return True


def near_positions(rules):
    """``(mine, theirs, turn, they_started)`` with turn totals around the goal (the bound under
    the last-turn rule), and under the last-turn rule last turns around the score to beat."""
    goal, top = rules.goal, rules.top
    out = []
    for mine in (0, goal - 250, goal - 50):
        for theirs in (0, goal - 100):
            for they_started in (False, True) if rules.last_turn else (False,):
                out += [(mine, theirs, total - mine, they_started) for total in (top - 150, top - 50, top, top + 100) if total >= mine]
    if rules.last_turn:  # they reached the goal: my last turn
        for theirs in (goal, top):
            out += [(mine, theirs, total - mine, True) for mine in (0, goal - 50) for total in (theirs - 100, theirs, theirs + 50) if total >= mine]
    return out


@pytest.mark.parametrize(
    "rules",
    [
        DuelRules("t-300", goal=300),
        DuelRules("t-500", goal=500),
        DuelRules("t-300-last", goal=300, end="last-turn", bound=400),
        DuelRules("t-500-last", goal=500, end="last-turn", bound=600),
    ],
    ids=lambda r: r.name,
)
def test_every_option_near_the_goal_against_plain_value_iteration(rules):
    """Every option's value, not only the best: a set-aside that reaches the goal (the bound)
    is thrown on with its bust risk, the write is worth the write."""
    sol, ref = solved_pair(rules)
    below = 0
    for mine, theirs, turn, they_started in near_positions(rules):
        for throw in NEAR_THROWS:
            faces = [int(f) for f in throw]
            if not reachable(rules, turn, len(faces)):
                continue
            opts = duel_advisor.advise(sol, mine, theirs, turn, faces, they_started)
            want = option_values(ref, parse_throw(faces), mine, theirs, turn, they_started, goal=rules.goal, end=rules.end, bound=rules.bound)
            got = {("write", o.points) if o.action == "write" else ("aside", o.points, o.dice): o.value for o in opts}
            where = (mine, theirs, turn, they_started, throw)
            assert set(got) == set(want), where
            for key, value in got.items():
                assert value == pytest.approx(want[key], abs=1e-9), (where, key)
            assert opts[0].value == pytest.approx(max(want.values()), abs=1e-9)
            below += sum(o.action == "aside" and o.value < opts[0].value - 1e-6 and mine + o.points >= rules.top for o in opts)
    assert below > 0  # set-asides past the goal (bound) that are worse than writing


def test_near_the_goal_throwing_on_risks_a_bust(small):
    # goal 500, 300 banked, a 1 set aside (100) and five dice thrown: writing 200 wins at once,
    # setting aside another 1 throws four dice on, which can bust
    opts = {o.label: o for o in duel_advisor.advise(small, 300, 0, 100, [1, 2, 3, 4, 6])}
    t = build_tables(small.rules.turn_rules)
    bust4 = float(t.row_prob[(t.row_n == 4) & (t.write == 0)].sum())
    assert bust4 == pytest.approx(204 / 1296, abs=1e-12)  # four dice of 2, 3, 4, 6 with no face three times: 4^4 - 4 * 13 of 6^4
    they_win = small.start[0, 0, 6]  # after the bust they move at (0, 300)
    assert they_win == pytest.approx(0.568, abs=1e-3)
    assert opts["write 200"].value == 1.0
    assert opts["aside 1, throw 4"].value == pytest.approx(1 - bust4 * they_win, abs=1e-12)
    # with 450 set aside no set-aside is a sure win: each risks the bust of the dice thrown on
    for throw in ([1, 2, 3, 4, 6, 6], [1, 5, 5, 2, 3, 4], [1, 1, 1, 5, 2, 3]):
        opts = duel_advisor.advise(small, 0, 0, 450, throw)
        assert opts[0].action == "write" and opts[0].value == 1.0
        assert all(o.value < 1.0 - 1e-3 for o in opts if o.action == "aside"), throw


def test_cli_regret_of_a_set_aside_past_the_goal():
    r = runner.invoke(app, ["advise", "zehntausend-duel", "--rules", "small", "--mine", "300", "--theirs", "0", "--turn", "100", "--dice", "12346", "--json"])
    assert r.exit_code == 0, r.output
    regret = {o["option"]: o["regret"] for o in json.loads(r.stdout)["options"]}
    assert regret["write 200"] == 0 and regret["aside 1, throw 4"] > 0.05


def test_play_throws_on_past_the_goal_and_records_the_loss(small):
    s = play.new_game("zehntausend-duel", "small", small, seed=3)
    s.enter("1 1 1 5 5 2")
    chosen = s.choose("aside 1 1 1")
    assert chosen.regret > 0.05 and not s.over
    assert (s.state.points, s.state.dice, s.mover()) == (1000, 3, "you")
    s.enter("2 3 4")  # bust: the 1000 are lost
    assert s.mover() == "them" and s.state.you == 0
    s = play.new_game("zehntausend-duel", "small", small, seed=3)
    s.enter("1 1 1 5 5 2")
    s.choose("aside 1 1 1")
    s.enter("5 2 3")
    assert s.options()[0].label == "write 1050"
    s.choose("write")
    assert s.over and s.state.winner == "you" and s.state.you == 500
    assert s.summary().regret == pytest.approx(chosen.regret, abs=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize(
    "kwargs",
    [dict(goal=1000, entry=350), dict(goal=500, end="last-turn", bound=700, entry=200), dict(goal=400, scoring="doubling")],
    ids=str,
)
def test_against_plain_value_iteration_larger(kwargs):
    rules = DuelRules("t", **kwargs)
    sol = duel.solve(rules)
    ref, _ = solve_reference(rules.goal, rules.entry, rules.end, rules.bound, TURN_PRESETS[rules.scoring])
    assert np.max(np.abs(sol.start - ref)) < 1e-9


@pytest.mark.slow
def test_last_turn_table_against_its_own_recursion():
    rules = DuelRules("t", goal=300, end="last-turn", bound=400)
    sol = duel.solve(rules)
    for d in (2, 5, 9):
        assert sol.last[d] == pytest.approx(last_turn_probability(rules.turn_rules, d), abs=1e-12)
    assert np.all(np.diff(sol.last) <= 1e-15)  # needing more is never easier


def test_facts_of_the_small_duel(small):
    # symmetric facts that hold for any first-to-goal duel: a player to move at a tie has the edge
    G = small.rules.levels
    assert 0.5 < small.game_value < 1.0
    assert all(small.start[0, a, a] > 0.5 for a in range(G))
    # more banked is never worse, the other player's points never help
    assert np.all(np.diff(small.start[0], axis=0) >= -1e-12) and np.all(np.diff(small.start[0], axis=1) <= 1e-12)
    assert small.num_states == 7 * 10 * sum(10 - a for a in range(10))


@pytest.mark.slow
def test_the_entry_minimum_costs_the_start_player():
    free, entry = (duel.solve(DuelRules("t", goal=1000, entry=e)) for e in (0, 350))
    assert entry.game_value < free.game_value
    # once both have entered (banked > 0) the minimum no longer matters
    assert np.max(np.abs(free.start[0, 1:, 1:] - entry.start[0, 1:, 1:])) < 1e-12


def test_solve_reports_progress_by_layers(small):
    calls = []
    sol = duel.solve(PRESETS["small"], progress=lambda done, total: calls.append((done, total)))
    n = len(sol.rounds)
    assert calls[0] == (0, n) and calls[-1] == (n, n) and len(calls) > 2
    assert all(total == n for _, total in calls) and [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert np.array_equal(sol.start, small.start)  # reporting changes no value


def test_layers_group_bust_pairs():
    layers = duel.duel_layers(DuelRules("t", goal=300, end="last-turn", bound=400))
    assert layers.index.shape == (11, 12) and list(layers.size[:3]) == [2, 4, 6]
    for _idx, part, n in zip(layers.index, layers.partner, layers.size):
        assert np.all(part[part[:n]] == np.arange(n))  # partner of partner is self
    with pytest.raises(JaxsolveError, match="outside its layer"):
        race.make_layers(np.arange(3), np.array([0, 1, 2]), np.array([1, 0, 2]))


def test_advice_ranks_every_set_aside_with_regret(small):
    opts = duel_advisor.advise(small, 0, 0, 0, [1, 5, 5, 2, 3, 4])
    labels = [o.label for o in opts]
    assert "write 200" in labels and any(lab.startswith("aside 1 1*") for lab in labels)
    assert opts[0].value == max(o.value for o in opts)
    V, S = duel_advisor.tables_at(small, 0, 0, False)
    aside_1 = next(o for o in opts if o.set_aside == ("1",))
    assert aside_1.value == pytest.approx(V[2, 5], abs=0)  # 100 aside, five dice on
    write = next(o for o in opts if o.action == "write")
    assert write.value == pytest.approx(1.0 - small.start[0, 0, 4], abs=1e-15)  # they move at (0, 200)
    with pytest.raises(JaxsolveError, match="scores nothing"):
        duel_advisor.advise(small, 0, 0, 0, [2, 3, 4, 6, 6, 2])
    with pytest.raises(JaxsolveError, match="multiple of 50"):
        duel_advisor.advise(small, 30, 0, 0, [1])


@pytest.mark.parametrize(
    "turn, faces, message",
    [
        (50, [1, 5, 5, 2, 3, 4], "a turn total of 50 with 6 dice thrown cannot occur"),
        (0, [1, 5, 5], "a turn total of 0 with 3 dice thrown cannot occur"),
    ],
)
def test_advice_refuses_turn_totals_no_turn_reaches(small, turn, faces, message):
    with pytest.raises(JaxsolveError, match=message):
        duel_advisor.advise(small, 0, 0, turn, faces)
    r = runner.invoke(app, ["advise", "zehntausend-duel", "--rules", "small", "--mine", "0", "--theirs", "0", "--turn", str(turn), "--dice", "".join(map(str, faces))])
    lines = r.output.strip().splitlines()
    assert r.exit_code == 1 and len(lines) == 1 and lines[0].startswith(f"error: {message}"), r.output


def test_entry_minimum_forbids_the_early_write():
    sol = duel.solve(PRESETS["small-entry"])
    opts = duel_advisor.advise(sol, 0, 0, 0, [1, 2, 3, 4, 6, 6])
    assert [o.action for o in opts] == ["aside"]
    assert any(o.action == "write" for o in duel_advisor.advise(sol, 0, 0, 100, [1, 2, 3, 4, 6]))


def test_export_round_trip_and_tampering(small, tmp_path):
    path = tmp_path / "duel.npy"
    files = duel_commands.save(path, small)
    assert [p.name for p in files] == ["duel.npy", "duel-last.npy"]
    back = duel_commands.load(path)
    assert back.rules == small.rules and np.array_equal(back.start, small.start)
    np.save(tmp_path / "other.npy", small.start)
    with pytest.raises(JaxsolveError):
        duel_commands.load(tmp_path / "other.npy")


def test_cli_solve_advise_and_errors(tmp_path):
    out = tmp_path / "s.npy"
    r = runner.invoke(app, ["solve", "zehntausend-duel", "--rules", "small", "--json", "--out", str(out)])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert 0.5 < data["game_value"] < 1 and data["fairest_compensation"]["points"] >= 0
    r = runner.invoke(app, ["advise", "zehntausend-duel", "--table", str(out), "--mine", "0", "--theirs", "0", "--dice", "155234", "--json"])
    assert r.exit_code == 0, r.output
    adv = json.loads(r.stdout)
    assert adv["options"][0]["regret"] == 0 and len(adv["options"]) >= 4
    r = runner.invoke(app, ["advise", "zehntausend-duel", "--table", str(out), "--mine", "0", "--theirs", "600", "--dice", "155234"])
    assert r.exit_code != 0 and "error:" in r.output and "Traceback" not in r.output
    # a table of other rules than those asked for is refused by every command that reads one
    for command in (["advise", "zehntausend-duel", "--mine", "0", "--theirs", "0", "--dice", "155234"], ["simulate", "zehntausend-duel", "--games", "10"], ["plot", "zehntausend-duel", "--out", str(tmp_path)]):
        r = runner.invoke(app, [*command, "--table", str(out), "--rules", "small-entry"])
        assert r.exit_code != 0 and "holds small, not small-entry" in r.output and "Traceback" not in r.output, command
    r = runner.invoke(app, ["solve", "zehntausend-duel", "--goal", "333"])
    assert r.exit_code != 0 and "multiple of 50" in r.output


def test_play_against_the_computer_with_undo(small, tmp_path):
    s = play.new_game("zehntausend-duel", "small", small, seed=3)
    s.enter("1 5 5 2 3 4")
    before = s.options()
    s.choose("write")
    assert s.state.you == 200 and s.mover() == "them"
    s.undo()
    assert s.options() == before and s.state.you == 0
    with pytest.raises(PlayError, match="not a usable set-aside"):
        s.choose("aside 2")
    s.choose("aside 1")
    assert (s.state.points, s.state.dice) == (100, 5)
    s.enter("2 3 4 6 6")  # bust: their turn
    assert s.mover() == "them" and s.state.you == 0
    while not s.over:
        s.enter("")
    assert s.state.winner in ("you", "them")
    path = play.save_game(s, tmp_path / "g.json")
    again = play.load_game(path, solution=small)
    assert again.state == s.state


@pytest.mark.slow
def test_play_last_turn_rule():
    rules = DuelRules("t", goal=300, end="last-turn", bound=400)
    sol = duel.solve(rules)
    s = play.new_game("zehntausend-duel", rules, sol, seed=1)
    s.enter("1 1 1 2 3 4")  # 1000: capped at the bound 400, the goal is reached
    s.choose("write")
    assert s.state.last and s.state.you == 400 and s.mover() == "them"
    while not s.over:
        s.enter("")
    assert s.state.winner in ("you", "them")


def test_rules_checks():
    for kwargs, message in [
        (dict(goal=330), "multiple of 50"),
        (dict(goal=500, entry=500), "below the goal"),
        (dict(end="sudden"), "unknown end rule"),
        (dict(goal=500, bound=600), "only to the last-turn"),
        (dict(goal=500, end="last-turn", bound=450), "at or above the goal"),
        (dict(scoring="nope"), "unknown scoring rules"),
    ]:
        with pytest.raises(JaxsolveError, match=message):
            DuelRules("t", **kwargs)


def test_a_new_goal_redoes_the_derived_bound():
    assert PRESETS["first-to-10000"].replace(goal=2000).bound == 2000
    assert PRESETS["last-turn"].replace(goal=2000).bound == 4000
    assert PRESETS["last-turn"].replace(bound=10500).bound == 10500
    assert PRESETS["small"].replace(goal=500) == PRESETS["small"]


def test_decision_maps_and_departures_from_peter(small, tmp_path):
    from jaxsolve.games.zehntausend import duel_plot

    totals = [250, 300]
    grid = duel_plot.decision_grid(small, totals)
    assert grid.shape == (2, 6, 10, 10) and set(np.unique(grid)) <= {0, 1}
    V, S = duel.decision_tables(small, [5])
    assert grid[0, 2, 3, 4] == int(V[3, 4, 0, 3] > S[3, 4, 0])  # 250 with three dice at (150, 200)
    away = duel_plot.departures(grid, totals, small.rules)
    d = away["300/1"]  # Peter writes 300 with one die
    mine = np.arange(10)[:, None] * 50 + 300 < 500
    assert d["peter"] == "write" and d["positions"] == int(np.broadcast_to(mine, (10, 10)).sum())
    assert d["differ"] == int((grid[1, 0][np.broadcast_to(mine, (10, 10))] == 1).sum())
    path = duel_plot.decision_maps(small, tmp_path, totals, grid)
    assert path.exists() and path.read_bytes()[:4] == b"\x89PNG"


def test_a_bound_too_large_for_memory_is_refused_before_anything_is_allocated():
    with pytest.raises(JaxsolveError, match=r"bound 20000000 is too large: a solve would need about 16\.3 TiB .*lower the bound or the goal"):
        DuelRules("x", end="last-turn", bound=20_000_000)
    assert DuelRules("x", goal=20_000, end="last-turn", bound=40_000).top == 40_000  # large but within memory
    for command in ("solve", "simulate", "advise"):
        args = [command, "zehntausend-duel", "--rules", "last-turn", "--bound", "20000000"]
        if command == "advise":
            args += ["--mine", "0", "--theirs", "0", "--dice", "155234"]
        r = runner.invoke(app, args)
        lines = r.output.strip().splitlines()
        assert r.exit_code == 1 and len(lines) == 1 and lines[0].startswith("error: bound 20000000 is too large"), r.output


def test_plot_refuses_turn_totals_beyond_the_bound(tmp_path):
    r = runner.invoke(app, ["plot", "zehntausend-duel", "--rules", "small", "--totals", "100,100000", "--out", str(tmp_path)])
    assert r.exit_code == 1 and r.output.strip() == "error: --totals must be below 500 (the largest final score of small), got 100000", r.output
