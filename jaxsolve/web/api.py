"""The page's questions answered with the library calls the command line makes, as plain data.

Everything comes from the registry (``jaxsolve.games.games()``): the games, their presets and
overridable rules fields, the options of their ``advise`` command (``Param`` values, the same
ones the command line turns into options) and their play class (``jaxsolve.play``). A game
registered later (a plug-in, a test's game) is on the page without code here.

Library work runs as jobs on a pool of threads (``jobs``): a request never waits behind
another's work, two tabs asking for the same unsolved rules share one solve, and the requests
of one game in play run in order. A request that is not answered within ``wait`` seconds (a
first solve, a long distribution) becomes a *job*: the caller gets its id and polls ``job()``
for the elapsed time, the solution store's notes and the solve's progress until the answer is
there. Bad input raises ``ApiError`` (an HTTP status and one message); nothing else is raised
to the caller except a bug, which the server turns into a 500 answer and survives.

One table per rule set: the advisor, play and ``cache warm`` read the same table (the advisor's
precision, float64, from the same solution store as the command line), so each rule set is
solved once. The tables kept in memory stay under ``max_memory`` bytes (least recently used
first, ``cache.keep_in_memory``); a game in play whose table is let go is put away (a request
for it says so). ``warm_defaults`` solves every game's default table at start, one after the
other, and ``warming()`` says how far that is.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable, Hashable

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.game import Advice, Batch, Game, Param, read_options
from jaxsolve.web.jobs import ABANDON, Job, Jobs, Stopping

TIE_TOL = 1e-9  # an option within this of the best (relative to the best's size) is tied with it
MAX_QUESTIONS = 1000  # questions in one bulk request
MAX_GAMES = 256  # games in play kept in memory (the oldest untouched one goes first)
MAX_MEMORY = 4 << 30
"""Bytes of solved tables the server keeps in memory by default (``serve --max-memory``): the
arrays of the tables (``cache.table_bytes``), the least recently used let go first."""
PUT_AWAY = 1024  # ids of games put away that a request is told about (the oldest forgotten first)
SEED = Param("seed", int, None, "Seed of the virtual dice (empty: a random seed).", min=0, max=2**63 - 1)
DISTRIBUTION = "distribution"
"""The command whose ``Report.result`` is P(final score = k) from a position: the page draws it
for the games that register it."""


class ApiError(JaxsolveError):
    """A request that cannot be answered: ``status`` (an HTTP 4xx) and one message."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


# ----------------------------------------------------------------------------- plain data


def plain(obj: Any) -> Any:
    """``obj`` as JSON-safe data: NumPy scalars and arrays as numbers and lists, tuples as lists,
    paths as text, NaN and infinities as None."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, (str, int, bool)) or obj is None:
        return obj
    if isinstance(obj, dict):
        return {str(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v) for v in obj]
    if isinstance(obj, Path):
        return str(obj)
    if hasattr(obj, "tolist"):  # NumPy scalar or array
        return plain(obj.tolist())
    return str(obj)


def param_info(p: Param) -> dict:
    """A ``Param`` as the page builds a form field from it (``min``/``max``: the range it takes)."""
    kind = {int: "int", float: "float", bool: "bool", list: "list"}.get(p.type, "str")
    low, high = p.bounds() if p.type is not list else (p.min, p.max)
    return plain({
        "name": p.name,
        "label": p.name.replace("_", " "),
        "type": kind,
        "default": p.default,
        "help": p.help,
        "choices": list(p.choices),
        "min": low,
        "max": high,
        "required": p.required,
    })


def form_params(params) -> list[Param]:
    """The options a form can give: not files (``Path``) and not the rest of a command line."""
    return [p for p in params if p.type is not Path and not (p.argument and p.type is list)]


def read_values(params, given: Any, what: str) -> dict:
    """The values of ``params`` from the object ``given`` (unknown names refused, defaults filled
    in), each checked as the command line checks it (``Param.check``), named as the page names it."""
    if given is None:
        given = {}
    if not isinstance(given, dict):
        raise ApiError(f"{what} must be an object")
    known = {p.name: p for p in params}
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise ApiError(f"unknown {what}: {', '.join(unknown)}; the {what} here are {', '.join(known) or 'none'}")
    given = {k: _items(known[k], v) for k, v in given.items()}
    try:
        return read_options(params, given, label=lambda p: p.name.replace("_", " "))
    except ApiError:
        raise
    except JaxsolveError as exc:
        raise ApiError(str(exc)) from None


def _items(p: Param, value: Any) -> Any:
    """A text given for a list of texts (``opponent``, what the page's text field sends) as its
    items: one item, or several separated by ``;`` (``"aces=3 5; start 0"``: two opponents),
    never split at spaces, which are inside an item. A list of numbers keeps its text (spaces
    separate the numbers: ``Param.check``)."""
    if p.type is list and p.item is str and isinstance(value, str) and value.strip():
        return [part.strip() for part in value.split(";") if part.strip()] or None
    return value


def tied(regret: float, best: float | None) -> bool:
    scale = max(1.0, abs(best)) if best is not None and math.isfinite(best) else 1.0
    return abs(regret) <= TIE_TOL * scale


def ranked_rows(options, best: float | None) -> list[dict]:
    """Options (``Ranked`` or ``PlayOption``) as rows: rank, label, value, regret, ``tie`` (an
    option tied with the best counts as optimal) and ``best`` (the first row and its ties)."""
    rows = []
    for i, o in enumerate(options, 1):
        detail = o.detail if isinstance(getattr(o, "detail", None), dict) else {}
        rows.append({**plain(detail), "rank": i, "option": o.label, "value": plain(float(o.value)), "regret": plain(float(o.regret)),
                     "best": tied(o.regret, best), "tie": i > 1 and tied(o.regret, best), **_move_of(o)})
    return rows


def _move_of(o) -> dict:
    """What a play option does, for the page to draw it as a move and to find it from a click:
    ``move`` (the move it records: ``{"action": "keep", "keep": [2, 2]}``, ``fill`` a ``box``,
    ``aside`` a ``set_aside``, ``write``, ``roll``, ``stop``), ``points`` (what it scores or the
    turn total after it) and ``next_dice`` (the dice thrown next), where the option says them."""
    move = getattr(o, "move", None)
    if not isinstance(move, dict):
        return {}
    out: dict = {"move": plain(move)}
    detail = getattr(o, "detail", None)
    points = getattr(detail, "points", None)
    if isinstance(points, int) and not isinstance(points, bool):
        out["points"] = points
    following = getattr(detail, "rethrow", None) if move.get("action") == "keep" else getattr(detail, "dice", None)
    if move.get("action") in ("keep", "aside") and isinstance(following, int):
        out["next_dice"] = following
    return out


def table_of(g: Game, rules) -> dict:
    """What the page draws for a question under ``rules`` before any game is in play: the
    number of dice (``dice``, where the rules fix it), the die's ``sides``, the ``throws`` of a
    turn, the ``players`` at a table and their ``goal`` (where the rules have them), the boxes of a score sheet (``face``: the face an upper box counts) and the players'
    words for them (``Game.words``)."""
    boxes = getattr(rules, "boxes", None)
    dice, sides, throws = (getattr(rules, k, None) for k in ("dice", "sides", "throws"))
    players, goal = (getattr(rules, k, None) for k in ("players", "goal"))
    return plain({
        "dice": dice if isinstance(dice, int) else None,
        "sides": sides if isinstance(sides, int) else 6,
        "throws": throws if isinstance(throws, int) else None,
        "players": players if isinstance(players, int) and not isinstance(players, bool) else None,
        "goal": goal if isinstance(goal, int) and not isinstance(goal, bool) else None,
        "boxes": None if boxes is None else [
            {"box": b.name, "upper": b.kind == "face", "face": b.param[0] if b.kind == "face" else None} for b in boxes
        ],
        "words": g.words(rules) if g.words is not None else None,
    })


def stage(rules, throws_left: int | None, dice) -> str | None:
    """The roll stage in words, for a game whose turns have a number of throws
    (``rules.throws``): ``throw 1 of 3 — 2 re-throws left``."""
    throws = getattr(rules, "throws", None)
    if not isinstance(throws, int) or not isinstance(throws_left, int) or not dice:
        return None
    k = throws - throws_left
    return f"throw {k} of {throws} — {throws_left} re-throw{'s' if throws_left != 1 else ''} left"


# ----------------------------------------------------------------------------- the service


class Service:
    """The answers behind the page's API (see the module's doc)."""

    def __init__(
        self, *, wait: float = 1.5, cache_dir: Path | None = None, use_cache: bool = True, device: str = "auto", workers: int | None = None,
        max_memory: int | None = MAX_MEMORY, abandon: float | None = ABANDON,
    ):
        self.wait = wait
        self.cache_dir = cache_dir
        self.use_cache = use_cache
        self.device_name = device
        self.max_memory = max_memory
        self._device = None
        self._jobs = Jobs(workers, abandon)
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._played: OrderedDict[str, Any] = OrderedDict()
        self._tables: dict[str, tuple[str, str]] = {}  # a game in play -> the memory key of its table
        self._put_away: OrderedDict[str, None] = OrderedDict()
        self._warming: list[tuple[Game, Any, str, Job]] = []
        self._dists: dict[tuple, dict] = {}
        self._configured = False

    # -------------------------------------------------------------- worker and jobs

    def _configure(self) -> None:
        """The solution store (and its notes into the running job) on first use; JAX only when needed."""
        if self._configured:
            return
        with self._lock:
            if self._configured:
                return
            from jaxsolve.io import cache

            cache.setup(self.cache_dir, enabled=self.use_cache, say=self._note, memory=True, max_bytes=self.max_memory)
            cache.on_forget(self._forgotten)
            self._configured = True

    def setup(self):
        """Configure JAX (float64, the caches) once and return the device: what a game's command
        calls when it has to compute (from any worker thread)."""
        with self._lock:
            if self._device is None:
                from jaxsolve.core import runtime
                from jaxsolve.io import cache

                runtime.configure(x64=True)
                cache.setup(self.cache_dir, enabled=self.use_cache, say=self._note, compilation=True, memory=True, max_bytes=self.max_memory)
                cache.on_forget(self._forgotten)
                self._configured = True
                self._device = runtime.get_device(self.device_name)
            return self._device

    def _note(self, message: str) -> None:
        """A message of the solution store, kept by the job running on this thread."""
        job = self._jobs.current()
        if job is not None:
            job.notes.append(str(message))

    def _forgotten(self, key: tuple[str, str], sol: Any) -> None:
        """The solution store let go of the table ``key`` (``cache.on_forget``): the games in play
        on it are put away, so that its memory is freed."""
        gone = [pid for pid, k in list(self._tables.items()) if k == key]
        for pid in gone:
            self._played.pop(pid, None)
            self._tables.pop(pid, None)
            self._put_away[pid] = None
        while len(self._put_away) > PUT_AWAY:
            self._put_away.popitem(last=False)

    def memory(self) -> dict:
        """The tables kept in memory: how many, their bytes and the limit (``cache.memory_use``)."""
        from jaxsolve.io import cache

        return {**cache.memory_use(), "max_bytes": self.max_memory, "games_in_play": len(self._played)}

    def submit(
        self, what: str, fn: Callable[[], Any], *, same: Hashable = None, key: Hashable = None, serial: Hashable = None, about: str | None = None,
        keep: bool = False,
    ) -> Job:
        """Run ``fn`` as a job on the pool (``jobs.Jobs.submit``: ``same`` shares the unfinished
        job of the same request, ``key`` one solve per table, ``serial`` one game's moves in
        order, ``keep``: never cancelled for want of polls)."""

        def run():
            self._configure()
            return fn()

        try:
            return self._jobs.submit(what, run, same=same, key=key, serial=serial, about=about, keep=keep)
        except Stopping as exc:
            raise ApiError(str(exc), 503) from None

    def job(self, jid: str) -> Job:
        job = self._jobs.get(jid)
        if job is None:
            raise ApiError(f"no job {jid!r} (finished jobs are kept for a while only)", 404)
        return job

    def order(self, kind: str, target: str, body: dict | None) -> dict:
        """What orders a request's job (``submit``'s ``same``, ``key``, ``serial``, ``about``): a game's
        question (``kind`` advise, values or play on the game ``target``) has the key of the table
        it needs (game, rules, dtype) and, but for a new game, is shared with the same question
        in flight; a game in play (``target`` its id) runs its requests in order, and its score
        distribution is shared by every request for those rules. Checks nothing: a request this
        cannot read is refused by its own call."""
        try:
            if kind == "status":
                return {"same": (kind, target, json.dumps(body, sort_keys=True, default=str))}
            if kind in ("advise", "values", "play", "warm"):
                g = self.game(target)
                rules, _ = self.rules(g, body or {})
                same = None if kind == "play" else (kind, target, json.dumps(body, sort_keys=True, default=str))
                dtype = self._table_dtype(g)  # one table per rule set: play reads the advisor's
                return {"same": same, "key": (g.name, rules, dtype), "about": f"{g.title}, rules {rules.name} ({dtype})"}
            if kind == "win":
                p = self._played.get(target)
                return {"same": ("win", target, None if p is None else len(p.moves))}
            if kind == "distribution":  # one at a time: each may take half of max_memory to work in
                p = self._played.get(target)
                return {"same": None if p is None else (kind, p.game, p.rules), "serial": "score distribution"}
            return {"serial": target}
        except (JaxsolveError, TypeError, ValueError):
            return {}

    def close(self) -> int:
        """Take no more work and drop the tables kept in memory; return how many jobs are still
        running (they are not waited for)."""
        running = self._jobs.close()
        if self._configured:
            from jaxsolve.io import cache

            cache.keep_in_memory(False)
            cache.on_forget(self._forgotten, on=False)
        return running

    # -------------------------------------------------------------- the registry

    def game(self, name: str) -> Game:
        from jaxsolve import games

        for g in games.games():
            if g.name == name:
                return g
        raise ApiError(f"unknown game {name!r}; the games are {', '.join(g.name for g in games.games())}", 404)

    def catalog(self) -> list[dict]:
        """Every registered game: presets, rules options, advisor options, play settings."""
        from jaxsolve import games

        out = []
        for g in games.games():
            advise = g.commands.get("advise")
            play_settings = None
            if g.play_game is not None:
                play_settings = [param_info(SEED)] + [param_info(p) for p in g.play_params]
            out.append({
                "name": g.name,
                "display_name": g.display_name or g.name,
                "board": g.board,
                "title": g.title,
                "family": g.family,
                "presets": list(g.presets()),
                "default": g.default,
                "rules_options": [param_info(p) for p in form_params(g.override_params())],
                "advise": None if advise is None else {"help": advise.help, "options": [param_info(p) for p in form_params(advise.params)]},
                "play": play_settings,
                "distribution": DISTRIBUTION in g.commands,
                "tables": {name: table_of(g, g.get_rules(name)) for name in g.presets()},
            })
        return out

    def rules(self, g: Game, body: dict) -> tuple[Any, bool]:
        """The rules a request names: ``rules`` (a preset, default the game's) and ``overrides``
        (rules fields); and whether any was named (as on the command line)."""
        preset = body.get("rules")
        if preset is not None and (not isinstance(preset, str) or preset not in g.presets()):
            raise ApiError(f"unknown rules {preset!r} for {g.name}; its presets are {', '.join(g.presets())}")
        overrides = read_values(form_params(g.override_params()), body.get("overrides"), "rules options")
        overrides = {k: v for k, v in overrides.items() if v is not None}
        given = preset is not None or bool(overrides)
        try:
            return g.build_rules(preset, **overrides), given
        except JaxsolveError as exc:
            raise ApiError(str(exc)) from None
        except (TypeError, ValueError) as exc:
            raise ApiError(f"bad rules options: {exc}") from None

    # -------------------------------------------------------------- advice

    def advise_call(self, name: str, body: dict) -> Callable[[], dict]:
        """Check a question (on the caller's thread) and return the work that answers it: the
        game's ``advise`` command, as ``jaxsolve advise NAME`` runs it with these options."""
        g = self.game(name)
        command = g.commands.get("advise")
        if command is None:
            raise ApiError(f"{g.name} has no advisor")
        _check_keys(body, ("rules", "overrides", "options"))
        rules, given = self.rules(g, body)
        params = command.params
        options = read_values(form_params(params), body.get("options"), "advisor options")
        for p in params:
            options.setdefault(p.name, p.default)
        dtype = _dtype(g.precision if command.precision is None else command.precision)
        return lambda: self._advise(g, command, rules, given, options, dtype)

    def _table_dtype(self, g: Game) -> str:
        """The precision of the table the game's advisor reads (as ``advise_call`` asks for it)."""
        command = g.commands.get("advise")
        return _dtype(g.precision if command is None or command.precision is None else command.precision)

    def status_call(self, name: str, body: dict) -> Callable[[], dict]:
        """Whether the table a question of these rules needs is solved already (in this server's
        memory or the cache folder) and, if not, about how long its solve takes here: the page
        says so before the first question and offers to solve it ahead (``warm_call``)."""
        from jaxsolve.io import cache

        g = self.game(name)
        _check_keys(body, ("rules", "overrides"))
        rules, _ = self.rules(g, body)
        dtype = self._table_dtype(g)

        def run() -> dict:
            st = cache.status(g, rules, dtype=dtype)
            return {"game": g.name, "rules": rules.name, "dtype": dtype, "cached": st.where is not None, "where": st.where, "estimate_seconds": st.estimate_seconds}

        return run

    def warm_call(self, name: str, body: dict) -> Callable[[], dict]:
        """Solve and cache the table of these rules ahead of the first question (``jaxsolve cache
        warm`` on the page); shared with any question that needs the same table meanwhile."""
        g = self.game(name)
        _check_keys(body, ("rules", "overrides"))
        rules, _ = self.rules(g, body)
        dtype = self._table_dtype(g)

        def run() -> dict:
            import time

            start = time.perf_counter()
            g.solution(rules, dtype=dtype, device=self.setup)
            return {"game": g.name, "rules": rules.name, "dtype": dtype, "cached": True, "seconds": round(time.perf_counter() - start, 3)}

        return run

    def warm_defaults(self) -> list[Job]:
        """Solve (or load) every registered game's default table, one after the other, as jobs
        that are never cancelled for want of polls (``serve`` calls it at start): those the
        cache folder holds first (a load), then the quickest to solve where the games register
        solve times. ``warming()`` says how far it is."""
        from jaxsolve import games
        from jaxsolve.io import cache

        self._configure()
        chosen: list[tuple[bool, float, int, Game, Any]] = []
        for g in games.games():
            if g.save is None or g.load is None or g.commands.get("advise") is None:
                continue
            rules = g.get_rules()
            solved = cache.status(g, rules, dtype=self._table_dtype(g)).cached
            chosen.append((not solved, cache.estimate(g, rules) or float("inf"), len(chosen), g, rules))
        jobs = []
        for _, _, _, g, rules in sorted(chosen, key=lambda c: c[:3]):
            dtype = self._table_dtype(g)

            def run(g=g, rules=rules, dtype=dtype) -> dict:
                import time

                start = time.perf_counter()
                g.solution(rules, dtype=dtype, device=self.setup)
                return {"game": g.name, "rules": rules.name, "dtype": dtype, "cached": True, "seconds": round(time.perf_counter() - start, 3)}

            job = self.submit(f"warm {g.name}", run, key=(g.name, rules, dtype), serial="warm at start", about=f"{g.title}, rules {rules.name} ({dtype})", keep=True)
            self._warming.append((g, rules, dtype, job))
            jobs.append(job)
        return jobs

    def warming(self) -> dict:
        """How far the tables warmed at start are: each table's ``state`` (``waiting``,
        ``solving`` with its ``progress``, ``ready`` or ``failed``), how many are ``ready`` of
        ``total``, and ``eta_seconds``: the time left of the table being solved at the rate of
        its layers so far (measured here and now; none for the tables still waiting)."""
        tables, ready, eta = [], 0, None
        for g, rules, dtype, job in self._warming:
            if job.future.done():
                failed = job.future.cancelled() or job.future.exception() is not None
                state = "failed" if failed else "ready"
                ready += not failed
            else:
                state = "solving" if job.ran is not None else "waiting"
            progress = job.progress() if state == "solving" else None
            if progress is not None and progress.get("eta_seconds") is not None:
                eta = progress["eta_seconds"]
            tables.append({"game": g.name, "title": g.display_name or g.title, "rules": rules.name, "dtype": dtype, "state": state, "progress": progress})
        busy = any(t["state"] in ("waiting", "solving") for t in tables)
        return {"tables": tables, "ready": ready, "total": len(tables), "busy": busy, "eta_seconds": eta, "memory": self.memory()}

    def _advise(self, g: Game, command, rules, given: bool, options: dict, dtype: str) -> dict:
        result = command.run(rules, rules_given=given, table=None, dtype=dtype, setup=self.setup, quiet=True, **options)
        if isinstance(result, Batch) or not isinstance(result, Advice):
            raise ApiError("this question has no ranked answer")
        best = result.options[0].value if result.options else None
        data = plain(result.data)
        if "note" in data and (data["note"] is None or isinstance(data["note"], str)):  # a race at a table: the cycle's line, the page words it
            data["note_parts"] = note_parts(data["note"])
        return {
            "game": g.name,
            "ruleset": rules.name,
            "heading": list(result.heading),
            "stage": stage(rules, data.get("throws_left"), data.get("dice")),
            "unit": result.unit,
            "value": plain(result.value),
            "options": ranked_rows(result.options, best),
            "data": {k: v for k, v in data.items() if k != "options"},
        }

    def values_call(self, name: str, body: dict) -> Callable[[], dict]:
        """Many questions to one game under one set of rules: ``questions`` is a list of advisor
        options; each answer is the position's value and its options, or ``error``."""
        g = self.game(name)
        _check_keys(body, ("rules", "overrides", "questions"))
        questions = body.get("questions")
        if not isinstance(questions, list) or not questions:
            raise ApiError("questions must be a non-empty list of advisor options")
        if len(questions) > MAX_QUESTIONS:
            raise ApiError(f"at most {MAX_QUESTIONS} questions at once, got {len(questions)}", 413)
        calls: list[Callable[[], dict] | ApiError] = []
        for q in questions:
            try:
                calls.append(self.advise_call(name, {"rules": body.get("rules"), "overrides": body.get("overrides"), "options": q}))
            except ApiError as exc:
                if exc.status == 404:
                    raise
                calls.append(exc)

        def run():
            answers = []
            for c in calls:
                try:
                    if isinstance(c, ApiError):
                        raise c
                    a = c()
                    answers.append({"value": a["value"], "stage": a["stage"], "options": a["options"]})
                except JaxsolveError as exc:
                    answers.append({"error": str(exc)})
            return {"game": g.name, "answers": answers}

        return run

    # -------------------------------------------------------------- play

    def new_game_call(self, name: str, body: dict) -> Callable[[], dict]:
        """A new game (rules, seed and the game's own settings) in play on the worker."""
        from jaxsolve import play

        g = self.game(name)
        if g.play_game is None:
            raise ApiError(f"{g.name} cannot be played here")
        _check_keys(body, ("rules", "overrides", "settings"))
        rules, _ = self.rules(g, body)
        params = [SEED, *g.play_params]
        settings = read_values(params, body.get("settings"), "settings")

        def run():
            from jaxsolve.io import cache

            self.setup()  # float64: the advisor's table of these rules, solved once for both
            played = play.new_game(g.name, rules, **settings)
            if hasattr(played, "win_on_demand"):
                played.win_on_demand = True  # the page asks for the win probability as a job of its own (``win_call``)
            played.warm()
            pid = f"g{next(self._ids)}"
            self._played[pid] = played
            self._tables[pid] = cache.memory_key(g, rules, self._table_dtype(g))
            while len(self._played) > MAX_GAMES:
                self._tables.pop(self._played.popitem(last=False)[0], None)
            return self.play_state(pid)

        return run

    def known(self, pid: str) -> None:
        """A 404 ``ApiError`` unless the game ``pid`` is in play (read-only, any thread); 410
        for a game put away to keep the tables within ``max_memory``."""
        if pid not in self._played:
            self._not_in_play(pid)

    def _not_in_play(self, pid: str) -> None:
        if pid in self._put_away:
            raise ApiError(f"the game {pid!r} was put away to keep the server's memory within its limit (serve --max-memory); start a new one", 410)
        raise ApiError(f"no game {pid!r} in play here (the server may have restarted)", 404)

    def played(self, pid: str):
        p = self._played.get(pid)
        if p is None:
            self._not_in_play(pid)
        self._played.move_to_end(pid)
        key = self._tables.get(pid)
        if key is not None:
            from jaxsolve.io import cache

            cache.touch(key)  # its table is in use: the last the memory limit lets go
        return p

    def move_call(self, pid: str, body: dict) -> Callable[[], dict]:
        """A move: ``{"throw": "1 2 3"}`` (typed dice) or ``{"throw": null}`` (virtual dice), or
        ``{"choice": 3}`` (an option's rank, or its name, ``"best"``)."""
        _check_keys(body, ("throw", "choice"))
        if ("throw" in body) == ("choice" in body):
            raise ApiError('a move is {"throw": dice or null} or {"choice": rank or name}')
        value = body.get("throw", body.get("choice"))
        if value is not None and (isinstance(value, bool) or not isinstance(value, (str, int, list))):
            raise ApiError("a throw is text or a list of faces; a choice is a rank or a name")
        if isinstance(value, list):
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
                raise ApiError("the faces of a throw are whole numbers")
            value = " ".join(map(str, value))

        def run():
            played = self.played(pid)
            if "throw" in body:
                played.throw(None if value in (None, "") else str(value))
            else:
                played.choose(None if value is None else value)
            return self.play_state(pid)

        return run

    def undo_call(self, pid: str) -> Callable[[], dict]:
        def run():
            self.played(pid).undo()
            return self.play_state(pid)

        return run

    def state_call(self, pid: str) -> Callable[[], dict]:
        return lambda: self.play_state(pid)

    def win_call(self, pid: str) -> Callable[[], dict]:
        """Your probability to finish first at this decision of a game against computer
        opponents (``play --opponents``), each option's beside its expected points
        (``CategoryGame.win_advice``: ``winning.advise_win``), or why it is not offered here.
        A job of its own, apart from the game's moves: the board is shown at once and the
        column follows; the answer names the move it belongs to (``moves``)."""
        p = self.played(pid)
        if not callable(getattr(p, "win_advice", None)):
            raise ApiError(f"{p.game} has no win probability at a table")
        state, moves = p.state, len(p.moves)

        def run():
            self.setup()  # JAX in float64 (the exact answer's digits), as every computing request
            view = _win(p, p.win_advice(state)) or {"available": False, "note": "no decision of yours against opponents here"}
            return plain({"id": pid, "moves": moves, **view})

        return run

    def play_state(self, pid: str) -> dict:
        """What the page shows of a game in play."""
        p = self.played(pid)
        s = p.state
        options = p.options()
        best = options[0].value if options else None
        last = next((m for m in reversed(p.moves) if "regret" in m), None)
        last_index = max((i for i, m in enumerate(p.moves) if not m.get("auto")), default=-1)
        fresh = last is not None and p.moves.index(last) == last_index
        summary = p.summary()
        g = self.game(p.game)
        awaiting = p.awaiting()
        return plain({
            "id": pid,
            "game": p.game,
            "ruleset": p.rules.name,
            "seed": p.seed,
            "unit": p.unit,
            "awaiting": p.awaiting(),
            "mover": p.mover() if not p.over else None,
            "over": p.over,
            "throw_size": p.throw_size() if awaiting == "dice" else None,
            "throw_count": p.throw_size() if awaiting == "dice" else None,
            "sides": p.sides(),
            "dice": _showing(p),
            "kept": _faces(getattr(s, "kept", None)) or [],
            "stage": _play_stage(p) if not p.over else None,
            "status": p.status(),
            "lines": [_text(line) for line in p.board()],
            "board": _board(g.board, p) or _table_board(p),
            "sheet": (_board("sheet", p) or {}).get("rows"),
            "words": g.words(p.rules) if g.words is not None else None,
            "log": [_logged(i, m, _points_of(p, i - 1, m)) | _at_table(p, i - 1, m) for i, m in enumerate(p.moves, 1)],
            "news": list(p.news),
            "value_now": p.value_now(),
            "options": ranked_rows(options, best),
            "last": None if last is None else {
                "chosen": last["label"], "best": last["best"], "value": last["value"], "regret": last["regret"],
                "optimal": tied(last["regret"], last["value"] + last["regret"]), "fresh": fresh, "where": last["where"],
                **{k: v for k, v in (last.get("info") or {}).items() if k in ("win", "win_best", "win_regret")},
            },
            "win": _win(p, p.win_advice(compute=False)) if callable(getattr(p, "win_advice", None)) and bool(getattr(s, "others", None)) else None,
            "moves": len(p.moves),
            "decisions": len(p.decisions()),
            "loss": p.regret,
            "can_undo": any(not m.get("auto") for m in p.moves),
            "summary": summary.to_dict() | {"lines": list(summary.lines), "expected_label": summary.expected_label} if p.over else None,
        })

    def review_call(self, pid: str) -> Callable[[], dict]:
        """Every decision of the game (``decision``: its number among your decisions, ``move``:
        among all moves) with its loss against the best option in the game's unit, the mean loss
        per decision (as in Verhoeff's proficiency test), the score and what optimal play expects
        from where the game began (``from_start``: false for an end game from filled sheets)."""

        def run():
            p = self.played(pid)
            summary = p.summary()
            before = getattr(p, "_before", [])
            decisions = [
                d.to_dict() | {"decision": k, "optimal": tied(d.regret, d.value + d.regret), "at": _at(before[d.number - 1], getattr(p, "seat", None)) if d.number <= len(before) else {}}
                for k, d in enumerate(summary.decisions, 1)
            ]
            n = len(decisions)
            return plain({
                "id": pid,
                "game": p.game,
                "ruleset": p.rules.name,
                "over": p.over,
                "unit": summary.unit,
                "score": summary.score,
                "expected": summary.expected,
                "expected_label": summary.expected_label,
                "from_start": "start" not in p.settings(),  # an end game (``start``) is compared with its own start
                "lines": list(summary.lines),
                "decisions": decisions,
                "count": n,
                "optimal": sum(d["optimal"] for d in decisions),
                "loss": summary.regret,
                "mean_loss": summary.regret / n if n else 0.0,
            })

        return run

    # -------------------------------------------------------------- score distribution

    def distribution_call(self, pid: str) -> Callable[[], dict]:
        """The exact distribution of the final score under optimal play from the start, for the
        rules of the game ``pid`` in play (games that register a ``distribution`` command: the
        category games), computed once per rules by that command (float64, no files), one at a
        time, its working memory at most half the server's ``max_memory``: rules whose
        distribution needs more are one line, not a process the system kills."""
        p = self.played(pid)
        g = self.game(p.game)
        command = g.commands.get(DISTRIBUTION)
        if command is None:
            raise ApiError(f"{g.name} has no score distribution")
        rules = p.rules
        bound = {"max_memory": max(1, self.max_memory >> 21)} if self.max_memory and any(q.name == "max_memory" for q in command.params) else {}
        options = read_options(command.params, {"no_files": True, **bound})  # its working memory within --max-memory, else one line

        def run():
            key = (g.name, rules)
            if key not in self._dists:
                try:
                    report = command.run(rules, dtype="float64", device=self.setup(), quiet=True, **options)
                except JaxsolveError as exc:
                    if "max_memory" not in str(exc):
                        raise
                    raise ApiError(f"the score distribution of these rules needs more memory than this server may use (serve --max-memory): {exc}") from None
                probs = [float(x) for x in report.result]
                nonzero = [i for i, x in enumerate(probs) if x > 1e-12]
                summary = {k: report.data[k] for k in ("mean", "sd", "mass", "mode", "percentiles", "at_least")}
                self._dists[key] = plain({"game": g.name, "ruleset": rules.name, **summary, "p": probs[: nonzero[-1] + 1 if nonzero else 0]})
            return self._dists[key]

        return run


def _play_stage(p) -> str | None:
    """The roll stage of a game in play: the dice showing (``stage``), or the throw that is due."""
    s = p.state
    shown = stage(p.rules, getattr(s, "throws_left", None), getattr(s, "dice", None))
    throws, left = getattr(p.rules, "throws", None), getattr(s, "throws_left", None)
    if shown is None and p.awaiting() == "dice" and isinstance(throws, int) and isinstance(left, int):
        n = p.throw_size()
        return f"throw {throws - left} of {throws}: throw {n} {'die' if n == 1 else 'dice'}"
    return shown


def _faces(value) -> list[int] | None:
    """``value`` as a list of faces where it is a sequence of faces, else None."""
    if isinstance(value, (tuple, list)) and all(isinstance(v, int) for v in value):
        return [int(v) for v in value]
    return None


def _showing(p) -> list[int] | None:
    """The dice showing while a decision is due: the state's ``dice`` or ``throw`` where it
    holds faces, else the last throw's (a one-die race); None while a throw is due (what the
    throw has is ``throw_count``, the dice kept for it ``kept``)."""
    if p.awaiting() != "choice":
        return None
    for name in ("dice", "throw"):
        faces = _faces(getattr(p.state, name, None))
        if faces is not None:
            return faces
    last = next((m for m in reversed(p.moves) if m.get("action") == "throw"), None)
    return None if last is None else _faces(last.get("dice"))


def _board(kind: str, p) -> dict | None:
    """What the page draws beside the dice, by the kind the game registers (``Game.board``):
    ``sheet`` the boxes with their section and the totals of a score sheet, ``race`` both banked
    scores with the mover's turn total, ``turns`` one player's turn and running total."""
    s, rules = p.state, p.rules
    if kind == "sheet" and callable(getattr(p, "sheet", None)):
        position = s.position
        boxes = list(rules.boxes)
        rows = [{"box": b, "score": v, "upper": boxes[i].kind == "face"} for i, (b, v) in enumerate(p.sheet())]
        upper = int(position.upper_total)
        upper_bonus = int(rules.upper_bonus) if upper >= rules.upper_threshold else 0
        total = int(position.total)
        players = [_sheet_of(rules, o.position, o.bonus, f"opponent {i}") for i, o in enumerate(getattr(s, "others", ()), 1)]
        return {
            "kind": "sheet", "rows": rows, "players": players, "mover_index": getattr(s, "mover", 0), "upper_total": upper, "upper_threshold": int(rules.upper_threshold),
            "upper_bonus": upper_bonus, "bonus_points": int(rules.upper_bonus), "other_bonus": int(s.bonus) - upper_bonus,
            "lower_total": total - upper, "total": total + int(s.bonus),
            "throws_left": getattr(s, "throws_left", None), "throws": getattr(rules, "throws", None),
        }
    if kind == "race":
        turn = getattr(s, "turn_total", getattr(s, "points", 0))
        return {
            "kind": "race", "you": s.you, "them": s.them, "turn_total": turn, "mover": s.mover, "you_started": s.you_started,
            "goal": getattr(rules, "goal", None), "last": bool(getattr(s, "last", False)), "winner": getattr(s, "winner", None),
        }
    if kind == "turns":
        turns = getattr(p, "turns", None)
        return {"kind": "turns", "turn": min(s.turn, turns) if turns else s.turn, "turns": turns, "total": s.total, "turn_total": s.points}
    return None


def _sheet_of(rules, position, bonus: int, name: str) -> dict:
    """An opponent's sheet as the page draws it beside yours: his boxes and totals."""
    upper = int(position.upper_total)
    upper_bonus = int(rules.upper_bonus) if upper >= rules.upper_threshold else 0
    total = int(position.total)
    return {
        "name": name, "scores": list(position.scores), "upper_total": upper, "upper_bonus": upper_bonus,
        "other_bonus": int(bonus) - upper_bonus, "lower_total": total - upper, "total": total + int(bonus),
    }


# ----------------------------------------------------------------------------- a race at a table

NOTE_PURE = re.compile(r"cycle has (\d+) pure equilibria")
NOTE_MIXED = re.compile(r"no pure equilibrium: .* in which (.+?) play their lower-risk policy with probability ([\d.]+(?: and [\d.]+)*)")


def note_parts(note: str | None) -> dict | None:
    """The line a race at a table says where a position's cycle has several pure equilibria or
    only a mixed one (``race_table.cycle_note``) as the page words it: ``pure`` (how many pure
    equilibria), or ``mixers`` (the banked scores of the movers who mix) with their ``q`` (the
    probability of the lower-risk policy); ``text`` the line itself. None for no line."""
    if not note:
        return None
    found = NOTE_PURE.search(note)
    if found:
        return {"text": note, "pure": int(found.group(1))}
    found = NOTE_MIXED.search(note)
    if found:
        mixers = [int(v) for v in re.findall(r"the mover at (\d+)", found.group(1))]
        q = [float(v) for v in found.group(2).split(" and ")]
        if mixers and len(mixers) == len(q):
            return {"text": note, "mixers": mixers, "q": q}
    return {"text": note}


def _table_seat(state) -> int | None:
    """The mover's seat (0 the first) where ``state`` is a race at a table (every seat's banked
    ``scores`` and the ``mover``), else None."""
    scores, mover = _faces(getattr(state, "scores", None)), getattr(state, "mover", None)
    if scores is None or isinstance(mover, bool) or not isinstance(mover, int) or not 0 <= mover < len(scores):
        return None
    return mover


def _table_board(p) -> dict | None:
    """The board of a race at a table of N players (a game in play whose state has every seat's
    banked ``scores`` and the ``mover``, and which has your ``seat``): each seat's banked score
    and win probability now (seat 1 moves first), whose turn (``mover``, a seat), yours
    (``you``), the mover's points this turn, the goal, the winner, and the note where the
    position's cycle has several equilibria or only a mixed one (``note_parts``). None for any
    other game."""
    s, rules = p.state, p.rules
    mover, seat = _table_seat(s), getattr(p, "seat", None)
    if mover is None or isinstance(seat, bool) or not isinstance(seat, int):
        return None
    from jaxsolve.core.race_table import cycle_note

    scores = [int(v) for v in s.scores]
    n = len(scores)
    wins = [float(w) for w in p.seat_wins()] if callable(getattr(p, "seat_wins", None)) else [None] * n
    winner = getattr(s, "winner", None)
    note = None
    levels, unsettled = getattr(rules, "levels", None), getattr(getattr(p, "solution", None), "unsettled", None)
    if winner is None and isinstance(levels, int) and levels > 0 and isinstance(unsettled, list):
        step = max(1, int(rules.goal) // levels)
        note = note_parts(cycle_note(tuple(scores[(mover + k) % n] // step for k in range(n)), unsettled, step))
    return {
        "kind": "table", "seats": [{"seat": k + 1, "score": v, "win": wins[k]} for k, v in enumerate(scores)],
        "mover": mover + 1, "you": seat + 1, "turn_total": int(getattr(s, "turn_total", getattr(s, "points", 0)) or 0),
        "goal": getattr(rules, "goal", None), "winner": None if winner is None else int(winner) + 1, "note": note,
    }


def _at_table(p, index: int, m: dict) -> dict:
    """A move at a table as the log tells it: the ``seat`` that made it (1 the first) and, for a
    throw, whether it was a ``bust`` (the move passed on); {} for any other game."""
    before = getattr(p, "_before", [])
    if not 0 <= index < len(before):
        return {}
    seat = _table_seat(before[index])
    if seat is None:
        return {}
    out: dict = {"seat": seat + 1}
    if m.get("action") == "throw":
        after = before[index + 1] if index + 1 < len(before) else p.state
        out["bust"] = getattr(after, "winner", None) is None and getattr(after, "mover", seat) != seat
    return out


def _win(p, view) -> dict | None:
    """A ``WinView`` as the page shows it: ``options`` (P(win) and loss by option label), ``best``
    (the label of the best to win), ``value``; or ``note`` (and ``from_open``: the most open
    boxes at which it is offered) where it is not offered; None where none is computed yet."""
    if view is None:
        return None
    if not view.available:
        return {"available": False, "note": view.note, "from_open": p.win_from(), "boxes": p.rules.num_boxes}
    return {
        "available": True, "value": view.value, "best": view.best, "method": view.method, "seconds": view.seconds,
        "options": {label: {"win": w, "loss": loss} for label, (w, loss) in (view.win or {}).items()},
    }


def _logged(number: int, m: dict, points: int | None = None) -> dict:
    """One move of the game as the page's log shows it: who, what (its fields), the points it
    wrote (``points``, where it wrote any), and for your decisions the best option and the loss."""
    out = {k: v for k, v in m.items() if k not in ("value", "where")}
    out["number"] = number
    out.setdefault("by", "you")
    if points is not None:
        out["points"] = points
    return out


def _at(state, seat: Any = None) -> dict:
    """Where a decision was, as the page says it in its words: the ``turn`` (a sheet's: its
    filled boxes plus one), the ``dice`` showing, the ``throws_left``, the banked scores (``you``,
    ``them``; at a table every seat's ``scores`` and yours, ``seat``, 1 the first) and the points
    of the turn so far (``turn_total``), where the state has them."""
    out: dict = {}
    scores = _faces(getattr(state, "scores", None))
    if scores is not None and isinstance(seat, int) and not isinstance(seat, bool):
        out["scores"], out["seat"] = scores, seat + 1
    position = getattr(state, "position", None)
    turn = getattr(state, "turn", None)
    if isinstance(turn, int):
        out["turn"] = turn
    elif position is not None and isinstance(getattr(position, "filled", None), int):
        out["turn"] = bin(position.filled).count("1") + 1
    for name in ("dice", "throw"):
        faces = _faces(getattr(state, name, None))
        if faces:
            out["dice"] = faces
            break
    for name in ("throws_left", "you", "them"):
        v = getattr(state, name, None)
        if isinstance(v, int) and not isinstance(v, bool):
            out[name] = v
    total = getattr(state, "turn_total", getattr(state, "points", None))
    if isinstance(total, int) and not isinstance(total, bool):
        out["turn_total"] = total
    return out


def _points_of(p, index: int, m: dict) -> int | None:
    """The points the move ``index`` of the game wrote down: a box's score on the mover's sheet
    (a box keeps its score), or what a write or a stop added to the mover's banked score (the
    states before and after it); None for a move that writes nothing."""
    action = m.get("action")
    s = p.state
    if action == "fill" and isinstance(m.get("box"), str):
        player = m.get("player") if m.get("by") == "them" else None
        sheet = s.others[player - 1] if isinstance(player, int) and 0 < player <= len(getattr(s, "others", ())) else s
        position = getattr(sheet, "position", None)
        names = list(getattr(p.rules, "box_names", ()))
        if position is None or m["box"] not in names:
            return None
        score = position.scores[names.index(m["box"])]
        return None if score is None else int(score)
    if action in ("write", "stop", "bank"):
        said = re.search(r"\b(?:write|bank) (\d+)", str(m.get("label", "")))  # your decision's own words: the turn's points
        if said:
            return int(said.group(1))
        before = getattr(p, "_before", [])
        if index >= len(before):
            return None
        after = before[index + 1] if index + 1 < len(before) else s
        for name in ("them" if m.get("by") == "them" else "you", "total"):
            a, b = getattr(before[index], name, None), getattr(after, name, None)
            if isinstance(a, int) and isinstance(b, int):
                return b - a
        seat = _table_seat(before[index])
        if seat is not None:  # at a table: what the mover's banked score gained
            return int(after.scores[seat] - before[index].scores[seat])
    return None


def _text(line) -> str:
    return line if isinstance(line, str) else "".join(piece for piece, _ in line)


def _dtype(precision: str) -> str:
    return "float64" if precision in ("float64", "fixed64") else "float32"


def _check_keys(body: Any, allowed: tuple[str, ...]) -> None:
    if not isinstance(body, dict):
        raise ApiError("the request body must be a JSON object")
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise ApiError(f"unknown field(s) {', '.join(unknown)}; this request takes {', '.join(allowed)}")
