"""``jaxsolve play <game>``: an interactive game against the exact solution (the terminal loop).

The game itself is a ``jaxsolve.play`` game object; this module reads lines, shows the game
(rich on a terminal, plain text for pipes or with ``--plain``) and saves it after every move.
It knows no game: ``add_play_command`` adds one subcommand per registered game whose
registration names a game class (``Game.play_game``), with the game's presets, rules fields,
settings (``Game.play_params``) and options of its own (``Game.play_options``, e.g.
``--show-heuristic`` where the game has ratings) as options, and everything shown comes from the
game object (``status``, ``board``, ``ratings``, ``summary``).
"""

import gc
import io
import sys
import time
from pathlib import Path
from typing import Callable, Optional, TextIO

import typer

from jaxsolve.cli.common import Run, add_game_command, group, rules_params
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.game import Param

HELP = "Play a game against the exact solution: ranked options, values, regret, undo, save."

# the options of every game's play command, after its rules and its own settings
OPTIONS = (
    Param("seed", int, None, "Seed of the virtual dice (default: a random one, kept in the save file).", min=0, max=2**63 - 1),
    Param("auto_roll", bool, False, "Throw virtual dice by themselves; you only decide."),
    Param("save", Path, None, "Write the game to this .json file after every move (atomically)."),
    Param("resume", Path, None, "Continue the game saved in this .json file (and keep saving to it unless --save says otherwise)."),
    Param("plain", bool, False, "Plain text (automatic when stdin or stdout is not a terminal)."),
    Param("top", int, 10, "Options listed at each decision (`all` lists every one).", min=1, max=1000),
    Param("timings", bool, False, "Print how long each answer took."),
)
# the settings of a new game shared by every game (the game's own are its ``play_params``)
SETTINGS = ("seed", "auto_roll")


# ----------------------------------------------------------------------------- display

# A shown line is a list of (text, style) pieces: printed as the texts joined (plain) or styled (rich).
Line = list[tuple[str, str | None]]


def _line(text: str, style: str | None = None) -> Line:
    return [(text, style)]


def _pieces(line) -> Line:
    """A game's line (``board``: a ``str`` or ``(text, style)`` pieces) as pieces."""
    return [(line, None)] if isinstance(line, str) else [(str(t), st) for t, st in line]


def ratings_of(played):
    """``played.ratings()``, None where the game has none or not under these rules."""
    from jaxsolve.play import PlayError

    try:
        return played.ratings()
    except PlayError:
        return None


def require_ratings(played):
    """``played.ratings()``, or a ``PlayError`` that says why there are none."""
    from jaxsolve.play import PlayError

    ratings = played.ratings()
    if ratings is None:
        raise PlayError(f"{played.game} has no second-opinion ratings to show")
    return ratings


class Screen:
    """Shows a game: the lines are built once (text and style) and printed as plain text, or
    styled with rich on a terminal. ``out`` is where it writes."""

    def __init__(self, plain: bool, top: int, out: TextIO | None = None, width: int | None = None):
        self.plain = plain
        self.top = top
        self.out = out or sys.stdout
        self.console = None
        if not plain:
            from rich.console import Console

            self.console = Console(file=self.out, width=width, highlight=False, soft_wrap=False)

    def print(self, lines: list[Line]) -> None:
        """Print ``lines``: plain, or as one rich ``Text`` (one print per answer, no rich
        ``Table``: answers stay within the budget measured in results/play)."""
        if not lines:
            return
        if self.console is None:
            self.out.write("".join("".join(text for text, _ in line) + "\n" for line in lines))
            return
        from rich.text import Text

        out = Text()
        for i, line in enumerate(lines):
            if i:
                out.append("\n")
            for text, style in line:
                out.append(text, style=style)
        self.console.print(out, overflow="fold")

    def line(self, text: str = "", style: str | None = None) -> None:
        self.print([_line(text, style)])

    def error(self, text: str) -> None:
        self.line(f"! {text}", style="bold red")

    def flush(self) -> None:
        self.out.flush()

    def show(self, played, heuristic: bool = False, every: bool = False) -> None:
        """The news of the last move, the game (``status``, ``board``) and, when a decision is
        due, the ranked options (with the game's ratings beside them if ``heuristic``)."""
        lines = [_line(f"-> {text}", "cyan") for text in played.news]
        played.news = []
        lines += self.game_lines(played, heuristic, every)
        self.print(lines)
        self.flush()

    def game_lines(self, played, heuristic: bool = False, every: bool = False) -> list[Line]:
        status = played.status()
        lines = [_line(t, "bold" if i == 0 else None) for i, t in enumerate(status)]
        lines += [_pieces(b) for b in played.board()]
        if played.awaiting() != "choice":
            return lines
        ratings = played.ratings() if heuristic else None
        table = getattr(played, "win_column", lambda: None)()  # at a table (play --opponents): P(win) beside
        options = played.options()
        shown = options if every else options[: self.top]
        more = len(options) - len(shown)
        who = "your" if played.mover() == "you" else "their"
        lines.append(_line(f"options ({who} {played.unit}, best first):", "italic"))
        width = max(len(o.label) for o in shown)
        for i, o in enumerate(shown, 1):
            extra = ""
            if ratings is not None:
                beside = ratings.beside[i - 1] if i - 1 < len(ratings.beside) else ""
                extra = f"  {ratings.name} {beside or '-'}"
            if table is not None and table.beside:
                extra += f"  {table.name} {table.beside[i - 1]}"
            lines.append(_line(f"{i:>3}. {o.label:<{width}}  value {o.value:10.4f}  regret {o.regret:8.4f}{extra}", "green" if i == 1 else None))
        if more:
            lines.append(_line(f"     ... {more} more (type all)", "dim"))
        if ratings is not None and ratings.every:
            lines.append(_line(f"{ratings.name} ratings: {ratings.every}", "magenta"))
        if table is not None and table.every:
            lines.append(_line(table.every, "magenta" if table.beside else "dim"))
        return lines

    def decisions(self, played) -> None:
        rows = played.decisions()
        if not rows:
            self.line("no decisions yet")
            return
        lines = [_line(f"your decisions (regret in {played.unit}):", "bold")]
        for d in rows:
            lines.append(_line(f"{d.number:>4}. {d.where}: {d.chosen}  regret {d.regret:.4f}" + ("" if d.regret <= 0 else f"  (best: {d.best})")))
        self.print(lines)

    def summary(self, played) -> None:
        s = played.summary()
        self.decisions(played)
        lines = [_line(text, "bold") for text in s.lines]
        if s.expected_label is not None:
            lines.append(_line(f"{s.expected_label}: {s.expected:.4f}"))
        else:
            lines.append(_line(f"optimal expectation from the start: {s.expected:.4f} {s.unit}"))
        lines.append(_line(f"your total regret: {s.regret:.4f} {s.unit} over {len(s.decisions)} decisions"))
        self.print(lines)
        self.flush()

    def help(self, played=None) -> None:
        rows = [
            ("Enter / roll / r", "throw virtual dice (a throw is due) or take the best option (a decision is due)"),
            ("1 1 2 5 6", "the dice you threw (a throw is due)"),
            ("3 / b", "choose option 3 of the list / the best option"),
        ]
        if played is not None:
            rows.append(("a choice", played.help_choice()))
        rows += [("undo / u", "take the last move back")]
        ratings = ratings_of(played) if played is not None else None
        if ratings is not None:
            rows.append(("h", f"show or hide the {ratings.name} ratings beside the options"))
        rows += [
            ("all", "list every option"),
            ("moves", "your decisions so far with their regret"),
            ("save FILE", "save the game now"),
            ("help / ?", "this list"),
            ("quit / q", "stop (the game stays saved with --save)"),
        ]
        self.print([_line(f"  {keys:<24} {what}") for keys, what in rows])
        self.flush()

    def ask(self, prompt: str) -> str | None:
        """One line typed, None at the end of input."""
        self.out.write(prompt)
        self.out.flush()
        line = sys.stdin.readline()
        if not line:
            return None
        return line.rstrip("\r\n")


def prompt_of(played) -> str:
    who = "your" if played.mover() == "you" else "their"
    if played.awaiting() == "dice":
        n = played.throw_size()
        return f"{who} throw, {n} {'die' if n == 1 else 'dice'} (Enter: virtual dice) > "
    return f"{who} choice (Enter: best; ? for help) > "


# ----------------------------------------------------------------------------- the loop


def answer(played, text: str, screen: Screen, view: dict, save: Callable[[Path | None], None]) -> bool:
    """Act on one typed line and show the result; False when the player quits."""
    from jaxsolve.play import PlayError

    word = text.strip().lower()
    try:
        if word in ("q", "quit", "exit"):
            return False
        if word in ("?", "help"):
            screen.help(played)
            return True
        if word in ("h", "heuristic"):
            ratings = require_ratings(played)
            view["heuristic"] = not view["heuristic"]
            screen.line(f"{ratings.name} ratings {'on' if view['heuristic'] else 'off'}")
            screen.show(played, view["heuristic"])
            return True
        if word in ("all", "a") and played.awaiting() == "choice":
            played.news = []
            screen.show(played, view["heuristic"], every=True)
            return True
        if word in ("moves", "regret"):
            screen.decisions(played)
            return True
        if word == "save" or word.startswith("save "):
            target = text.strip()[4:].strip()
            if not target:
                raise PlayError("save where? e.g. save game.json")
            save(Path(target))
            screen.line(f"saved to {target}")
            return True
        if word in ("u", "undo"):
            played.undo()
        else:
            played.enter(text)
    except JaxsolveError as exc:
        screen.error(str(exc))
        screen.flush()
        return True
    except Exception as exc:  # a defect must not lose the game: report it and go on
        screen.error(f"internal error, the move was not played: {type(exc).__name__}: {exc}")
        screen.flush()
        return True
    save(None)
    screen.show(played, view["heuristic"])
    return True


def _one_turn(played, screen: Screen, view: dict, save, timings: bool) -> bool:
    """Read one input and answer it; False when the player quits (Ctrl-C or end of input)."""
    try:
        text = screen.ask(prompt_of(played))
    except KeyboardInterrupt:
        text = None
    if text is None:
        screen.line("")
        return False
    t0 = time.perf_counter()
    try:
        going = answer(played, text, screen, view, save)
    except JaxsolveError as exc:  # a failed save: say so, keep the game
        screen.error(str(exc))
        going = True
    except KeyboardInterrupt:
        going = False
    if timings:
        screen.line(f"(answered in {1000 * (time.perf_counter() - t0):.1f} ms)")
    return bool(going)


def run_loop(played, screen: Screen, save_path: Path | None, heuristic: bool, timings: bool) -> None:
    """Prompt, read, answer until the game is over or the player quits; with ``save_path``
    the game is saved after every move (in the background: ``play.Saver``)."""
    from jaxsolve import play

    saver = play.Saver(save_path) if save_path is not None else None
    if saver is not None:  # Ctrl-C ends the process (jaxsolve.interrupt): the last move is saved first
        from jaxsolve import interrupt

        interrupt.on_interrupt(saver.flush)

    def save(target: Path | None) -> None:
        if target is not None:
            play.save_game(played, target)
        elif saver is not None:
            err = saver.error()
            if err is not None:
                screen.error(f"the last save failed: {err}")
            saver.submit(played)

    view = {"heuristic": heuristic}
    screen.show(played, heuristic)
    while not played.over and _one_turn(played, screen, view, save, timings):
        pass
    if saver is not None:
        try:
            saver.flush()
        except JaxsolveError as exc:
            screen.error(f"the game could not be saved: {exc}")
            save_path = None
    if played.over:
        screen.line("game over", style="bold")
        screen.summary(played)
    elif save_path is not None:
        screen.line(f"game saved to {save_path}; continue with --resume {save_path}")
    else:
        screen.line("game not saved (use --save FILE)")
    screen.flush()


def _interactive_terminal() -> bool:
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def warm_display(played, plain: bool, top: int, heuristic: bool) -> None:
    """Draw a decision once, into memory, so that the first answer pays no first-use costs
    (a throw of the virtual dice, taken back at once). Then move everything allocated so far
    (JAX, the solution) out of the garbage collector's sight: a full collection of that heap
    would otherwise stall an answer now and then."""
    screen = Screen(plain, top, io.StringIO())
    if played.awaiting() == "dice":
        played.throw()
        screen.show(played, heuristic)
        played.undo()
    screen.show(played, heuristic)
    played.news = []
    gc.collect()
    gc.freeze()


def check_settings(game, rules, settings: dict) -> None:
    """A new game's settings checked by its class (``check_settings(rules, **settings)``, where it
    has one) before anything is solved."""
    check = getattr(game.play_game(), "check_settings", None)
    if check is not None:
        check(rules if rules is not None else game.get_rules(), **settings)


def play_interactively(
    make: Callable, game, rules, resume: Optional[Path], save: Optional[Path], given: list[str], plain: bool, top: int, heuristic: bool, timings: bool, run: Run,
    settings: dict | None = None,
) -> None:
    """Start (``make()``) or resume a game, warm it, and run the loop. ``rules``: the rules the
    command line asked for (None: none; a resumed game must have them); ``given``: the options
    that set up a new game and were given (refused with ``--resume``); ``settings``: the new
    game's, checked (``check_settings``) before the solve is announced."""
    from jaxsolve import play
    from jaxsolve.io import export

    if resume is not None and given:
        raise JaxsolveError(f"{', '.join(given)} cannot be combined with --resume (the saved game keeps its own)")
    target = save or resume
    if target is not None:
        export.check_writable(target, ".json")
    plain = plain or not _interactive_terminal()
    screen = Screen(plain, top)
    t0 = time.perf_counter()
    data = play.read_save(resume) if resume is not None else None
    if data is None and settings is not None:  # a new game's settings (e.g. its starting sheets) refused before the solve is announced
        check_settings(game, rules, settings)
    run.setup(jax=not getattr(game.play_game(), "numpy_answers", False))  # a game answering with NumPy: JAX only to solve
    screen.line("solving (or loading) the game and compiling what each answer needs ...")
    screen.flush()
    if data is not None:
        played = play.game_from_json(data, str(resume), game=game.name)
        if rules is not None and rules != played.rules:
            asked = rules.name if rules.name != played.rules.name else "the rules given"
            raise JaxsolveError(f"{resume} holds a game under rules {played.rules.name}, not {asked}")
    else:
        played = make()
    if heuristic:
        try:
            require_ratings(played)
        except JaxsolveError as exc:
            raise JaxsolveError(f"--show-heuristic: {exc}") from None
    played.warm()
    warm_display(played, plain, top, heuristic)
    if target is not None:
        play.save_game(played, target)
    screen.line(f"ready in {time.perf_counter() - t0:.1f} s (seed {played.seed}); type ? for help")
    run_loop(played, screen, target, heuristic, timings)


# ----------------------------------------------------------------------------- commands


def _flag(p: Param) -> str:
    return p.spellings[0].split("/")[0]


def _play(game, values: dict, run: Run) -> None:
    """The body of ``play <game>``: the rules (preset and overrides), the settings of a new game
    (``seed``, ``auto_roll``, the game's ``play_params``), the display options."""
    from jaxsolve import play

    overrides = {p.name: values.pop(p.name) for p in game.override_params()}
    preset = values.pop("rules")
    named = preset is not None or any(v is not None for v in overrides.values())
    rules = game.build_rules(preset, **overrides) if named else None  # checked now, before any solve
    common = {p.name: p for p in OPTIONS}
    setting_params = [common[n] for n in SETTINGS] + list(game.play_params)
    settings = {p.name: values.pop(p.name) for p in setting_params}
    given = [_flag(p) for p in setting_params if settings[p.name] != p.default]
    make = lambda: play.new_game(game.name, rules, **settings)  # noqa: E731
    play_interactively(
        make, game, rules, values["resume"], values["save"], given, values["plain"], values["top"], values.get("show_heuristic", False), values["timings"], run,
        settings,
    )


def add_play_command(app: typer.Typer, games) -> None:
    """``play``: a subcommand per game whose registration names a game class (``play_game``),
    with its presets and rules fields (``rules_params``), its settings (``play_params``), the
    options every game's play command has (``OPTIONS``) and the game's own (``play_options``)."""
    play = group("play", HELP)
    own = {p.name for p in OPTIONS}
    for game in games:
        if game.play_game is None:
            continue
        params = [*rules_params(game), *game.play_params, *OPTIONS, *game.play_options]
        names = [p.name for p in params]
        clash = sorted({n for n in names if names.count(n) > 1} | ({p.name for p in game.play_params} & own))
        if clash:
            raise ValueError(f"game {game.name}: play setting(s) {', '.join(clash)} clash with other options of play")
        doc = f"{game.title} — play a game against the exact solution: every option ranked with its value and regret, undo, save."
        add_game_command(play, game, _play, params, doc, x64="float64", quiet_help=None)
    app.add_typer(play, name="play")
