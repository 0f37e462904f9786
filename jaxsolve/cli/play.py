"""``jaxsolve play <game>``: an interactive game against the exact solution (the terminal loop).

The game itself is a ``jaxsolve.play`` game object; this module reads lines, shows the game
(rich on a terminal, plain text for pipes or with ``--plain``) and saves it after every move.
"""


import gc
import io
import sys
import time
from enum import Enum
from pathlib import Path
from typing import Annotated, Callable, Optional, TextIO

import typer

from jaxsolve import games
from jaxsolve.cli import app
from jaxsolve.cli.common import Run, for_each_game, handle_errors, shared_options
from jaxsolve.errors import JaxsolveError

play_app = typer.Typer(help="Play a game against the exact solution: ranked options, values, regret, undo, save.", no_args_is_help=True)
app.add_typer(play_app, name="play")

COMMANDS = (
    ("Enter / roll / r", "throw virtual dice (a throw is due) or take the best option (a decision is due)"),
    ("1 1 2 5 6", "the dice you threw (a throw is due)"),
    ("3 / b", "choose option 3 of the list / the best option"),
    ("keep 6 6, fill chance", "a category game's choice by name"),
    ("roll, stop", "a duel's choice by name"),
    ("write, aside 1 5", "a Zehntausend choice by name (1* is two 5s as a 1)"),
    ("undo / u", "take the last move back"),
    ("h", "show or hide the rating heuristic's ratings (the Kniffel sheet)"),
    ("all", "list every option"),
    ("moves", "your decisions so far with their regret"),
    ("save FILE", "save the game now"),
    ("help / ?", "this list"),
    ("quit / q", "stop (the game stays saved with --save)"),
)

SeedOpt = Annotated[Optional[int], typer.Option("--seed", min=0, max=2**63 - 1, help="Seed of the virtual dice (default: a random one, kept in the save file).")]
AutoRollOpt = Annotated[bool, typer.Option("--auto-roll", help="Throw virtual dice by themselves; you only decide.")]
SaveOpt = Annotated[Optional[Path], typer.Option("--save", help="Write the game to this .json file after every move (atomically).")]
ResumeOpt = Annotated[Optional[Path], typer.Option("--resume", help="Continue the game saved in this .json file (and keep saving to it unless --save says otherwise).")]
PlainOpt = Annotated[bool, typer.Option("--plain", help="Plain text (automatic when stdin or stdout is not a terminal).")]
TopOpt = Annotated[int, typer.Option("--top", min=1, max=1000, help="Options listed at each decision (`all` lists every one).")]
TimingsOpt = Annotated[bool, typer.Option("--timings", help="Print how long each answer took.")]


# ----------------------------------------------------------------------------- display


class Screen:
    """Shows a game: plain lines, or rich tables on a terminal. ``out`` is where it writes."""

    def __init__(self, plain: bool, top: int, out: TextIO | None = None, width: int | None = None):
        self.plain = plain
        self.top = top
        self.out = out or sys.stdout
        self.console = None
        if not plain:
            from rich.console import Console

            self.console = Console(file=self.out, width=width, highlight=False, soft_wrap=False)

    def line(self, text: str = "", style: str | None = None) -> None:
        if self.console is None:
            self.out.write(text + "\n")
        else:
            self.console.print(text, style=style, markup=False)

    def error(self, text: str) -> None:
        self.line(f"! {text}", style="bold red")

    def flush(self) -> None:
        self.out.flush()

    def show(self, played, heuristic: bool = False, every: bool = False) -> None:
        for text in played.news:
            self.line(f"-> {text}", style="cyan")
        played.news = []
        if self.console is None:
            self._plain(played, heuristic, every)
        else:
            self._rich(played, heuristic, every)
        self.flush()

    def _ratings(self, played, heuristic: bool):
        if not heuristic or played.kind != "category" or played.awaiting() != "choice":
            return None
        return played.heuristic()

    @staticmethod
    def _rating_of(option, ratings) -> str:
        """The heuristic's ratings that do what ``option`` does (fill that box / keep those dice)."""
        hits = []
        for r in ratings:
            fills = r["option"].startswith("fill")
            if option.move["action"] == "fill" and fills and r["box"] == option.move["box"]:
                hits.append(r)
            elif option.move["action"] == "keep" and not fills and list(r["keep"]) == option.move["keep"]:
                hits.append(r)
        return ", ".join(f"{r['value']:.2f} {r['box']}" for r in hits)

    def _rows(self, played, every: bool):
        options = played.options()
        shown = options if every else options[: self.top]
        return shown, len(options) - len(shown)

    def _plain(self, played, heuristic: bool, every: bool) -> None:
        for text in played.status():
            self.line(text)
        if played.kind == "category":
            self.line("sheet: " + ", ".join(f"{n} {'.' if s is None else ('-' if s == 0 else s)}" for n, s in played.sheet()))
        if played.awaiting() != "choice":
            return
        ratings = self._ratings(played, heuristic)
        shown, more = self._rows(played, every)
        who = "your" if played.mover() == "you" else "their"
        self.line(f"options ({who} {played.unit}, best first):")
        width = max(len(o.label) for o in shown)
        for i, o in enumerate(shown, 1):
            extra = f"  heuristic {self._rating_of(o, ratings) or '-'}" if ratings is not None else ""
            self.line(f"{i:>3}. {o.label:<{width}}  value {o.value:10.4f}  regret {o.regret:8.4f}{extra}")
        if more:
            self.line(f"     ... {more} more (type all)")
        if ratings is not None:
            self.line("heuristic ratings: " + "; ".join(f"{r['option']} {r['value']:.2f}" for r in ratings))

    def _rich(self, played, heuristic: bool, every: bool) -> None:
        """The same content as plain text, styled; built as one ``Text`` and printed once (a
        rich ``Table`` per answer costs more than the 50 ms an answer may take on a busy CPU)."""
        from rich.text import Text

        out = []
        lines = played.status()
        out.append(Text(lines[0], style="bold"))
        out += [Text(t) for t in lines[1:]]
        if played.kind == "category":
            cell = lambda v: "·" if v is None else ("-" if v == 0 else str(v))  # noqa: E731
            sheet = played.sheet()
            upper, lower = sheet[:6], sheet[6:]
            wn = max(len(n) for n, _ in sheet)
            for i in range(max(len(upper), len(lower))):
                row = Text("  ")
                for part in (upper, lower):
                    if i < len(part):
                        name, v = part[i]
                        row.append(f"{name:<{wn}} ")
                        row.append(f"{cell(v):>4}", style="dim" if v is None else "bold")
                    else:
                        row.append(" " * (wn + 5))
                    row.append("    ")
                out.append(row)
        if played.awaiting() == "choice":
            ratings = self._ratings(played, heuristic)
            shown, more = self._rows(played, every)
            who = "your" if played.mover() == "you" else "their"
            wl = max(len("option"), *(len(o.label) for o in shown))
            cells = [(str(i), o.label, f"{o.value:.4f}", f"{o.regret:.4f}", self._rating_of(o, ratings) or "-" if ratings is not None else None) for i, o in enumerate(shown, 1)]
            wv = max(len("value"), *(len(c[2]) for c in cells))
            wr = max(len("regret"), *(len(c[3]) for c in cells))
            out.append(Text(f"options ({who} {played.unit}, best first)", style="italic"))
            head = f"{'#':>3}  {'option':<{wl}}  {'value':>{wv}}  {'regret':>{wr}}" + ("  heuristic" if ratings is not None else "")
            out.append(Text(head, style="bold underline"))
            for c in cells:
                line = f"{c[0]:>3}  {c[1]:<{wl}}  {c[2]:>{wv}}  {c[3]:>{wr}}" + (f"  {c[4]}" if c[4] is not None else "")
                out.append(Text(line, style="green" if c[0] == "1" else None))
            if more:
                out.append(Text(f"     ... {more} more (type all)", style="dim"))
            if ratings is not None:
                out.append(Text("heuristic ratings: " + "; ".join(f"{r['option']} {r['value']:.2f}" for r in ratings), style="magenta"))
        self.console.print(Text("\n").join(out), overflow="fold")

    def decisions(self, played) -> None:
        rows = played.decisions()
        if not rows:
            self.line("no decisions yet")
            return
        if self.console is None:
            self.line("your decisions (regret in " + played.unit + "):")
            for d in rows:
                self.line(f"{d.number:>4}. {d.where}: {d.chosen}  regret {d.regret:.4f}" + ("" if d.regret <= 0 else f"  (best: {d.best})"))
            return
        from rich.table import Table

        table = Table(title=f"your decisions (regret in {played.unit})", title_justify="left")
        for name, justify in (("move", "right"), ("where", "left"), ("chosen", "left"), ("best", "left"), ("regret", "right")):
            table.add_column(name, justify=justify)
        for d in rows:
            table.add_row(str(d.number), d.where, d.chosen, "" if d.regret <= 0 else d.best, f"{d.regret:.4f}")
        self.console.print(table)

    def summary(self, played) -> None:
        s = played.summary()
        self.decisions(played)
        for text in s.lines:
            self.line(text, style="bold")
        unit = s.unit
        if played.kind == "raab":
            self.line(f"your win probability at the start (both optimal): {s.expected:.4f}")
        else:
            self.line(f"optimal expectation from the start: {s.expected:.4f} {unit}")
        self.line(f"your total regret: {s.regret:.4f} {unit} over {len(s.decisions)} decisions")
        self.flush()

    def help(self) -> None:
        for keys, what in COMMANDS:
            self.line(f"  {keys:<24} {what}")
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
            screen.help()
            return True
        if word in ("h", "heuristic"):
            if played.kind != "category":
                raise PlayError("the rating heuristic is for category games (the Kniffel sheet)")
            from jaxsolve.games.category.play import heuristic_available

            if not heuristic_available(played.rules):
                raise PlayError("the rating heuristic is defined for the 5-dice Kniffel sheet only")
            view["heuristic"] = not view["heuristic"]
            screen.line(f"heuristic ratings {'on' if view['heuristic'] else 'off'}")
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


def run_loop(played, screen: Screen, save_path: Path | None, heuristic: bool, timings: bool) -> None:
    """Prompt, read, answer until the game is over or the player quits; with ``save_path``
    the game is saved after every move (in the background: ``play.Saver``)."""
    from jaxsolve import play

    saver = play.Saver(save_path) if save_path is not None else None

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
    while not played.over:
        try:
            text = screen.ask(prompt_of(played))
        except KeyboardInterrupt:
            text = None
        if text is None:
            screen.line("")
            break
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
        if not going:
            break
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


def play_interactively(make: Callable, game, rules: Optional[str], resume: Optional[Path], save: Optional[Path], given: dict, plain: bool, top: int, heuristic: bool, timings: bool, run: Run) -> None:
    """Start (``make()``) or resume a game, warm it, and run the loop. ``given``: the
    options that set up a new game (refused with ``--resume``)."""
    from jaxsolve.io import export
    from jaxsolve import play

    if rules is not None:
        game.get_rules(rules)
    if resume is not None:
        clash = [k for k, v in given.items() if v not in (None, False)]
        if clash:
            raise JaxsolveError(f"{', '.join(clash)} cannot be combined with --resume (the saved game keeps its own)")
    target = save or resume
    if target is not None:
        export.check_writable(target, ".json")
    plain = plain or not _interactive_terminal()
    screen = Screen(plain, top)
    t0 = time.perf_counter()
    data = play.read_save(resume) if resume is not None else None
    run.setup()
    screen.line("solving (or loading) the game and compiling what each answer needs ...")
    screen.flush()
    if data is not None:
        played = play.game_from_json(data, str(resume), game=game.name)
        if rules is not None and game.get_rules(rules) != played.rules:
            raise JaxsolveError(f"{resume} holds a game under rules {played.rules.name}, not {rules}")
    else:
        played = make()
    if heuristic:
        if played.kind != "category":
            raise JaxsolveError("--show-heuristic is for category games")
        from jaxsolve.games.category.play import heuristic_available

        if not heuristic_available(played.rules):
            raise JaxsolveError(f"the rating heuristic is defined for the 5-dice Kniffel sheet only, not {played.rules.name}")
    played.warm()
    warm_display(played, plain, top, heuristic)
    if target is not None:
        play.save_game(played, target)
    screen.line(f"ready in {time.perf_counter() - t0:.1f} s (seed {played.seed}); type ? for help")
    run_loop(played, screen, target, heuristic, timings)


# ----------------------------------------------------------------------------- commands


def play_category(
    game,
    rules: str | None = None,
    seed: SeedOpt = None,
    auto_roll: AutoRollOpt = False,
    save: SaveOpt = None,
    resume: ResumeOpt = None,
    show_heuristic: Annotated[bool, typer.Option("--show-heuristic", help="Show the rating heuristic's ratings beside the options (h toggles).")] = False,
    plain: PlainOpt = False,
    top: TopOpt = 10,
    timings: TimingsOpt = False,
    run: Run = Run(),
):
    """Play {title}: the score sheet, your throws, every option ranked with value and regret."""
    from jaxsolve import play

    make = lambda: play.new_game(game.name, game.get_rules(rules), seed=seed, auto_roll=auto_roll)  # noqa: E731
    play_interactively(make, game, rules, resume, save, {"--seed": seed, "--auto-roll": auto_roll}, plain, top, show_heuristic, timings, run)


class Opponent(str, Enum):
    bot = "bot"
    human = "human"


class First(str, Enum):
    you = "you"
    them = "them"


def _register_raab(game) -> None:
    def play_raab(
        rules: Annotated[Optional[str], typer.Option("--rules", "-r", help=f"Rule preset: {', '.join(game.presets())} (default {game.default}).")] = None,
        opponent: Annotated[Optional[Opponent], typer.Option("--opponent", help="bot: the optimal bot decides for them (default); human: you type their decisions.")] = None,
        first: Annotated[Optional[First], typer.Option("--first", help="Who starts: you (default) or them.")] = None,
        seed: SeedOpt = None,
        auto_roll: AutoRollOpt = False,
        save: SaveOpt = None,
        resume: ResumeOpt = None,
        plain: PlainOpt = False,
        timings: TimingsOpt = False,
        run: Run = Run(),
    ):
        """Play the Schlag den Raab / Pig duel against the optimal bot (or a person): roll or stop with both win probabilities."""
        from jaxsolve import play

        given = {"--seed": seed, "--auto-roll": auto_roll, "--opponent": opponent, "--first": first}
        make = lambda: play.new_game(  # noqa: E731
            game.name, game.get_rules(rules), seed=seed, auto_roll=auto_roll, opponent=(opponent or Opponent.bot).value, first=(first or First.you).value
        )
        play_interactively(make, game, rules, resume, save, given, plain, 10, False, timings, run)

    play_app.command(game.name)(handle_errors(shared_options("float64", quiet_help=None)(play_raab)))


def _register_zehntausend(game) -> None:
    def play_zehntausend(
        rules: Annotated[Optional[str], typer.Option("--rules", "-r", help=f"Rule preset: {', '.join(game.presets())} (default {game.default}).")] = None,
        turns: Annotated[Optional[int], typer.Option("--turns", min=1, max=1000, help="Turns in the game (default 10).")] = None,
        seed: SeedOpt = None,
        auto_roll: AutoRollOpt = False,
        save: SaveOpt = None,
        resume: ResumeOpt = None,
        plain: PlainOpt = False,
        top: TopOpt = 10,
        timings: TimingsOpt = False,
        run: Run = Run(),
    ):
        """Play Zehntausend turn by turn: write or set aside, every choice ranked by E(p, n), the running total."""
        from jaxsolve import play

        given = {"--seed": seed, "--auto-roll": auto_roll, "--turns": turns}
        make = lambda: play.new_game(game.name, game.get_rules(rules), seed=seed, auto_roll=auto_roll, turns=turns or 10)  # noqa: E731
        play_interactively(make, game, rules, resume, save, given, plain, top, False, timings, run)

    play_app.command(game.name)(handle_errors(shared_options("float64", quiet_help=None)(play_zehntausend)))


def _register() -> None:
    """One ``play`` command per registered game: category games through ``for_each_game`` (every
    category game names the category command modules), the others by their game kind."""
    from jaxsolve import play

    for_each_game(play_app, games.CATEGORY_CLI[0], handle_errors(shared_options("float64", quiet_help=None)(play_category)))
    for game in games.games():
        if games.CATEGORY_CLI[0] in game.cli:
            continue
        try:
            kind = play.kind_of(game)
        except JaxsolveError:  # a game without a game kind gets no play command
            continue
        if kind == "raab":
            _register_raab(game)
        elif kind == "zehntausend":
            _register_zehntausend(game)


_register()
