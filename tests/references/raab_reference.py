"""Plain-Python reference for small Pig-family games: the rules written out state by state.

No arrays, no shared tables: a dictionary of states and Gauss-Seidel value iteration. Used
only on tiny games to check the JAX fixpoint entry by entry.
"""

from __future__ import annotations


def solve_reference(goal, points, bust, last_turn, bound=None, tol=1e-14, max_sweeps=100_000):
    """Turn-start win probabilities ``{(ts, mine, theirs): p}`` and all values ``{(ts, m, a, t): p}``.

    ``points[f - 1]`` are the points of face ``f``; face ``bust`` loses the turn total.
    """
    sides = len(points)
    top = bound if last_turn else goal - 1
    faces = [points[f - 1] for f in range(1, sides + 1) if f != bust]
    big = max(faces)
    g = goal

    def over(ts, m, t):
        if not last_turn:
            if m >= g:
                return 1.0
            if t >= g:
                return 0.0
            return None
        if ts == 0:
            if m < g <= t:
                return 0.0
            if t < g <= m:
                return 1.0
            if m >= g and t >= g and m != t:
                return 1.0 if m > t else 0.0
            return None
        if m >= g and (t < g or m > t):
            return 1.0
        return None

    def reduce(m, t):
        if last_turn and m >= g and t >= g:
            d = min(m, t) - g
            return m - d, t - d
        return m, t

    values = {}

    def get(ts, m, a, t):
        o = over(ts, m, t)
        if o is not None:
            return o
        m, t = reduce(m, t)
        t = min(t, top)
        return values[(ts, m, a, t)]

    def bust_value(ts, m, t):
        if last_turn and ts == 1 and t >= g:
            return 0.0
        return 1.0 - get(1 - ts if last_turn else 0, t, 0, m)

    def stop_value(ts, s, t):
        if not last_turn:
            return 1.0 if s >= g else 1.0 - get(0, t, 0, s)
        if ts == 1:
            if t >= g:
                if s != t:
                    return 1.0 if s > t else 0.0
                return 1.0 - get(0, t, 0, s)
            return 1.0 if s >= g else 1.0 - get(0, t, 0, s)
        m2, t2 = reduce(t, s)
        return 1.0 - get(1, m2, 0, min(t2, top))

    n_ts = 2 if last_turn else 1
    n_m = g + 1 if last_turn else g
    keys = [(ts, m, a, t) for ts in range(n_ts) for m in range(n_m) for t in range(top + 1) for a in range(top + big + 1 - m)]
    for key in keys:
        values[key] = 0.5

    def evaluate(ts, m, a, t):
        o = over(ts, m, t)
        if o is not None:
            return o
        s = m + a
        stop = stop_value(ts, s, t) if a > 0 else None
        if s > top:
            return stop
        roll = bust_value(ts, m, t) / sides
        for p in faces:
            roll += get(ts, m, a + p, t) / sides
        return roll if stop is None else max(roll, stop)

    for _ in range(max_sweeps):
        change = 0.0
        for key in reversed(keys):
            new = evaluate(*key)
            change = max(change, abs(new - values[key]))
            values[key] = new
        if change < tol:
            break
    start = {(ts, m, t): values[(ts, m, 0, t)] for ts in range(n_ts) for m in range(n_m) for t in range(top + 1)}
    return start, values
