"""Figures printed in the APL article, for comparison only: M. Mitsos, "Analyse von Kniffel und
Ermittlung der optimalen Spielstrategie über APL", APL-Journal 28 (2009), issue 1/2; tables 1,
10, 21, 22.

Rows are in table order (``BOX_NAMES``); success probabilities in percent, expected values in
points. Tables 21/22 analyse the start position with the first throw ``EW = 1 1 2 2 5`` (the
dice glyphs are lost in the transcription; this throw reproduces E(HABE; EW) = 21.1489).
"""

from __future__ import annotations

from jaxsolve.games.category.kniffel import BOX_NAMES

EW = (1, 1, 2, 2, 5)

TABLE1 = dict(
    zip(
        BOX_NAMES,
        [
            (59.81, 0.8333), (59.81, 1.6667), (59.81, 2.5000), (59.81, 3.3333), (59.81, 4.1667), (59.81, 5.0000),
            (21.30, 3.7269), (2.01, 0.3511), (3.86, 0.9645), (15.43, 4.6296), (3.09, 1.2346), (0.08, 0.0386), (100.00, 17.5000),
        ],
    )
)

TABLE10 = dict(
    zip(
        BOX_NAMES,
        [
            (83.85, 1.5278), (83.85, 3.0556), (83.85, 4.5833), (83.85, 6.1111), (83.85, 7.6389), (83.85, 9.1667),
            (54.13, 10.2087), (13.23, 2.4215), (19.12, 4.7806), (41.18, 12.3536), (12.97, 5.1899), (1.26, 0.6316), (100.00, 21.2500),
        ],
    )
)

COLUMNS = ("turn_nothrow", "turn_ew", "turn_opt", "game_nothrow", "game_ew", "game_opt")
ROWS = BOX_NAMES + ("sum", "rest", "game")

TABLE21 = {
    "aces": (50.15, 50.15, 50.15, 42.44, 66.67, 24.63),
    "twos": (20.83, 20.83, 20.83, 0.00, 0.00, 0.00),
    "threes": (6.56, 6.56, 6.56, 3.47, 0.00, 2.89),
    "fours": (1.16, 1.16, 1.16, 1.16, 0.00, 0.96),
    "fives": (0.00, 0.00, 0.00, 0.00, 0.00, 0.00),
    "sixes": (0.00, 0.00, 0.00, 16.20, 0.00, 13.31),
    "three_kind": (19.29, 19.29, 19.29, 15.43, 0.00, 13.72),
    "four_kind": (2.01, 2.01, 2.01, 1.93, 0.00, 7.18),
    "full_house": (0.00, 0.00, 0.00, 3.86, 33.33, 15.43),
    "small_straight": (0.00, 0.00, 0.00, 12.35, 0.00, 11.70),
    "large_straight": (0.00, 0.00, 0.00, 3.09, 0.00, 9.26),
    "kniffel": (0.00, 0.00, 0.00, 0.08, 0.00, 0.91),
    "chance": (0.00, 0.00, 0.00, 0.00, 0.00, 0.00),
    "sum": (100.00, 100.00, 100.00, 100.00, 100.00, 100.00),
    "rest": (0.00, 0.00, 0.00, 1035.78, 1039.39, 1043.55),
    "game": (0.00, 0.00, 0.00, 1135.78, 1139.39, 1143.55),
}

TABLE22 = {
    "aces": (0.0000, 0.0000, 0.0000, 0.3781, 0.0000, 0.1575),
    "twos": (0.0000, 0.0000, 0.0000, 0.7253, 2.6667, 0.4391),
    "threes": (0.0000, 0.0000, 0.0000, 0.7870, 0.0000, 0.6145),
    "fours": (0.0000, 0.0000, 0.0000, 0.8333, 0.0000, 1.0110),
    "fives": (0.0000, 0.0000, 0.0000, 0.9002, 0.0000, 1.3558),
    "sixes": (0.0000, 0.0000, 0.0000, 0.8642, 0.0000, 1.3062),
    "three_kind": (2.8048, 3.2917, 3.1780, 0.6096, 0.0000, 1.3834),
    "four_kind": (0.3376, 0.4267, 0.6645, 0.0965, 0.0000, 0.4359),
    "full_house": (0.8681, 0.7716, 1.0858, 0.9324, 8.3333, 2.5024),
    "small_straight": (3.7037, 3.3333, 7.6888, 3.7037, 0.0000, 4.7261),
    "large_straight": (1.2346, 1.4815, 3.8670, 1.2346, 0.0000, 2.9150),
    "kniffel": (0.0386, 0.0386, 0.1857, 0.0386, 0.0000, 0.5298),
    "chance": (11.0725, 11.8056, 8.5971, 1.6860, 0.0000, 1.5817),
    "sum": (20.0598, 21.1489, 25.2669, 12.7894, 11.0000, 18.9584),
    "rest": (0.0000, 0.0000, 0.0000, 172.9645, 176.0446, 171.0149),
    "game": (0.0000, 0.0000, 0.0000, 185.7539, 187.0446, 189.9733),
}

# Optimal keep for EW as printed (the transcription keeps only the number of dice).
KEEPS_PRINTED = {
    ("goals", "turn"): "nothing (every option meets a box: a tie)",
    ("goals", "game"): "5 dice (glyphs lost; a full house at 33.33 % needs a re-throw of one die)",
    ("score", "turn"): "1 die (glyph lost)",
    ("score", "game"): "4 dice (glyphs lost)",
}
