"""The boxes' names as players know them, in English and in German.

English follows the printed Yahtzee score card (Hasbro, *Yahtzee* rules, 2010: Aces ... Sixes,
3 of a kind, 4 of a kind, Full House, Sm. Straight, Lg. Straight, YAHTZEE, Chance) and the
Scandinavian Yatzy card (One Pair, Two Pairs, ...); German follows the Kniffel block
(Schmidt Spiele, *Kniffel* Spielregel, 2009: Einser ... Sechser, Dreierpasch, Viererpasch,
Full House, Kleine Straße, Große Straße, Kniffel, Chance). The five-of-a-kind box of the
13-box sheet is called Kniffel under the Kniffel rules (presets named ``kniffel...``) and
Yahtzee elsewhere. A box this table does not know keeps its name, with spaces for ``_``.
"""

from __future__ import annotations

from typing import Any

ENGLISH = {
    "aces": "Aces", "ones": "Ones", "twos": "Twos", "threes": "Threes", "fours": "Fours", "fives": "Fives", "sixes": "Sixes",
    "three_kind": "Three of a kind", "four_kind": "Four of a kind", "three_of_a_kind": "Three of a kind",
    "four_of_a_kind": "Four of a kind", "five_of_a_kind": "Five of a kind", "one_pair": "One pair", "two_pairs": "Two pairs",
    "three_pairs": "Three pairs", "full_house": "Full house", "small_straight": "Small straight", "large_straight": "Large straight",
    "full_straight": "Full straight", "villa": "Villa", "tower": "Tower", "chance": "Chance", "yatzy": "Yatzy",
    "maxi_yatzy": "Maxi Yatzy", "kniffel": "Yahtzee", "little_straight": "Little straight", "big_straight": "Big straight",
    "choice": "Choice", "yacht": "Yacht",
}
GERMAN = {
    "aces": "Einser", "ones": "Einser", "twos": "Zweier", "threes": "Dreier", "fours": "Vierer", "fives": "Fünfer", "sixes": "Sechser",
    "three_kind": "Dreierpasch", "four_kind": "Viererpasch", "three_of_a_kind": "Dreierpasch", "four_of_a_kind": "Viererpasch",
    "five_of_a_kind": "Fünferpasch", "one_pair": "Ein Paar", "two_pairs": "Zwei Paare", "three_pairs": "Drei Paare",
    "full_house": "Full House", "small_straight": "Kleine Straße", "large_straight": "Große Straße", "full_straight": "Volle Straße",
    "villa": "Villa", "tower": "Turm", "chance": "Chance", "yatzy": "Yatzy", "maxi_yatzy": "Maxi Yatzy", "kniffel": "Kniffel",
    "little_straight": "Kleine Straße", "big_straight": "Große Straße", "choice": "Chance", "yacht": "Yacht",
}


def words(rules: Any) -> dict[str, dict[str, str]]:
    """``{"en": {box: name}, "de": {box: name}}`` for the boxes of ``rules`` (``CategoryRules``)."""
    kniffel = str(rules.name).startswith("kniffel")
    out: dict[str, dict[str, str]] = {}
    for lang, table in (("en", ENGLISH), ("de", GERMAN)):
        names = {b.name: table.get(b.name, b.name.replace("_", " ").capitalize()) for b in rules.boxes}
        if kniffel and "kniffel" in names:
            names["kniffel"] = "Kniffel"
        out[lang] = names
    return out
