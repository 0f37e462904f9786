"""Strategies and simulation: the strategies a simulated game can follow (``strategies``),
JaFuffy's rating heuristic (``heuristic``) and vectorised play of many games (``simulate``)."""
