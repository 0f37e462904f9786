"""The category (score-sheet) engine and the games on it: a game is a sheet of boxes as data
(``sheet``, ``rules``) solved by backward induction over layers of filled boxes (``solver``),
with one turn policy (``policy``) shared by evaluation, distributions, targets, simulation, the
advisor and play. ``kniffel``, ``yatzy``, ``maxi`` and ``yacht`` each hold one sheet, its presets and its
registration; ``heuristic`` (JaFuffy's rating heuristic) and ``apl_article`` are Kniffel-only."""

from jaxsolve.games.category.sheets import kniffel, maxi, yacht, yatzy

GAMES = (kniffel.GAME, yatzy.GAME, maxi.GAME, yacht.GAME)
