"""Progress bars: on stderr (stdout stays the answer), with done of total and the time left;
silent when quiet; every update reaches the callbacks registered with ``listening``."""

from jaxsolve.core import progress


def test_steps_bar_writes_to_stderr_with_the_time_left(capsys):
    heard = []
    with progress.listening(lambda *update: heard.append(update)):
        with progress.steps_bar(None, "solving x, layers") as steps:
            steps(1, 4)  # a solver's progress callback: (done, total)
            steps.advance(3)
    out, err = capsys.readouterr()
    assert out == ""
    assert "solving x, layers" in err and "4/4" in err and "left" in err
    assert heard == [("solving x, layers", 1, 4), ("solving x, layers", 4, 4)]


def test_quiet_bars_print_nothing_but_are_heard(capsys):
    heard = []
    with progress.listening(lambda *update: heard.append(update)):
        with progress.steps_bar(3, "games", quiet=True) as steps:
            steps.advance()
        with progress.layer_bars({0: 2, 1: 3}, quiet=True) as advance:
            advance(1, 3)
            advance(0, 2)
    assert capsys.readouterr() == ("", "")
    assert heard == [("games", 1, 3), ("layer 1", 1, 2), ("layer 0", 2, 2)]  # layers done of layers
    with progress.steps_bar(3, "games", quiet=True) as steps:
        steps.advance()
    assert len(heard) == 3  # the callback is gone after the block


def test_layer_bars_count_layers_done_of_layers(capsys):
    with progress.layer_bars({0: 2, 1: 3}) as advance:
        advance(1, 3)
        advance(0, 1)
    out, err = capsys.readouterr()
    assert out == ""
    assert "layers done 1/2" in err and "layer  1" in err and "left" in err


def test_off_a_terminal_each_update_worth_telling_is_one_whole_line(capsys, monkeypatch):
    """stderr no terminal (a log): plain lines, never cut at 80 columns, each with done of
    total and the time left; a layer done is a line, and a long stretch without one too."""
    monkeypatch.delenv("FORCE_TERMINAL", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    label = "a label long enough that a line of eighty columns would cut the figures after it off"
    with progress.layer_bars({0: 2, 11: 3}, label=label) as advance:
        advance(11, 3)
        advance(0, 1)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith(f"{label}s done 0/2: 0/5, 0:00:00 elapsed"), lines  # the work began
    assert lines[1].startswith(f"{label} 11: 3/3, 0:00:00 elapsed") and lines[1].endswith("left"), lines
    assert any(line.startswith(f"{label}s done 1/2: 3/5,") and "left" in line for line in lines), lines
    assert not any("━" in line or "\x1b" in line for line in lines)
    monkeypatch.setattr(progress, "PLAIN_EVERY", 0.0)
    with progress.steps_bar(100, "games") as steps:
        for done in (10, 20, 30):
            steps(done)
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(",")[0] for line in lines] == ["games: 0/100", "games: 10/100", "games: 20/100", "games: 30/100"], lines


def test_off_a_terminal_no_time_left_is_guessed_from_the_first_hundredth_of_the_work(capsys, monkeypatch):
    """A solve's first layers are a sliver of its states and carry its set-up: a rate taken
    there promised hundreds of hours. Below 1 % done the line says the time left is unknown."""
    monkeypatch.delenv("FORCE_TERMINAL", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    monkeypatch.setattr(progress, "PLAIN_EVERY", 0.0)
    with progress.steps_bar(10_000, "states") as steps:
        for done in (5, 99, 100, 5000):
            steps(done)
    lines = capsys.readouterr().err.splitlines()
    by_done = {line.split(", ")[0]: line for line in lines}
    assert by_done["states: 5/10,000"].endswith("time left unknown") and by_done["states: 99/10,000"].endswith("time left unknown"), lines
    assert "about" in by_done["states: 100/10,000"] and "about" in by_done["states: 5,000/10,000"], lines
