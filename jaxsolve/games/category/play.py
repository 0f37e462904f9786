"""A game of a category game (Kniffel / Yahtzee, Yatzy, Maxi Yatzy, any registered score sheet)
against the exact solution: the score sheet, the dice, the ranked options of ``advisor.advise``.

A turn: throw all dice; up to ``rules.throws - 1`` times keep some and re-throw the rest; fill
one open box (allowed at any throw). A value is the expected points still to come from this
moment under optimal play (this turn's box and any bonus it earns included, the points on the
sheet so far excluded); a regret is the best option's value minus the chosen one's.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

from jaxsolve.games.category import advisor, solutions, solver, tables
from jaxsolve.games.category.position import Position, PositionError, box_index, format_dice
from jaxsolve.games.category.rules import CategoryRules
from jaxsolve.games.category.sheet import KNIFFEL_SHEET
from jaxsolve.games.played import PlayError, PlayOption, PlayedGame, Ratings, Summary, fmt_faces, split_tokens, typed_faces


@dataclass(frozen=True)
class CategoryState:
    """``dice``: showing (None: a throw is due); ``kept``: dice kept for the due throw;
    ``throws_left``: re-throws left after the dice showing (or after the due throw);
    ``bonus``: bonus points earned so far (upper bonus, extra all-same bonuses, Im-Hieb)."""

    position: Position
    bonus: int
    dice: tuple[int, ...] | None
    kept: tuple[int, ...]
    throws_left: int
    keep_value: float | None = None


@functools.lru_cache(maxsize=8)
def _moves_fn(rules: CategoryRules):
    return jax.jit(lambda f, u, h: solver.moves(f, u, h, rules))


def heuristic_available(rules: CategoryRules) -> bool:
    """Whether the rating heuristic is defined for these rules (the 5-dice Kniffel sheet)."""
    return rules.dice == 5 and tuple(rules.boxes) == tuple(KNIFFEL_SHEET)


def rating_of(option: PlayOption, ratings: list[dict]) -> str:
    """The heuristic's ratings (``heuristic.ratings``) that do what ``option`` does (fill that
    box / keep those dice), as shown beside it: ``0.83 large_straight``; "" where none does."""
    hits = []
    for r in ratings:
        fills = r["option"].startswith("fill")
        if option.move["action"] == "fill" and fills and r["box"] == option.move["box"]:
            hits.append(r)
        elif option.move["action"] == "keep" and not fills and list(r["keep"]) == option.move["keep"]:
            hits.append(r)
    return ", ".join(f"{r['value']:.2f} {r['box']}" for r in hits)


class CategoryGame(PlayedGame):
    """One game of a category game. ``solution`` defaults to ``solutions.solution(rules)``."""

    unit = "points"
    rules_type = CategoryRules

    def __init__(self, game: str, rules: CategoryRules, solution=None, *, seed=None, auto_roll=False):
        solution = solution if solution is not None else solutions.solution(rules, "score", game=game)
        if solution.rules != rules or solution.objective != "score":
            raise PlayError(f"the value table is for {solution.rules.name}/{solution.objective}, not {rules.name}/score")
        self._ratings: tuple[CategoryState, list[dict]] | None = None
        super().__init__(game, rules, solution, seed=seed, auto_roll=auto_roll)

    # ------------------------------------------------------------------ state

    def initial_state(self) -> CategoryState:
        return CategoryState(Position.empty(self.rules), 0, None, (), self.rules.throws - 1)

    def awaiting(self) -> str:
        if self.state.position.is_over:
            return "over"
        return "dice" if self.state.dice is None else "choice"

    def throw_size(self) -> int:
        return self.rules.dice - len(self.state.kept)

    @property
    def turn(self) -> int:
        return sum(s is not None for s in self.state.position.scores) + 1

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
        return advisor.advise(self.rules, s.position, s.dice, s.throws_left, "score", sol=self.solution)

    def ranked_options(self) -> list[PlayOption]:
        out = []
        for o in self.advice().options:
            move = {"action": "fill", "box": o.box} if o.kind == "box" else {"action": "keep", "keep": list(o.keep or ())}
            out.append(PlayOption(o.label, o.value, o.regret, move, o))
        return out

    def advise_options(self) -> dict:
        s = self.state
        return {"objective": "score", "position": str(s.position), "dice": " ".join(map(str, s.dice)), "throws_left": s.throws_left}

    def help_choice(self) -> str:
        return "a number from the list, keep <dice> (e.g. keep 6 6), fill <box>, or b (Enter) for the best"

    def named_option(self, text: str, options: list[PlayOption]) -> PlayOption:
        tokens = split_tokens(text.lower())
        if not tokens:
            return options[0]
        word, rest = tokens[0], tokens[1:]
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
            who = "you threw" if not move.get("virtual") else "the virtual dice show"
            return CategoryState(s.position, s.bonus, dice, (), s.throws_left), f"{who} {format_dice(dice)}"
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
            return CategoryState(s.position, s.bonus, None, keep, s.throws_left - 1, value), f"kept {fmt_faces(keep)}, re-throw {n}"
        if action == "fill":
            return self._fill(s, move.get("box"))
        raise PlayError(f"unknown move {action!r}")

    def _fill(self, s: CategoryState, name):
        rules = self.rules
        try:
            b = box_index(str(name), rules)
        except PositionError as exc:
            raise PlayError(str(exc)) from None
        f, u, h = s.position.state(rules)
        arr = lambda x: jnp.asarray([x], jnp.int32)  # noqa: E731
        mv = _moves_fn(rules)(arr(f), arr(u), arr(h))
        sp = tables.space(rules.dice)
        t = sp.throw_index(sp.counts_of_faces(s.dice))
        pick = lambda a: int(np.asarray(a)[b, t, 0])  # noqa: E731
        if not pick(mv.allowed):
            why = "is already filled" if s.position.scores[b] is not None else "cannot take these dice now (joker rule)"
            raise PlayError(f"box {rules.box_names[b]} {why}")
        points = pick(mv.points)
        first = rules.has_instant_bonus and s.throws_left == rules.throws - 1
        bonus = pick(mv.extra) + pick(mv.upper_bonus) + (pick(mv.instant) if first else 0)
        position = s.position.fill(b, points)
        text = f"filled {rules.box_names[b]} with {points}" + (f" (+{bonus} bonus)" if bonus else "")
        return CategoryState(position, s.bonus + bonus, None, (), rules.throws - 1), text

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
        """The score sheet in one line: ``sheet: ones 3, twos ., ...`` (``.`` open, ``-`` a 0)."""
        line: list[tuple[str, str | None]] = [("sheet: ", None)]
        for i, (name, score) in enumerate(self.sheet()):
            line.append((f"{', ' if i else ''}{name} ", None))
            line.append(("." if score is None else ("-" if score == 0 else str(score)), "dim" if score is None else "bold"))
        return [tuple(line)]

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
        return lines

    def heuristic(self) -> list[dict]:
        """The rating heuristic's ratings of this moment (``heuristic.ratings``), best first
        (none while a throw is due)."""
        if not heuristic_available(self.rules):
            raise PlayError(f"the rating heuristic is defined for the 5-dice Kniffel sheet only, not {self.rules.name}")
        if self.awaiting() != "choice":
            return []
        from jaxsolve.games.category import heuristic

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
        lines = (f"score {self.score} (sheet {self.state.position.total} + bonus {self.state.bonus})",)
        return Summary(float(self.score), self.solution.game_value, self.regret, self.decisions(), self.unit, lines)

    def warm(self) -> None:
        """Compile what an answer needs (advice at every re-throw count, a fill, the heuristic)."""
        rules = self.rules
        pos = Position.empty(rules)
        dice = tuple(range(1, rules.dice + 1)) if rules.dice <= 6 else (1,) * rules.dice
        for left in range(rules.throws):
            advisor.advise(rules, pos, dice, left, "score", sol=self.solution)
            if heuristic_available(rules):
                from jaxsolve.games.category import heuristic

                heuristic.ratings(rules, pos, dice, left)
        f, u, h = pos.state(rules)
        arr = lambda x: jnp.asarray([x], jnp.int32)  # noqa: E731
        jax.block_until_ready(_moves_fn(rules)(arr(f), arr(u), arr(h)))
