"""A game of a category game (Kniffel / Yahtzee, Yatzy, Maxi Yatzy, any registered score sheet)
against the exact solution: the score sheet, the dice, the ranked options of ``advisor.advise``.

A turn: throw all dice; up to ``rules.throws - 1`` times keep some and re-throw the rest; fill
one open box (allowed at any throw). A value is the expected points still to come from this
moment under optimal play (this turn's box and any bonus it earns included, the points on the
sheet so far excluded); a regret is the best option's value minus the chosen one's.

With ``opponents=N`` (1..4) the game is played at a table: after each of your turns N computer
opponents play a turn each, in order, every one by the expected-score policy (the options of
``advisor.advise`` on his own sheet, the best taken; his dice are the game's seeded virtual
dice), and every throw, keep and fill of theirs is told (``news``). Your options stay ranked
by expected points; beside them, where it is quick to compute (``win_method``), stands your
probability to finish first (``winning.advise_win``: the opponents modelled as playing for
expected points, which they do here), and each of your decisions records what it lost in win
probability beside the points (``info``). The game ends when every sheet is full; the summary
gives the standings.

With ``against="optimal"`` the one opponent plays to win against you: both players' moves come
from the two-player table (``twoplayer_advice``: the whole game's table in the solution store,
else the game from the starting sheets solved when the game begins), his each the best for his
probability to win; beside your options stands your probability to win (``twoplayer_advice.
option_values``) and each decision records its loss in it. ``start`` begins from filled sheets
(an end game, where no whole table is stored), ``they_start`` lets him throw first, ``ties``
says what a tie is worth to you.
"""

from __future__ import annotations

import time
from dataclasses import replace

import jax
import numpy as np

from jaxsolve.games.category.answers import advisor
from jaxsolve.games.category.engine import solutions, tables
from jaxsolve.games.category.sheets.position import Position, PositionError, box_index, format_dice
from jaxsolve.games.category.sheets.rules import CategoryRules
from jaxsolve.games.played import PlayError, PlayOption, PlayedGame, Ratings, Summary, fmt_faces, split_tokens, typed_faces


from jaxsolve.games.category.answers.play_state import (CategoryState, Sheet, WinView, moves_at, check_opponents, heuristic_available, read_start,
                                                       opponent_name, rating_of, win_open_limit)


class CategoryGame(PlayedGame):
    """One game of a category game. ``solution`` defaults to ``solutions.solution(rules)``."""

    unit = "points"
    rules_type = CategoryRules

    def __init__(
        self, game: str, rules: CategoryRules, solution=None, *, seed=None, auto_roll=False, opponents: int = 0,
        against: str = "expected", start: str | None = None, they_start: bool = False, ties: str = "share",
    ):
        self.against, self.start, self.they_start, self.ties = against, start, bool(they_start), ties
        *self._start_sheets, self.opponents = read_start(rules, against=against, start=start, they_start=self.they_start, ties=ties,
                                                         opponents=check_opponents(opponents))
        self.two_player = None
        if against == "optimal":
            from jaxsolve.games.category.objectives.twoplayer import advice as twoplayer_advice

            starter, second = self._start_sheets[::-1] if self.they_start else self._start_sheets
            tie = twoplayer_advice.starter_tie(ties, not self.they_start)
            self.two_player, self.two_player_source = twoplayer_advice.table_for(
                rules, tie, starter.position.filled, second.position.filled, game=game,
                hint=", or play an end game from filled sheets (--start)", sheets=(starter.position.state(rules), second.position.state(rules)),
            )
        solution = solution if solution is not None else solutions.solution(rules, "score", game=game)
        if solution.rules != rules or solution.objective != "score":
            raise PlayError(f"the value table is for {solution.rules.name}/{solution.objective}, not {rules.name}/score")
        self._ratings: tuple[CategoryState, list[dict]] | None = None
        self._wins: dict[CategoryState, WinView] = {}
        self._replaying = False
        super().__init__(game, rules, solution, seed=seed, auto_roll=auto_roll)

    @classmethod
    def check_settings(cls, rules: CategoryRules, *, opponents=0, against="expected", start=None, they_start=False, ties="share", **_) -> None:
        """A new game's settings checked as ``__init__`` checks them, before anything is solved."""
        read_start(rules, against=against, start=start, they_start=bool(they_start), ties=ties, opponents=check_opponents(opponents))

    def settings(self) -> dict:
        out: dict = {"opponents": self.opponents} if self.opponents and self.against != "optimal" else {}
        if self.against != "expected":
            out["against"] = self.against
        if self.start is not None:
            out["start"] = self.start
        if self.they_start:
            out["they_start"] = True
        if self.ties != "share":
            out["ties"] = self.ties
        return out

    # ------------------------------------------------------------------ state

    def initial_state(self) -> CategoryState:
        if self.against == "optimal":
            mine, his = self._start_sheets
            return CategoryState(mine.position, mine.bonus, None, (), self.rules.throws - 1, others=(his,), mover=int(self.they_start))
        others = tuple(Sheet(Position.empty(self.rules)) for _ in range(self.opponents))
        return CategoryState(Position.empty(self.rules), 0, None, (), self.rules.throws - 1, others=others)

    def awaiting(self) -> str:
        s = self.state
        if s.position.is_over and all(o.position.is_over for o in s.others):
            return "over"
        return "dice" if s.dice is None else "choice"

    def mover(self) -> str:
        return "you" if self.state.mover == 0 else "them"

    @staticmethod
    def sheet_of(s: CategoryState) -> Sheet:
        """The sheet of the player to move."""
        return Sheet(s.position, s.bonus) if s.mover == 0 else s.others[s.mover - 1]

    def throw_size(self) -> int:
        return self.rules.dice - len(self.state.kept)

    @property
    def turn(self) -> int:
        """The turn of the player to move (your turn off a table)."""
        return sum(s is not None for s in self.sheet_of(self.state).position.scores) + 1

    @property
    def score(self) -> int:
        return self.state.position.total + self.state.bonus

    def showing(self, thrown: list[int]) -> list[int]:
        return sorted(list(self.state.kept) + list(thrown))

    def read_throw(self, text) -> list[int]:
        faces = typed_faces(text, 6)
        kept, n, total = self.state.kept, self.throw_size(), self.rules.dice
        if len(faces) == n:
            return sorted(faces)
        if len(faces) == total and kept:
            rest = list(faces)
            for f in kept:
                if f not in rest:
                    raise PlayError(f"the dice {fmt_faces(sorted(faces))} do not include the kept {fmt_faces(kept)}; type the {n} re-thrown dice")
                rest.remove(f)
            return sorted(rest)
        more = f" (or all {total})" if kept else ""
        raise PlayError(f"{len(faces)} dice typed; type the {n} {'die' if n == 1 else 'dice'} thrown{more}")

    # ------------------------------------------------------------------ options

    def advice(self) -> advisor.TurnAdvice:
        s = self.state
        return advisor.advise(self.rules, self.sheet_of(s).position, s.dice, s.throws_left, "score", sol=self.solution)

    def two_player_options(self, s: CategoryState) -> tuple[float, list]:
        """``(value, options)`` of the player to move against the optimal player: each option
        with his probability to win (``twoplayer_advice.option_values``), best first."""
        from jaxsolve.games.category.objectives.twoplayer import advice as twoplayer_advice

        me, him = Sheet(s.position, s.bonus), s.others[0]
        mover, other = (me, him) if s.mover == 0 else (him, me)
        lead = mover.score - other.score
        return twoplayer_advice.option_values(self.two_player, mover.position.state(self.rules), other.position.state(self.rules), lead, s.dice, s.throws_left)

    def ranked_options(self) -> list[PlayOption]:
        out = []
        s = self.state
        options = self.two_player_options(s)[1] if self.two_player is not None and s.mover != 0 else self.advice().options
        for o in options:
            move = {"action": "fill", "box": o.box} if o.kind == "box" else {"action": "keep", "keep": list(o.keep or ())}
            out.append(PlayOption(o.label, o.value, o.regret, move, o))
        return out

    def advise_options(self) -> dict:
        s = self.state
        return {"objective": "score", "position": str(self.sheet_of(s).position), "dice": " ".join(map(str, s.dice)), "throws_left": s.throws_left}

    def auto_move(self) -> dict | None:
        """An opponent's turn, one move at a time: his virtual dice, then the best option of
        the expected-score advice on his sheet."""
        s = self.state
        if s.mover == 0 or self.over:
            return None
        if s.dice is None:
            return self._throw_move(self.virtual_throw(), True)
        return dict(self.options()[0].move, by="them", player=s.mover)

    def _throw_move(self, thrown: list[int], virtual: bool) -> dict:
        move = super()._throw_move(thrown, virtual)
        return move if self.state.mover == 0 else {**move, "player": self.state.mover}

    def help_choice(self) -> str:
        to_win = ", w for the best to win" if self.two_player is not None else ""
        return f"a number from the list, keep <dice> (e.g. keep 6 6), fill <box>{to_win}, or b (Enter) for the best"

    def named_option(self, text: str, options: list[PlayOption]) -> PlayOption:
        tokens = split_tokens(text.lower())
        if not tokens:
            return options[0]
        word, rest = tokens[0], tokens[1:]
        if tokens in (["w"], ["win"]) and self.two_player is not None and self.state.mover == 0:
            view = self.win_advice()
            best = view.best if view is not None and view.available else None
            for o in options:
                if o.label == best:
                    return o
            raise PlayError("no win probability at this moment")
        if word in ("keep", "k", "hold"):
            return self._keep_option(rest, options)
        if word in ("fill", "f", "score", "write"):
            if not rest:
                raise PlayError("fill which box? e.g. fill chance")
            return self._box_option("_".join(rest), options)
        try:
            box_index("_".join(tokens), self.rules)
        except PositionError:
            raise PlayError(f"unknown choice {text.strip()!r}: type {self.help_choice()}") from None
        return self._box_option("_".join(tokens), options)

    def _box_option(self, name: str, options: list[PlayOption]) -> PlayOption:
        try:
            b = box_index(name, self.rules)
        except PositionError as exc:
            raise PlayError(str(exc)) from None
        box = self.rules.box_names[b]
        if self.state.position.scores[b] is not None:
            raise PlayError(f"box {box} is already filled ({self.state.position.scores[b]})")
        for o in options:
            if o.move.get("box") == box:
                return o
        raise PlayError(f"box {box} cannot take these dice now (an all-same throw must go where the joker rule says)")

    def _keep_option(self, tokens: list[str], options: list[PlayOption]) -> PlayOption:
        dice = self.state.dice
        if self.state.throws_left == 0:
            raise PlayError("no re-throw left: fill a box")
        if not tokens or tokens in (["nothing"], ["none"], ["-"]):
            faces = []
        elif tokens == ["all"]:
            raise PlayError("keeping every die is no re-throw: fill a box")
        else:
            faces = sorted(typed_faces(" ".join(tokens), 6))
        rest = list(dice)
        for f in faces:
            if f not in rest:
                raise PlayError(f"cannot keep {fmt_faces(faces)}: the dice show {format_dice(dice)}")
            rest.remove(f)
        if len(faces) == len(dice):
            raise PlayError("keeping every die is no re-throw: fill a box")
        for o in options:
            if o.move.get("keep") == faces:
                return o
        raise PlayError(f"cannot keep {fmt_faces(faces)} here")

    # ------------------------------------------------------------------ moves

    def apply(self, s: CategoryState, move: dict):
        rules = self.rules
        action = move.get("action")
        if action == "throw":
            if s.dice is not None:
                raise PlayError("the dice are showing already")
            dice = tuple(sorted(int(d) for d in move["dice"]))
            if len(dice) != rules.dice or any(not 1 <= d <= 6 for d in dice):
                raise PlayError(f"a throw must show {rules.dice} faces 1..6, got {list(dice)}")
            if any(dice.count(f) < s.kept.count(f) for f in set(s.kept)):
                raise PlayError(f"the dice {fmt_faces(dice)} do not include the kept {fmt_faces(s.kept)}")
            who = ("you threw" if not move.get("virtual") else "the virtual dice show") if s.mover == 0 else f"{opponent_name(s.mover)} threw"
            return replace(s, dice=dice, kept=(), keep_value=None), f"{who} {format_dice(dice)}"
        if s.dice is None:
            raise PlayError("a throw is due first")
        if action == "keep":
            if s.throws_left == 0:
                raise PlayError("no re-throw left: fill a box")
            keep = tuple(sorted(int(d) for d in move.get("keep", [])))
            if len(keep) >= len(s.dice) or any(s.dice.count(f) < keep.count(f) for f in set(keep)):
                raise PlayError(f"cannot keep {fmt_faces(keep)} of {format_dice(s.dice)}")
            value = next((o.value for o in self.options() if o.move.get("keep") == list(keep)), None) if s is self.state else None
            n = rules.dice - len(keep)
            who = "" if s.mover == 0 else f"{opponent_name(s.mover)} "
            return replace(s, dice=None, kept=keep, throws_left=s.throws_left - 1, keep_value=value), f"{who}kept {fmt_faces(keep)}, re-throw {n}"
        if action == "fill":
            return self._fill(s, move.get("box"))
        raise PlayError(f"unknown move {action!r}")

    def _fill(self, s: CategoryState, name):
        rules = self.rules
        try:
            b = box_index(str(name), rules)
        except PositionError as exc:
            raise PlayError(str(exc)) from None
        sheet = self.sheet_of(s)
        mv = moves_at(rules, sheet.position)
        sp = tables.space(rules.dice)
        t = sp.throw_index(sp.counts_of_faces(s.dice))
        pick = lambda a: int(np.asarray(a)[b, t, 0])  # noqa: E731
        if not pick(mv.allowed):
            why = "is already filled" if sheet.position.scores[b] is not None else "cannot take these dice now (joker rule)"
            raise PlayError(f"box {rules.box_names[b]} {why}")
        points = pick(mv.points)
        first = rules.has_instant_bonus and s.throws_left == rules.throws - 1
        bonus = pick(mv.extra) + pick(mv.upper_bonus) + (pick(mv.instant) if first else 0)
        done = Sheet(sheet.position.fill(b, points), sheet.bonus + bonus)
        text = f"filled {rules.box_names[b]} with {points}" + (f" (+{bonus} bonus)" if bonus else "")
        if s.mover:
            text = f"{opponent_name(s.mover)} {text}: {done.score} point{'s' if done.score != 1 else ''}"
        mover = (s.mover + 1) % (len(s.others) + 1)
        turn = dict(dice=None, kept=(), throws_left=rules.throws - 1, keep_value=None, mover=mover)
        if s.mover == 0:
            return replace(s, position=done.position, bonus=done.bonus, **turn), text
        others = s.others[: s.mover - 1] + (done,) + s.others[s.mover :]
        return replace(s, others=others, **turn), text

    # ------------------------------------------------------------------ display

    def where(self) -> str:
        s = self.state
        left = s.throws_left
        return f"turn {self.turn}: {format_dice(s.dice)}, {left} re-throw{'s' if left != 1 else ''} left"

    def value_now(self) -> float | None:
        s = self.state
        if self.over:
            return 0.0
        if s.dice is not None:
            return self.options()[0].value
        if s.kept or s.throws_left != self.rules.throws - 1:
            return s.keep_value
        f, u, h = s.position.state(self.rules)
        return self.solution.value(f, u, h)

    def sheet(self) -> list[tuple[str, int | None]]:
        return list(zip(self.rules.box_names, self.state.position.scores))

    def board(self) -> list:
        """The score sheet in one line: ``sheet: ones 3, twos ., ...`` (``.`` open, ``-`` a 0);
        at a table one line more per opponent."""
        lines = [self._sheet_line("sheet: ", self.state.position)]
        for i, o in enumerate(self.state.others, 1):
            lines.append(self._sheet_line(f"{opponent_name(i)} ({o.score} points): ", o.position))
        return lines

    def _sheet_line(self, head: str, position: Position) -> tuple:
        line: list[tuple[str, str | None]] = [(head, None)]
        for i, (name, score) in enumerate(zip(self.rules.box_names, position.scores)):
            line.append((f"{', ' if i else ''}{name} ", None))
            line.append(("." if score is None else ("-" if score == 0 else str(score)), "dim" if score is None else "bold"))
        return tuple(line)

    def status(self) -> list[str]:
        s, rules = self.state, self.rules
        n = rules.num_boxes
        turn = min(self.turn, n)
        head = f"{rules.name}: turn {turn} of {n}, sheet {s.position.total} + bonus {s.bonus} = {self.score} points"
        upper = f"upper section {s.position.upper_total} of {rules.upper_threshold} for the bonus of {rules.upper_bonus}"
        lines = [head, upper]
        if self.over:
            return lines
        if s.dice is None:
            n = self.throw_size()
            throw = f"throw {n} {'die' if n == 1 else 'dice'}"
            lines.append(f"kept {fmt_faces(s.kept)}; {throw}" if s.kept else throw)
        else:
            lines.append(advisor.describe_turn(s.dice, s.throws_left))
        v = self.value_now()
        if v is not None:
            lines.append(f"value now: {v:.4f} points still to come")
        if s.others:
            lines.append("opponents: " + ", ".join(f"{opponent_name(i)} {o.score}" for i, o in enumerate(s.others, 1)))
            if self.two_player is not None:
                lines.append(f"{opponent_name(1)} plays to win against you (the two-player optimal strategy; a tie counts {self.ties} for you)")
            quick = not self.win_on_demand or self.two_player is not None  # the two-player answer is one table read
            win = self.win_advice(compute=quick) if s.dice is not None and s.mover == 0 else None
            if win is not None and win.available:
                lines.append(f"your win probability now: {win.value:.4f} (the options stay ranked by points; P(win) beside, {win.method}, {win.seconds:.1f} s)")
        return lines

    def heuristic(self) -> list[dict]:
        """The rating heuristic's ratings of this moment (``heuristic.ratings``), best first
        (none while a throw is due)."""
        if not heuristic_available(self.rules):
            raise PlayError(f"the rating heuristic is defined for the 5-dice Kniffel sheet only, not {self.rules.name}")
        if self.awaiting() != "choice":
            return []
        from jaxsolve.games.category.simulation import heuristic

        s = self.state
        if self._ratings is None or self._ratings[0] is not s:
            self._ratings = (s, heuristic.ratings(self.rules, s.position, s.dice, s.throws_left))
        return self._ratings[1]

    def ratings(self) -> Ratings:
        """The rating heuristic (JaFuffy's) as a second opinion: beside each option, the
        ratings of the boxes whose rule does what it does (``rating_of``)."""
        found = self.heuristic()
        if not found:
            return Ratings("heuristic")
        beside = tuple(rating_of(o, found) for o in self.options())
        return Ratings("heuristic", beside, "; ".join(f"{r['option']} {r['value']:.2f}" for r in found))

    def summary(self) -> Summary:
        lines: tuple[str, ...] = (f"score {self.score} (sheet {self.state.position.total} + bonus {self.state.bonus})",)
        if self.state.others:
            lines += self.standings()
        return Summary(float(self.score), self.start_value(), self.regret, self.decisions(), self.unit, lines)

    def start_value(self) -> float:
        """What optimal play expects for your final score from where this game began: the whole
        game's value, or for an end game (``start``) your starting sheet's score and bonus plus
        that sheet's value."""
        mine = self._start_sheets[0]
        if mine.position.filled == 0:
            return float(self.solution.game_value)
        f, u, h = mine.position.state(self.rules)
        return float(mine.score + self.solution.value(f, u, h))

    def standings(self) -> tuple[str, ...]:
        """The table's scores, highest first (the winner first, or the leader while the game
        goes on), and what your decisions lost in win probability where it was measured."""
        scores = [("you", self.score)] + [(opponent_name(i), o.score) for i, o in enumerate(self.state.others, 1)]
        ranked = sorted(scores, key=lambda x: -x[1])
        top = [who for who, v in ranked if v == ranked[0][1]]
        if self.over:
            head = f"winner: {top[0]}" if len(top) == 1 else f"a tie for first: {' and '.join(top)}"
        else:
            head = f"leading: {' and '.join(top)}"
        lines = [head, "standings: " + ", ".join(f"{k}. {who} {v}" for k, (who, v) in enumerate(ranked, 1))]
        if self.two_player is not None:
            lines.append(f"against the optimal player (both playing to win, ties {self.ties}; table {self.two_player_source}): your win probability at the start {self.start_win():.4f}")
        measured = [m["info"]["win_regret"] for m in self.moves if isinstance(m.get("info"), dict) and "win_regret" in m["info"]]
        if measured:
            lines.append(f"your loss in win probability: {sum(measured):.4f} over {len(measured)} decisions with the win probability beside")
        return tuple(lines)

    # ------------------------------------------------------------------ at a table: the win probability

    def win_method(self, s: CategoryState | None = None) -> str | None:
        """How your win probability is computed at a decision of yours (``exact``), or None where
        it is not offered: more open boxes than ``win_open_limit``."""
        s = s or self.state
        if not s.others or s.mover != 0 or s.dice is None:
            return None
        if self.two_player is not None:
            return "two-player"
        open_boxes = self.rules.num_boxes - bin(s.position.filled).count("1")
        if open_boxes <= win_open_limit(self.rules):
            return "exact"
        return "table" if self._stored_target_table() else None

    def _stored_target_table(self) -> bool:
        """Whether the solution store holds the whole game's target table (``jaxsolve
        target-table GAME``): then the win probability before ``win_open_limit`` is the table's
        answer (an upper bound of the exact one; docs/winning.md)."""
        from jaxsolve.games.category.objectives import target as TG
        from jaxsolve.io import cache

        return bool(self.game) and cache.enabled() and TG.store_path(self.game, self.rules).is_file()

    def win_from(self) -> int:
        """The most open boxes at which the win probability is offered (``win_open_limit``;
        against the optimal player, always)."""
        return self.rules.num_boxes if self.two_player is not None else win_open_limit(self.rules)

    def win_advice(self, s: CategoryState | None = None, *, compute: bool = True) -> WinView | None:
        """Your probability to finish first at a decision of yours (default: now), against the
        opponents as they stand, each option's beside the expected points; None where it is no
        decision of yours at a table (or, with ``compute=False``, not computed yet). Kept per state."""
        from jaxsolve.games.category.objectives import winning

        s = s or self.state
        if not s.others or s.mover != 0 or s.dice is None:
            return None
        if s in self._wins or not compute:
            return self._wins.get(s)
        method = self.win_method(s)
        if method == "two-player":
            t0 = time.perf_counter()
            value, options = self.two_player_options(s)
            win = {o.label: (float(o.value), float(o.regret)) for o in options}
            view = WinView(True, win=win, best=options[0].label, value=float(value), method="two-player, both playing to win", seconds=time.perf_counter() - t0)
        elif method is None:
            n = self.win_from()
            view = WinView(False, f"win probability from {n} open boxes on (turn {self.rules.num_boxes - n + 1}); before that its exact answer takes too long to wait for (`jaxsolve target-table {self.game}` gives the table's answer from the start)")
        else:
            rivals = [winning.Opponent(o.position, o.score) for o in s.others]
            advice = winning.advise_win(self.rules, s.position, s.dice, s.throws_left, rivals, score=s.position.total + s.bonus, method=method, sol=self.solution, game=self.game)
            win = {o.label: (float(o.value), float(o.regret)) for o in advice.options}
            view = WinView(True, win=win, best=advice.options[0].label, value=float(advice.value), method=advice.method, seconds=advice.seconds)
        if len(self._wins) >= 64:
            self._wins.clear()
        self._wins[s] = view
        return view

    def win_column(self) -> Ratings | None:
        """Your win probability beside each option (``P(win) 0.4123, loss 0.0112``, the best for
        winning marked), or the note that says why it is not there; None off a table."""
        if not self.state.others or self.awaiting() != "choice" or self.state.mover != 0:
            return None
        view = self.win_advice()
        if view is None or not view.available or view.win is None:
            return Ratings("P(win)", (), view.note if view is not None else "")
        beside = []
        for o in self.options():
            p, loss = view.win.get(o.label, (float("nan"), float("nan")))
            beside.append(f"{p:.4f} loss {loss:.4f}" + ("  <- best to win" if o.label == view.best else ""))
        return Ratings("P(win)", tuple(beside), f"best to win: {view.best}")

    def choose(self, choice=None) -> PlayOption:
        """Play an option (``PlayedGame.choose``); at a table, a decision of yours also records
        its loss in win probability (where it was computed for this decision) and in points
        (``info``), and the news say both."""
        s = self.state
        if not s.others or s.mover != 0:
            return super().choose(choice)
        option = self.pick(choice)
        best = self.options()[0]
        view = None if self._replaying else self.win_advice(s, compute=not self.win_on_demand or self.two_player is not None)
        info: dict = {"points_regret": max(option.regret, 0.0)}
        if view is not None and view.available and view.win is not None and option.label in view.win:
            p, loss = view.win[option.label]
            info.update(win=p, win_best=view.best, win_regret=max(loss, 0.0))
        move = dict(option.move, by="you", label=option.label, value=option.value, best=best.label, regret=max(option.regret, 0.0), where=self.where(), info=info)
        self.news = []
        self._push(move)
        if "win_regret" in info:
            said = "a best move to win" if info["win_regret"] <= 0 else f"loss {info['win_regret']:.4f} in win probability (best to win: {info['win_best']})"
            self.news.insert(1 if self.news else 0, f"your move: {said}; loss {info['points_regret']:.4f} in points")
        return option

    def start_win(self) -> float:
        """Your probability to win at the start, both playing to win (the two-player table)."""
        table = self.two_player
        if table is None:
            raise PlayError("no game against the optimal player")
        mine, his = self._start_sheets
        lead = mine.score - his.score
        if self.they_start:
            return 1.0 - table.value(his.position.state(self.rules), mine.position.state(self.rules), -lead)
        return table.value(mine.position.state(self.rules), his.position.state(self.rules), lead)

    win_on_demand = False
    """True where the win probability is asked for apart (the page asks for it as a job of its
    own): a decision then records its loss in win probability only where the answer is there."""

    def replay(self, moves: list, source: str) -> None:
        """``PlayedGame.replay``, without computing win probabilities again: the decisions keep
        the ``info`` the save file records."""
        self._replaying = True
        try:
            super().replay(moves, source)
        finally:
            self._replaying = False
        for mine, saved in zip(self.moves, moves):
            if "regret" in mine and isinstance(saved.get("info"), dict):
                mine["info"] = saved["info"]

    def warm(self) -> None:
        """Compile what an answer needs (advice at every re-throw count, a fill, the heuristic)."""
        rules = self.rules
        pos = Position.empty(rules)
        dice = tuple(range(1, rules.dice + 1)) if rules.dice <= 6 else (1,) * rules.dice
        for left in range(rules.throws):
            advisor.advise(rules, pos, dice, left, "score", sol=self.solution)
            if heuristic_available(rules):
                from jaxsolve.games.category.simulation import heuristic

                heuristic.ratings(rules, pos, dice, left)
        jax.block_until_ready(moves_at(rules, pos))
