"""``advise --opponent`` on the command line: one clear error line for bad input, and a last turn
whose win probability is known by hand (ties shared, won or lost)."""

import json

import pytest
from typer.testing import CliRunner

from jaxsolve.cli import app

runner = CliRunner()
ME = "aces=3 twos=6 threes=9 fours=12 fives=15 sixes=18 three_kind=20 four_kind=- full_house=25 small_straight=30 large_straight=40 kniffel=-"
DONE = ME + " chance=28"  # a finished sheet: 206 on it, 241 with the upper bonus


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--opponent", "aces=3 twos=-"], "sheet then his score"),
        (["--opponent", "aces=3 twos=- 1"], "below the 3 points"),
        (["--opponent", "aces=7 5"], "aces=7 is impossible"),
        (["--score", "10"], "goes with --opponent"),
        (["--opponent", "start 0", "--objective", "goals"], "finish first"),
    ],
)
def test_bad_input_is_one_line(extra, message):
    result = runner.invoke(app, ["advise", "kniffel", "--dice", "6", "6", "6", "5", "5", *extra])
    assert result.exit_code == 1, result.output
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output


SLOW = pytest.mark.slow


@pytest.mark.parametrize(
    "score, ties, expected",
    [(241, "share", 0.5), pytest.param(241, "win", 1.0, marks=SLOW), pytest.param(241, "lose", 0.0, marks=SLOW), (240, "share", 1.0), pytest.param(242, "win", 0.0, marks=SLOW)],
)
def test_last_box_against_a_finished_sheet(score, ties, expected):
    """Chance with 6 6 6 5 5 makes my final 213 + 28 = 241 against his fixed final."""
    args = ["advise", "kniffel", "--x64", "--quiet", "--json", "-p", ME, "--dice", "6", "6", "6", "5", "5", "--throws-left", "0"]
    result = runner.invoke(app, [*args, "--opponent", f"{DONE} {score}", "--ties", ties])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["score"] == 213 and answer["unit"] == "P(finish first)"
    assert [o["box"] for o in answer["options"]] == ["chance"]
    assert answer["value"] == pytest.approx(expected, abs=1e-12)
