"""A brute force of the Pig family for N players at a table, written apart from jaxsolve's engine.

Plain Python and NumPy, for tiny goals. One die of ``sides`` faces, ``bust`` loses the turn
total, any other face adds its number, the first to bank ``goal`` wins. A state is the tuple of
banked scores seen from the mover; a bust passes the move on with the scores unchanged, so the
state becomes its rotation ``(s_1, ..., s_{N-1}, s_0)``.

For every cycle of rotations (totals of banked scores from the top down) it:

* lists every deterministic turn policy of every member (bank or roll at each turn total below
  what wins: ``2 ** (goal - s_0 - 1)`` of them) and each policy's outcome as a line in the bust
  vector ``X``: ``A + beta X``, by a recursion over the turn total;
* enumerates the pure stationary equilibria: every combination of policies that are each a best
  response somewhere in ``[0, 1]`` whose solved cycle (one linear system, ``numpy.linalg.solve``)
  leaves every member's policy within 1e-12 of his best at his own bust payoff;
* applies the selection jaxsolve declares: best-response iteration from every mover's bust
  payoff 0, each round every member playing the tie rule's best policy (bank on a tie within
  1e-12) at his current bust payoff, at most 60 rounds, until no value moves by more than
  1e-13; where it does not settle, the pure equilibrium with the largest sum of the movers' own
  win probabilities (a cycle without one is reported, not solved: this reference does not mix).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

TIE = 1e-12
ROUNDS = 60
TOL = 1e-13


def rot(s: tuple, j: int = 1) -> tuple:
    return s[j:] + s[:j]


def seen_from_previous(w: np.ndarray) -> np.ndarray:
    """A value vector of the next mover's state, seen from the mover before him."""
    return np.array([w[(k - 1) % len(w)] for k in range(len(w))])


@dataclass
class Table:
    players: int
    goal: int
    sides: int
    bust: int
    values: dict = field(default_factory=dict)
    pure_counts: dict = field(default_factory=dict)  # cycle representative -> pure equilibria
    settled: dict = field(default_factory=dict)  # cycle representative -> best-response iteration settled

    @property
    def adds(self) -> list[int]:
        return [f for f in range(1, self.sides + 1) if f != self.bust]

    def bank(self, s: tuple, p: int) -> np.ndarray:
        n = self.players
        if s[0] + p >= self.goal:
            win = np.zeros(n)
            win[0] = 1.0
            return win
        return seen_from_previous(self.values[s[1:] + (s[0] + p,)])

    def line(self, s: tuple, policy: tuple) -> tuple[np.ndarray, float]:
        """``(A, beta)`` of a turn policy (``policy[p - 1]``: 1 banks at turn total ``p``)."""
        n, top = self.players, self.goal - s[0]
        memo: dict[int, tuple[np.ndarray, float]] = {}
        for p in range(top + self.sides, -1, -1):
            if p >= top:
                memo[p] = (self.bank(s, p), 0.0)
            elif p > 0 and policy[p - 1]:
                memo[p] = (self.bank(s, p), 0.0)
            else:
                A = np.zeros(n)
                beta = 1.0 / self.sides
                for f in self.adds:
                    a, b = memo[p + f]
                    A = A + a / self.sides
                    beta += b / self.sides
                memo[p] = (A, beta)
        return memo[0]

    def tie_policy(self, s: tuple, x: float) -> tuple:
        """The tie rule's best policy at bust payoff ``x``: a plain backward recursion on the
        mover's value, banking where banking is within 1e-12 of rolling."""
        top = self.goal - s[0]
        v: dict[int, float] = {}
        choice = [0] * max(top - 1, 0)
        for p in range(top + self.sides, -1, -1):
            if p >= top:
                v[p] = 1.0
                continue
            roll = x / self.sides + sum(v[p + f] for f in self.adds) / self.sides
            bank = self.bank(s, p)[0] if p > 0 else -np.inf
            if bank >= roll - TIE:
                v[p], choice[p - 1] = bank, 1
            else:
                v[p] = roll
        return tuple(choice)

    def solve_lines(self, lines: list[tuple[np.ndarray, float]]) -> np.ndarray:
        """``W [N, N]`` of ``W_j = A_j + beta_j R(W_{j+1})`` by one linear system."""
        n = self.players
        P = np.zeros((n, n))
        for k in range(n):
            P[k, (k - 1) % n] = 1.0
        M = np.eye(n * n)
        rhs = np.zeros(n * n)
        for j, (A, beta) in enumerate(lines):
            nxt = (j + 1) % n
            M[j * n : (j + 1) * n, nxt * n : (nxt + 1) * n] -= beta * P
            rhs[j * n : (j + 1) * n] = A
        return np.linalg.solve(M, rhs).reshape(n, n)

    def cycle(self, rep: tuple) -> None:
        n = self.players
        members = [rot(rep, j) for j in range(n)]
        policies = [list(itertools.product((0, 1), repeat=max(self.goal - s[0] - 1, 0))) for s in members]
        lines = []
        for s, pols in zip(members, policies):  # distinct lines: decisions at totals never reached change nothing
            seen: dict = {}
            for pi in pols:
                A, beta = self.line(s, pi)
                seen.setdefault((tuple(A), beta), (A, beta))
            lines.append(list(seen.values()))
        # best-response iteration from bust payoff 0
        x = np.zeros(n)
        W_prev = np.full((n, n), np.inf)
        settled = False
        for _ in range(ROUNDS):
            W = self.solve_lines([self.line(s, self.tie_policy(s, x[j])) for j, s in enumerate(members)])
            change = np.max(np.abs(W - W_prev))
            W_prev = W
            x = np.array([W[(j + 1) % n][n - 1] for j in range(n)])
            if change <= TOL:
                settled = True
                break
        chosen = W_prev
        # every pure equilibrium, among policies that are a best response somewhere in [0, 1]
        cands = []
        for j in range(n):
            a = np.array([ln[0][0] for ln in lines[j]])
            b = np.array([ln[1] for ln in lines[j]])
            xs = [0.0, 1.0]
            for p, q in itertools.combinations(range(len(a)), 2):
                if b[p] != b[q]:
                    t = (a[q] - a[p]) / (b[p] - b[q])
                    if 0.0 <= t <= 1.0:
                        xs.append(t)
            xs_arr = np.array(xs)
            vals = a[:, None] + b[:, None] * xs_arr[None, :]
            best = vals.max(axis=0)
            cands.append([k for k in range(len(a)) if np.any(vals[k] >= best - TIE)])
        pure: list[np.ndarray] = []
        for combo in itertools.product(*cands):
            if any(members[i] == members[k] and combo[i] != combo[k] for i in range(n) for k in range(n)):
                continue  # the same state plays the same policy
            W = self.solve_lines([lines[j][k] for j, k in enumerate(combo)])
            ok = True  # each member's policy is a best response at his own bust payoff
            for j in range(n):
                xj = W[(j + 1) % n][n - 1]
                best = max(A[0] + beta * xj for A, beta in lines[j])
                A, beta = lines[j][combo[j]]
                ok &= A[0] + beta * xj >= best - TIE
            if ok and all(np.max(np.abs(W - o)) > 1e-9 for o in pure):
                pure.append(W)
        self.pure_counts[rep] = len(pure)
        self.settled[rep] = settled
        if not settled:
            if not pure:
                raise NotImplementedError(f"cycle {rep}: no pure equilibrium and best responses do not settle")
            chosen = max(pure, key=lambda w: float(np.trace(w)))
        for j, s in enumerate(members):
            self.values[s] = chosen[j]

    def solve(self) -> "Table":
        n, G = self.players, self.goal
        reps = sorted({min(rot(s, j) for j in range(n)) for s in itertools.product(range(G), repeat=n)}, key=lambda s: (-sum(s), s))
        for rep in reps:
            self.cycle(rep)
        return self


def solve(players: int, goal: int, sides: int, bust: int = 1) -> Table:
    return Table(players, goal, sides, bust).solve()
