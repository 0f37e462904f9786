// The jaxsolve page: a board for every registered game, generated from GET /api/games.
// What a board is made of comes from the game's registration (its "board": a score sheet, a
// race of two players, one player's turns) and from the options of each moment (keep, fill,
// set aside, write, roll, stop); nothing here names a game.
"use strict";

const $ = (id) => document.getElementById(id);
const state = {
  games: [], game: null, mode: "advise", play: null, lang: "en",
  held: new Set(), advDice: [], busy: false, seen: "", said: new Map(), timer: null,
};

// ------------------------------------------------------------------ words

// A table of words in both languages, an entry a key: [English, German]; byLanguage gives
// the words of each language ({ en: { key: English }, de: { key: German } }).
function byLanguage(table) {
  const out = { en: {}, de: {} };
  for (const [key, [en, de]] of Object.entries(table)) {
    out.en[key] = en;
    out.de[key] = de;
  }
  return out;
}

// The forms' fields: [label, help] (help empty: the option's own).
const FIELD_WORDS = byLanguage({
  // the advisor's questions
  "adv-position": [["Score sheet (typed)", "The filled boxes as box=points, e.g. aces=3 twos=- full_house=25 (- crossed out); the sheet above fills it in."], ["Spielblock (getippt)", "Die ausgefüllten Felder als Feld=Punkte, z. B. aces=3 twos=- full_house=25 (- gestrichen); der Block oben füllt es aus."]],
  "adv-dice": [["Dice", "The dice showing, one digit each, e.g. 1 1 2 5 6; the dice above fill it in."], ["Würfel", "Die liegenden Würfel, je eine Ziffer, z. B. 1 1 2 5 6; die Würfel oben füllen es aus."]],
  "adv-throws_left": [["Throws left", "How many more times you may throw this turn (empty: as after the first throw)."], ["Würfe übrig", "Wie oft du in diesem Zug noch werfen darfst (leer: wie nach dem ersten Wurf)."]],
  "adv-objective": [["Aim", "Expected points, or expected number of boxes that meet their goal."], ["Ziel", "Erwartete Punkte oder erwartete Zahl der Felder, die ihr Ziel erreichen."]],
  "adv-scope": [["Looking ahead", "The rest of the game, or this turn alone."], ["Vorausschau", "Der Rest des Spiels oder nur dieser Zug."]],
  "adv-strategy": [["Advice by", "The exact solution, or the rating heuristic (a rule of thumb)."], ["Rat nach", "Der exakten Lösung oder der Bewertungsheuristik (einer Faustregel)."]],
  "adv-heuristic_reading": [["Heuristic reading", "Rating heuristic only: how its start value counts the upper bonus (empty: the usual)."], ["Lesart der Heuristik", "Nur Bewertungsheuristik: wie ihr Startwert den Bonus oben zählt (leer: üblich)."]],
  "adv-bot_strength": [["Heuristic strength", "Rating heuristic only: strongest, strong, medium or weak (how much its forecasts err)."], ["Stärke der Heuristik", "Nur Bewertungsheuristik: strongest, strong, medium oder weak (wie stark ihre Vorhersagen irren)."]],
  "adv-bot_seed": [["Heuristic seed", "Rating heuristic only: the seed of its forecast errors."], ["Startwert der Heuristik", "Nur Bewertungsheuristik: Startwert ihrer Vorhersagefehler."]],
  "adv-opponent": [["Opponents' sheets", "Players who play for expected points: each one's sheet and score, e.g. aces=3 twos=- 5 (several: separate them with ;). Your moves are then ranked by your chance to finish first."], ["Spielblöcke der Gegner", "Spieler, die auf erwartete Punkte spielen: je Block und Punktestand, z. B. aces=3 twos=- 5 (mehrere: mit ; trennen). Deine Züge stehen dann nach deiner Chance, vorn zu landen."]],
  "adv-score": [["Your score", "With opponents: your total so far (empty: your sheet's total and any bonus earned)."], ["Deine Punkte", "Mit Gegnern: deine Summe bisher (leer: die Summe deines Blocks mit verdientem Bonus)."]],
  "adv-ties": [["A tie for first", "With opponents: a tie is shared, a win or a loss for you."], ["Gleichstand vorn", "Mit Gegnern: ein Gleichstand wird geteilt, ist ein Sieg oder eine Niederlage für dich."]],
  "adv-win_method": [["Win probability by", "With opponents: exact (solved for your remaining game), table (a stored table; an upper bound) or auto (exact from 9 open boxes on)."], ["Gewinnwahrscheinlichkeit per", "Mit Gegnern: exakt (für dein restliches Spiel gelöst), Tabelle (gespeichert; eine obere Schranke) oder automatisch (exakt ab 9 offenen Feldern)."]],
  "adv-against": [["Against one player who plays to win", "His sheet and score, e.g. ones=3 twos=- 5: your moves ranked by your win probability, both playing to win."], ["Gegen einen Spieler, der auf Sieg spielt", "Sein Spielblock und seine Punkte, z. B. ones=3 twos=- 5: deine Züge nach deiner Gewinnwahrscheinlichkeit, beide spielen auf Sieg."]],
  "adv-i_started": [["I started the game", "Against a player who plays to win: who threw first (at your turn he has as many boxes filled if you started, one more if he did)."], ["Ich habe angefangen", "Gegen einen Spieler, der auf Sieg spielt: wer zuerst geworfen hat (bei deinem Zug hat er gleich viele Felder gefüllt, wenn du begonnen hast, sonst eins mehr)."]],
  "adv-mine": [["Your score", "Points you have banked."], ["Deine Punkte", "Deine gutgeschriebenen Punkte."]],
  "adv-theirs": [["Their score", "Points your opponent has banked."], ["Punkte des Gegners", "Die gutgeschriebenen Punkte deines Gegners."]],
  "adv-turn": [["This turn so far", "Points of this turn not yet banked (0: the turn starts)."], ["Bisher in diesem Zug", "Punkte dieses Zugs, noch nicht gutgeschrieben (0: der Zug beginnt)."]],
  "adv-they_started": [["They started", "Whether your opponent threw first (matters for the last-turn rule)."], ["Der Gegner hat angefangen", "Ob dein Gegner zuerst geworfen hat (wichtig für die Regel vom letzten Zug)."]],
  "adv-points": [["Set aside this turn", "Points already set aside this turn (a multiple of 50)."], ["Rausgelegt in diesem Zug", "In diesem Zug schon rausgelegte Punkte (ein Vielfaches von 50)."]],
  "adv-scores": [["Everyone's score (typed)", "Each player's banked points in turn order, yours first, e.g. 450,1200,800."], ["Punkte aller Spieler (getippt)", "Die gutgeschriebenen Punkte jedes Spielers in Zugfolge, deine zuerst, z. B. 450,1200,800."]],
  "adv-dice_left": [["Dice left", "Dice left to throw (0: all six used, throw six again)."], ["Würfel übrig", "Noch zu werfende Würfel (0: alle sechs genutzt, wieder sechs werfen)."]],
  // the settings of a game
  "set-seed": [["Seed", "The same number gives the same virtual dice (empty: random)."], ["Startwert", "Derselbe Wert gibt dieselben virtuellen Würfel (leer: zufällig)."]],
  "set-seat": [["Your seat", "Your place at the table (1 throws first); the computer plays the other seats, each to win."], ["Dein Platz", "Dein Platz am Tisch (1 wirft zuerst); der Computer spielt die anderen Plätze, jeder auf Sieg."]],
  "set-turns": [["Turns", "How many turns the game has."], ["Runden", "Wie viele Runden das Spiel hat."]],
  "set-opponent": [["Opponent", "The computer plays your opponent's turns, or you enter them."], ["Gegner", "Der Computer spielt die Züge deines Gegners, oder du gibst sie ein."]],
  "set-first": [["Who starts", "You or your opponent."], ["Wer beginnt", "Du oder dein Gegner."]],
  "set-opponents": [["Computer opponents", "They play for expected points after you; your win probability stands beside your moves."], ["Computer-Gegner", "Sie spielen nach dir auf erwartete Punkte; deine Gewinnwahrscheinlichkeit steht neben deinen Zügen."]],
  "set-against": [["Opponents play", "For expected points, or one opponent who plays to win against you (the two-player optimal strategy)."], ["Gegner spielen", "Auf erwartete Punkte oder ein Gegner, der gegen dich auf Sieg spielt (die optimale Zwei-Spieler-Strategie)."]],
  "set-start": [["Start from sheets", "Against the optimal player: yours / his, e.g. ones=3 twos=6 / ones=2 twos=8 (an end game; as many boxes filled on both)."], ["Start mit Spielblöcken", "Gegen den optimalen Spieler: deiner / seiner, z. B. ones=3 twos=6 / ones=2 twos=8 (ein Endspiel; gleich viele Felder gefüllt)."]],
  "set-they_start": [["The computer starts", "Against the optimal player: he throws first."], ["Der Computer beginnt", "Gegen den optimalen Spieler: er würfelt zuerst."]],
  "set-ties": [["A tie is", "Against the optimal player: shared (half a win), a win or a loss for you."], ["Ein Gleichstand ist", "Gegen den optimalen Spieler: geteilt (ein halber Sieg), ein Sieg oder eine Niederlage für dich."]],
  // rules options (empty: the chosen rules' own)
  "rule-throws": [["Throws per turn", "How often you may throw in a turn."], ["Würfe je Zug", "Wie oft du in einem Zug werfen darfst."]],
  "rule-players": [["Players", "Players at the table (2 to 4)."], ["Spieler", "Spieler am Tisch (2 bis 4)."]],
  "rule-joker": [["Joker rule", "What a second all-same throw may fill: none, forced (its upper box first), free, or as in Kniffel."], ["Joker-Regel", "Was ein zweiter Wurf mit lauter gleichen Augen ausfüllen darf: nichts, erzwungen (zuerst sein Feld oben), frei oder wie bei Kniffel."]],
  "rule-extra_bonus": [["Extra bonus", "Points for each further all-same throw once its box is filled."], ["Zusatzbonus", "Punkte für jeden weiteren Wurf mit lauter gleichen Augen, wenn sein Feld gefüllt ist."]],
  "rule-instant_all_same": [["At once: all the same", "Bonus for the all-same box filled right after the first throw."], ["Im Hieb: lauter gleiche", "Bonus, wenn das Feld für lauter gleiche Augen gleich nach dem ersten Wurf gefüllt wird."]],
  "rule-instant_other": [["At once: any other box", "Bonus for any other box filled right after the first throw."], ["Im Hieb: anderes Feld", "Bonus für jedes andere Feld, das gleich nach dem ersten Wurf gefüllt wird."]],
  "rule-goal": [["Goal", "The banked score that wins."], ["Ziel", "Der Punktestand, der gewinnt."]],
  "rule-sides": [["Sides of the die", "Each face counts its number."], ["Seiten des Würfels", "Jede Seite zählt ihre Augen."]],
  "rule-bust": [["Bust face", "The face that loses the turn's points."], ["Verlustseite", "Die Seite, die die Punkte des Zugs verliert."]],
  "rule-last_turn": [["Last turn", "The other player may answer once the starter reaches the goal."], ["Letzter Zug", "Der andere darf noch einmal, wenn der Startspieler das Ziel erreicht."]],
  "rule-bound": [["Highest score kept", "Under the last-turn rule: the largest final score the solution keeps apart."], ["Höchster Punktestand", "Bei der Regel vom letzten Zug: der größte Endstand, den die Lösung unterscheidet."]],
  "rule-straight": [["Straight 1–6", "Points for 1 2 3 4 5 6 (a multiple of 50; 0: none)."], ["Straße 1–6", "Punkte für 1 2 3 4 5 6 (ein Vielfaches von 50; 0: keine)."]],
  "rule-six_of_a_kind": [["Six of a kind", "Points for six of a kind (a multiple of 50; 0: keep doubling)."], ["Sechs gleiche", "Punkte für sechs gleiche (ein Vielfaches von 50; 0: weiter verdoppeln)."]],
  "rule-three_pairs": [["Three pairs", "Points for three pairs (a multiple of 50; 0: nothing)."], ["Drei Paare", "Punkte für drei Paare (ein Vielfaches von 50; 0: nichts)."]],
  "rule-two_fives": [["Two 5s as a 1", "Two 5s count as one 1 (100 points): never, once per set-aside, or always."], ["Zwei 5er als 1", "Zwei 5er zählen als eine 1 (100 Punkte): nie, einmal je Rauslegen oder immer."]],
  "rule-entry": [["Entry minimum", "Your first banked points must reach it (a multiple of 50; 0: none)."], ["Einstieg", "Deine ersten gutgeschriebenen Punkte müssen ihn erreichen (ein Vielfaches von 50; 0: keiner)."]],
  "rule-end": [["End of the game", "The first to the goal wins, or the other player has a last turn."], ["Spielende", "Wer zuerst das Ziel erreicht, gewinnt, oder der andere hat einen letzten Zug."]],
  "rule-scoring": [["Scoring of a turn", "Which Zehntausend scoring the turns use."], ["Wertung eines Zugs", "Welche Zehntausend-Wertung die Züge haben."]],
  position: [["Score sheet", ""], ["Spielblock", ""]],
});

// The words of an option's choices, by option and value.
const CHOICE_WORDS = byLanguage({
  objective: [{ score: "expected points", goals: "boxes that meet their goal" }, { score: "erwartete Punkte", goals: "Felder, die ihr Ziel erreichen" }],
  scope: [{ game: "the rest of the game", turn: "this turn alone" }, { game: "der Rest des Spiels", turn: "nur dieser Zug" }],
  strategy: [{ optimal: "the exact solution", heuristic: "the rating heuristic" }, { optimal: "die exakte Lösung", heuristic: "die Bewertungsheuristik" }],
  ties: [{ share: "shared", win: "a win", lose: "a loss" }, { share: "geteilt", win: "ein Sieg", lose: "eine Niederlage" }],
  win_method: [{ auto: "automatic", exact: "exact", table: "stored table" }, { auto: "automatisch", exact: "exakt", table: "gespeicherte Tabelle" }],
  opponent: [{ bot: "the computer", human: "you enter them" }, { bot: "der Computer", human: "du gibst sie ein" }],
  first: [{ you: "you", them: "your opponent" }, { you: "du", them: "dein Gegner" }],
  against: [{ expected: "for expected points", optimal: "to win against you" }, { expected: "auf erwartete Punkte", optimal: "gegen dich auf Sieg" }],
  joker: [{ none: "none", forced: "forced", free: "free", kniffel: "as in Kniffel" }, { none: "keine", forced: "erzwungen", free: "frei", kniffel: "wie bei Kniffel" }],
  two_fives: [{ off: "never", one: "once per set-aside", any: "always" }, { off: "nie", one: "einmal je Rauslegen", any: "immer" }],
  end: [{ first: "first to the goal", "last-turn": "last turn for the other" }, { first: "zuerst am Ziel", "last-turn": "letzter Zug für den anderen" }],
});

const WORDS = {
  en: {
    tagline: "exact advice for dice games", points: "points", tie: "tie", bestTag: "best", language: "Language", keys: "Keys", game: "Game", rules: "Rules",
    rulesOptions: "Rules options", tabAdvise: "Advisor", tabPlay: "Play", tabQuiz: "Quiz",
    adviseHead: "Advisor", adviseSub: "set up the position and the dice you threw", moreOptions: "More options",
    rank: "Rank the moves", move: "move", value: "value", loss: "loss", settings: "Game settings", newGame: "New game",
    speed: "Computer's turns", speedClick: "one click", speedSlow: "automatic, slow", speedFast: "automatic, fast",
    ownDice: "Your own dice", enter: "Enter", undo: "Undo", log: "Moves", review: "Review", where: "where",
    chosen: "your move", bestMove: "best move", close: "Close",
    footer: "Answers come from exact solutions computed on this computer. Ties with the best move count as best.",
    errorWord: "error", you: "You", them: "Computer", themSubject: "The computer", yourTurn: "Your turn", theirTurn: "The computer's turn", turnTotal: "this turn",
    goal: "goal", banked: "banked", started: "started", won: "won", lastTurn: "last turn",
    throwN: (n) => `Throw ${n} ${n === 1 ? "die" : "dice"}`, throwAgain: (n) => `Throw ${n} ${n === 1 ? "die" : "dice"} again`,
    throwOf: (k, n) => `Throw ${k} of ${n}`, turnOf: (k, n) => `Turn ${k} of ${n}`,
    keepThrow: (keep, n) => keep.length ? `keep ${keep.join(" ")}, throw ${n} ${n === 1 ? "die" : "dice"}` : `throw all ${n} dice again`,
    fill: (box, p) => p === 0 ? `cross out ${box}: 0` : `score ${p} in ${box}`,
    aside: (faces, n, p) => `set aside ${faces}, throw ${n} ${n === 1 ? "die" : "dice"}` + (p != null ? ` (${p} this turn)` : ""),
    write: (p) => p != null ? `write ${p} points` : "write the points",
    roll: "roll again", stop: (p) => p != null ? `stop and bank ${p}` : "stop and bank", fiveAsOne: "5 5 as a 1",
    setAside: "Set aside", writeBtn: (p) => `Write ${p}`, playTheirTurn: "Play the computer's turn",
    best: "Play the best move", showAdvice: "Show the advice",
    chooseHead: "Your moves", chooseHeadQuiz: "Your moves (the advice shows after you move)", theirChoice: "Their moves",
    upperTotal: "Upper section", bonus: (t) => `Bonus (${t}+)`, extraBonus: "Extra bonus",
    lowerTotal: "Lower section", grandTotal: "Total", open: "open", scratch: "0 (crossed out)",
    decisions: (n, loss, unit) => `${n} ${n === 1 ? "decision" : "decisions"}, total loss ${loss} ${unit}`,
    yourMove: "Your move", bestWas: "best", lossWord: "loss", aBest: "a best move", gameOver: "Game over",
    youWon: "You won", theyWon: "The computer won", threw: "threw", bust: "bust",
    logThrew: () => "threw", logKept: (you, faces) => faces ? `kept ${faces}` : "kept no dice",
    logFilled: (you, box, p) => p === 0 ? `crossed out ${box}` : p == null ? `filled ${box}` : `wrote ${p} in ${box}`,
    logAside: (you, faces) => `set aside ${faces}`, logWrote: (you, p) => p == null ? "wrote the turn's points" : `wrote ${p} points`,
    logRolled: () => "chose to roll again", logStopped: (you, p) => p == null ? "stopped" : `stopped and banked ${p}`,
    advValue: (v) => `Value of the position: ${v}`, expected: "expected", winProb: "win probability",
    pointsStill: "points still to come",
    summary: (n, k, loss, mean, unit) => `${n} ${n === 1 ? "decision" : "decisions"}, ${k} of them best; total loss ${loss} ${unit}, ${mean} per decision`,
    lossUnit: (prob) => prob ? "percentage points of win probability" : "points", ppShort: "pp",
    finalScore: (n) => `Final score: ${n}`, raceWon: (you, them) => `You won, ${you} to ${them}`, raceLost: (you, them) => `The computer won, ${them} to ${you}`,
    startExpect: (v, fromStart) => `optimal play expects ${v} ${fromStart ? "from the start" : "from where this end game began"}`,
    startWin: (p) => `your win probability at the start (both playing optimally): ${p}`,
    percentile: (score, pct) => `Your ${score} beats ${pct} of games played optimally (the distribution of final scores under optimal play).`,
    percentileWorking: "Where your score stands among optimally played games: computing …",
    whereTurn: (k) => `turn ${k}`, whereLeft: (n) => `${n} ${n === 1 ? "re-throw" : "re-throws"} left`, whereScores: (you, them) => `you ${you}, computer ${them}`,
    whereTurnTotal: (p) => `${p} this turn`,
    distribution: "Show the score distribution under optimal play",
    distCaption: (m, sd) => `final score under optimal play: mean ${m}, SD ${sd}; yours in red`,
    diceLabel: "Dice", diceHelp: "Click a die to change its face.", addDie: "one die more", removeDie: "one die less",
    clearDice: "clear", holdHint: "Click the dice to keep them", asideHint: "Click the dice to set aside",
    sheetHelp: "Enter the points of the filled boxes (0 for a crossed-out box); leave open boxes empty.",
    yes: "yes", no: "no", default: "default", presetsValue: "the preset's",
    helpKeys: [["1 … 6", "hold a die / set it aside (the n-th die)"], ["Space, R", "throw (with the dice held)"], ["Enter", "press the control that has the focus (a move, a button)"], ["↑ ↓", "move between the moves"], ["B", "play the best move (not in the quiz)"], ["U", "undo"], ["T", "play the computer's turn"], ["?", "this help"]],
    die: (i, f, held) => `die ${i}: ${f}${held ? ", held" : ""}`, dieEmpty: (i) => `die ${i}: not set`,
    announceBest: "a best move", working: "working", starting: "starting the game", distWorking: "computing the score distribution",
    progress: (what, s) => `${what} (the first answer for these rules solves the game once; later ones come from the cache) — ${s} s`,
    notCached: (s) => `These rules are not solved on this computer yet: the first answer solves them once${s == null ? "" : `, about ${secondsText(s)}`}.`,
    solveNow: "Solve now", solvedNow: "Solved: answers for these rules now come at once.",
    layersLeft: (d, n, eta) => `${d} of ${n} layers done${eta == null ? "" : `, about ${secondsText(eta)} left`}`,
    layersDone: (n) => `all ${n} layers solved; finishing (storing the table and working out the answer) …`,
    cantKeepAll: "Keeping every die is no throw: fill a box.", noSuchMove: "That is not a move here.",
    computer: (i) => `Computer ${i}`, computerShort: (i) => `C${i}`, winCol: "win", winBest: "to win", winNow: (p) => `your win probability now: ${p}`,
    winNowOptimal: (p) => `your win probability now: ${p} (against the optimal player: both play to win)`,
    winWorking: "computing your win probability …", winLoss: "win probability lost", winBestWas: "best to win",
    winFrom: (n, turn) => `Win probability from ${n} open boxes on (turn ${turn}); before that its exact answer takes too long to wait for. The moves are ranked by expected points.`,
    opponentsHead: "The computer's turns",
    // a race at a table of N players
    seatName: (k) => `Player ${k}`, seatAfter: (k) => `Player +${k}`, seatTurn: (who) => `${who}'s turn`, toMove: "to move", youLower: "you",
    yourSeat: (k) => `seat ${k}`, winWord: "to win", firstMoves: "seat 1 moves first", withBest: "win probabilities with the best move",
    playOthers: "Play the other players' turns", othersHead: "The other players' turns", throwOn: (n) => `throw on with ${n} ${n === 1 ? "die" : "dice"}`, tableWon: (who, you, list) => `${you ? "You won" : `${who} won`}: ${list}`,
    startWinTable: (p) => `your win probability at the start (everyone playing the equilibrium): ${p}`,
    seatsLegend: "Everyone's banked score, in turn order", youToMove: "You (to move)",
    seatsHelp: "You move now; player +1 moves after you, player +2 after them, and so on.",
    cyclePure: (n) => `This position's cycle has ${n} pure equilibria: the values are the selected one (the largest sum of the movers' own win probabilities).`,
    cycleMixed: (at, q) => `This position's cycle has no pure equilibrium: the values are a stationary mixed one, in which ${at.length === 1
      ? `the mover at ${at[0]} plays his lower-risk policy with probability ${q[0]}` : `the movers at ${listWords(at, "and")} play their lower-risk policies with probabilities ${listWords(q, "and")} respectively`} (the others play pure).`,
    standings: "Standings", winner: (who) => `winner: ${who}`, tieFirst: (who) => `a tie for first: ${who}`,
    winLossTotal: (loss, n) => `loss in win probability ${loss} percentage points over ${n} ${n === 1 ? "decision" : "decisions"}`,
    fieldWords: FIELD_WORDS.en,
    choiceWords: CHOICE_WORDS.en,
  },
  de: {
    tagline: "exakte Ratschläge für Würfelspiele", points: "Punkte", tie: "gleich gut", bestTag: "bester", language: "Sprache", keys: "Tasten", game: "Spiel", rules: "Regeln",
    rulesOptions: "Regeloptionen", tabAdvise: "Ratgeber", tabPlay: "Spielen", tabQuiz: "Quiz",
    adviseHead: "Ratgeber", adviseSub: "Stellung und Wurf eingeben", moreOptions: "Weitere Optionen",
    rank: "Züge bewerten", move: "Zug", value: "Wert", loss: "Verlust", settings: "Einstellungen", newGame: "Neues Spiel",
    speed: "Züge des Computers", speedClick: "ein Klick", speedSlow: "automatisch, langsam", speedFast: "automatisch, schnell",
    ownDice: "Eigene Würfel", enter: "Eintragen", undo: "Zurück", log: "Züge", review: "Auswertung", where: "wo",
    chosen: "dein Zug", bestMove: "bester Zug", close: "Schließen",
    footer: "Die Antworten kommen aus exakten Lösungen, berechnet auf diesem Rechner. Gleichwertige Züge zählen als beste.",
    errorWord: "Fehler", you: "Du", them: "Computer", themSubject: "Der Computer", yourTurn: "Du bist dran", theirTurn: "Der Computer ist dran", turnTotal: "dieser Zug",
    goal: "Ziel", banked: "geschrieben", started: "hat angefangen", won: "gewonnen", lastTurn: "letzter Zug",
    throwN: (n) => `${n} ${n === 1 ? "Würfel" : "Würfel"} werfen`, throwAgain: (n) => `${n} Würfel neu werfen`,
    throwOf: (k, n) => `Wurf ${k} von ${n}`, turnOf: (k, n) => `Runde ${k} von ${n}`,
    keepThrow: (keep, n) => keep.length ? `${keep.join(" ")} behalten, ${n} Würfel werfen` : `alle ${n} Würfel neu werfen`,
    fill: (box, p) => p === 0 ? `das Feld ${box} streichen` : `${p} ins Feld ${box} eintragen`,
    aside: (faces, n, p) => `${faces} rauslegen, ${n} Würfel werfen` + (p != null ? ` (${p} in diesem Zug)` : ""),
    write: (p) => p != null ? `${p} Punkte aufschreiben` : "Punkte aufschreiben",
    roll: "weiterwürfeln", stop: (p) => p != null ? `aufhören und ${p} aufschreiben` : "aufhören", fiveAsOne: "5 5 als 1",
    setAside: "Würfel rauslegen", writeBtn: (p) => `${p} aufschreiben`, playTheirTurn: "Zug des Computers spielen",
    best: "Besten Zug spielen", showAdvice: "Rat zeigen",
    chooseHead: "Deine Züge", chooseHeadQuiz: "Deine Züge (der Rat erscheint nach deinem Zug)", theirChoice: "Züge des Gegners",
    upperTotal: "Oberer Teil", bonus: (t) => `Bonus (ab ${t})`, extraBonus: "Zusatzbonus",
    lowerTotal: "Unterer Teil", grandTotal: "Endsumme", open: "offen", scratch: "0 (gestrichen)",
    decisions: (n, loss, unit) => `${n} ${n === 1 ? "Entscheidung" : "Entscheidungen"}, Verlust insgesamt ${loss} ${unit}`,
    yourMove: "Dein Zug", bestWas: "bester", lossWord: "Verlust", aBest: "ein bester Zug", gameOver: "Spielende",
    youWon: "Du hast gewonnen", theyWon: "Der Computer hat gewonnen", threw: "Wurf", bust: "nichts gewertet",
    logThrew: (you) => you ? "wirfst" : "wirft", logKept: (you, faces) => `${you ? "behältst" : "behält"} ${faces || "keinen Würfel"}`,
    logFilled: (you, box, p) => p === 0 ? `${you ? "streichst" : "streicht"} das Feld ${box}` : p == null ? `${you ? "füllst" : "füllt"} das Feld ${box} aus` : `${you ? "trägst" : "trägt"} ${p} ins Feld ${box} ein`,
    logAside: (you, faces) => `${you ? "legst" : "legt"} ${faces} raus`, logWrote: (you, p) => `${you ? "schreibst" : "schreibt"} ${p == null ? "die Punkte des Zugs" : `${p} Punkte`} auf`,
    logRolled: (you) => you ? "würfelst weiter" : "würfelt weiter",
    logStopped: (you, p) => p == null ? (you ? "hörst auf" : "hört auf") : `${you ? "hörst" : "hört"} auf und ${you ? "schreibst" : "schreibt"} ${p} Punkte auf`,
    advValue: (v) => `Wert der Stellung: ${v}`, expected: "erwartet", winProb: "Gewinnwahrscheinlichkeit",
    pointsStill: "Punkte noch zu erwarten",
    summary: (n, k, loss, mean, unit) => `${n} ${n === 1 ? "Entscheidung" : "Entscheidungen"}, davon ${k} beste; Verlust insgesamt ${loss} ${unit}, im Mittel ${mean} je Entscheidung`,
    lossUnit: (prob) => prob ? "Prozentpunkte Gewinnwahrscheinlichkeit" : "Punkte", ppShort: "Pp.",
    finalScore: (n) => `Endstand: ${n} Punkte`, raceWon: (you, them) => `Du hast gewonnen, ${you} zu ${them}`, raceLost: (you, them) => `Der Computer hat gewonnen, ${them} zu ${you}`,
    startExpect: (v, fromStart) => `bestes Spiel erwartet ${v} Punkte ${fromStart ? "ab dem Start" : "ab dem Beginn dieses Endspiels"}`,
    startWin: (p) => `deine Gewinnwahrscheinlichkeit zu Beginn (beide spielen optimal): ${p}`,
    percentile: (score, pct) => `Deine ${score} Punkte schlagen ${pct} der optimal gespielten Partien (Verteilung der Endpunkte bei bestem Spiel).`,
    percentileWorking: "Wo deine Punkte unter optimal gespielten Partien stehen: wird berechnet …",
    whereTurn: (k) => `Runde ${k}`, whereLeft: (n) => n === 0 ? "kein Wurf mehr" : n === 1 ? "noch ein Wurf" : `noch ${n} Würfe`, whereScores: (you, them) => `du ${you}, Computer ${them}`,
    whereTurnTotal: (p) => `${p} in diesem Zug`,
    distribution: "Verteilung der Endpunkte bei bestem Spiel zeigen",
    distCaption: (m, sd) => `Endpunkte bei bestem Spiel: Mittel ${m}, SD ${sd}; deine in Rot`,
    diceLabel: "Würfel", diceHelp: "Auf einen Würfel klicken ändert seine Augenzahl.", addDie: "ein Würfel mehr", removeDie: "ein Würfel weniger",
    clearDice: "leeren", holdHint: "Würfel anklicken, um sie zu behalten", asideHint: "Würfel anklicken, um sie rauszulegen",
    sheetHelp: "Punkte der ausgefüllten Felder eintragen (0 für gestrichen); offene Felder leer lassen.",
    yes: "ja", no: "nein", default: "Standard", presetsValue: "wie die Regeln",
    helpKeys: [["1 … 6", "Würfel behalten / rauslegen (der n-te Würfel)"], ["Leertaste, R", "werfen (mit den behaltenen Würfeln)"], ["Enter", "das Bedienelement mit dem Fokus auslösen (einen Zug, eine Schaltfläche)"], ["↑ ↓", "zwischen den Zügen wechseln"], ["B", "den besten Zug spielen (nicht im Quiz)"], ["U", "Zug zurücknehmen"], ["T", "Zug des Computers spielen"], ["?", "diese Hilfe"]],
    die: (i, f, held) => `Würfel ${i}: ${f}${held ? ", behalten" : ""}`, dieEmpty: (i) => `Würfel ${i}: leer`,
    announceBest: "ein bester Zug", working: "rechnet", starting: "Spiel startet", distWorking: "Verteilung wird berechnet",
    progress: (what, s) => `${what} (die erste Antwort für diese Regeln löst das Spiel einmal; spätere kommen aus dem Speicher) — ${s} s`,
    notCached: (s) => `Diese Regeln sind auf diesem Rechner noch nicht gelöst: die erste Antwort löst sie einmal${s == null ? "" : `, etwa ${secondsText(s)}`}.`,
    solveNow: "Jetzt lösen", solvedNow: "Gelöst: Antworten zu diesen Regeln kommen jetzt sofort.",
    layersLeft: (d, n, eta) => `${d} von ${n} Schichten fertig${eta == null ? "" : `, noch etwa ${secondsText(eta)}`}`,
    layersDone: (n) => `alle ${n} Schichten gelöst; wird abgeschlossen (Tabelle speichern, Antwort berechnen) …`,
    cantKeepAll: "Alle Würfel behalten ist kein Wurf: ein Feld ausfüllen.", noSuchMove: "Das ist hier kein Zug.",
    computer: (i) => `Computer ${i}`, computerShort: (i) => `C${i}`, winCol: "Sieg", winBest: "zum Sieg", winNow: (p) => `deine Gewinnwahrscheinlichkeit jetzt: ${p}`,
    winNowOptimal: (p) => `deine Gewinnwahrscheinlichkeit jetzt: ${p} (gegen den optimalen Spieler: beide spielen auf Sieg)`,
    winWorking: "Gewinnwahrscheinlichkeit wird berechnet …", winLoss: "Gewinnwahrscheinlichkeit verloren", winBestWas: "bester zum Sieg",
    winFrom: (n, turn) => `Gewinnwahrscheinlichkeit ab ${n} offenen Feldern (Runde ${turn}); vorher dauert die exakte Antwort zu lange. Die Züge sind nach erwarteten Punkten geordnet.`,
    opponentsHead: "Die Züge des Computers",
    seatName: (k) => `Spieler ${k}`, seatAfter: (k) => `Spieler +${k}`, seatTurn: (who) => `${who} ist dran`, toMove: "am Zug", youLower: "du",
    yourSeat: (k) => `Platz ${k}`, winWord: "Siegchance", firstMoves: "Platz 1 beginnt", withBest: "Gewinnwahrscheinlichkeiten mit dem besten Zug",
    playOthers: "Züge der anderen spielen", othersHead: "Die Züge der anderen", throwOn: (n) => `mit ${n} ${n === 1 ? "Würfel" : "Würfeln"} weiterwerfen`, tableWon: (who, you, list) => `${you ? "Du hast gewonnen" : `${who} hat gewonnen`}: ${list}`,
    startWinTable: (p) => `deine Gewinnwahrscheinlichkeit zu Beginn (alle spielen das Gleichgewicht): ${p}`,
    seatsLegend: "Punkte aller Spieler in Zugfolge", youToMove: "Du (am Zug)",
    seatsHelp: "Du bist jetzt am Zug; Spieler +1 ist nach dir dran, Spieler +2 nach ihm und so weiter.",
    cyclePure: (n) => `Der Zyklus dieser Stellung hat ${n} reine Gleichgewichte: die Werte sind das ausgewählte (das mit der größten Summe der eigenen Gewinnwahrscheinlichkeiten der Spieler am Zug).`,
    cycleMixed: (at, q) => `Der Zyklus dieser Stellung hat kein reines Gleichgewicht: die Werte sind ein stationäres gemischtes, in dem ${at.length === 1
      ? `der Spieler am Zug mit ${at[0]} Punkten seine risikoärmere Strategie mit Wahrscheinlichkeit ${q[0]} spielt` : `die Spieler am Zug mit ${listWords(at, "und")} Punkten ihre risikoärmere Strategie mit Wahrscheinlichkeit ${q.join(" bzw. ")} spielen`} (die anderen spielen rein).`,
    standings: "Stand", winner: (who) => `Sieger: ${who}`, tieFirst: (who) => `gleichauf vorn: ${who}`,
    winLossTotal: (loss, n) => `in ${n} ${n === 1 ? "Entscheidung" : "Entscheidungen"} ${loss} Prozentpunkte Gewinnwahrscheinlichkeit verloren`,
    fieldWords: FIELD_WORDS.de,
    choiceWords: CHOICE_WORDS.de,
  },
};

const GAME_WORDS = byLanguage({
  kniffel: ["Five dice, three throws a turn, thirteen boxes to fill: the best move at every throw, from the exact solution.", "Fünf Würfel, drei Würfe je Zug, dreizehn Felder: der beste Zug bei jedem Wurf, aus der exakten Lösung."],
  yatzy: ["Scandinavian Yatzy: five dice, fifteen boxes, 50 points for the upper section.", "Skandinavisches Yatzy: fünf Würfel, fünfzehn Felder, 50 Punkte Bonus oben."],
  maxi: ["Maxi Yatzy: six dice, twenty boxes.", "Maxi Yatzy: sechs Würfel, zwanzig Felder."],
  yacht: ["Yacht: five dice, twelve boxes, no bonus.", "Yacht: fünf Würfel, zwölf Felder, kein Bonus."],
  raab: ["Roll one die as often as you dare; a bust face loses the turn. First to the goal wins.", "Einen Würfel werfen, so oft du dich traust; die Verlustseite kostet die Punkte des Zugs. Wer zuerst am Ziel ist, gewinnt."],
  zehntausend: ["Zehntausend alone: set aside 1s, 5s and triples, and write your points before a throw scores nothing.", "Zehntausend allein: 1er, 5er und Drillinge rauslegen und die Punkte aufschreiben, bevor ein Wurf nichts bringt."],
  "zehntausend-duel": ["Zehntausend against the computer: the first to the goal wins; every move ranked by your chance to win.", "Zehntausend gegen den Computer: wer zuerst am Ziel ist, gewinnt; jeder Zug nach deiner Gewinnchance."],
  "pig-table": ["Pig with 2 to 4 players at one table: every move ranked by your chance to win.", "Pig mit 2 bis 4 Spielern an einem Tisch: jeder Zug nach deiner Gewinnchance."],
  "zehntausend-table": ["Zehntausend with 2 to 4 players at one table: every move ranked by your chance to win.", "Zehntausend mit 2 bis 4 Spielern an einem Tisch: jeder Zug nach deiner Gewinnchance."],
});

// The rule sets in the players' words (the address keeps the preset's name; a preset without
// words here shows its name). Yatzy's variants are its base name and its switches (+fh5 ...).
const PRESET_WORDS = byLanguage({
  yahtzee: ["Yahtzee (Hasbro)", "Yahtzee (Hasbro)"],
  "yahtzee-free": ["Yahtzee, free joker", "Yahtzee, freier Joker"],
  "yahtzee-nojoker": ["Yahtzee without joker", "Yahtzee ohne Joker"],
  "yahtzee-nobonus": ["Yahtzee without joker and extra bonus", "Yahtzee ohne Joker und Zusatzbonus"],
  kniffel: ["Kniffel (Schmidt)", "Kniffel (Schmidt)"],
  "kniffel-apl": ["Kniffel with two throws a turn", "Kniffel mit zwei Würfen je Zug"],
  "kniffel-imhieb": ["Kniffel with the Im-Hieb bonus", "Kniffel mit Im-Hieb-Bonus"],
  yatzy: ["Yatzy", "Yatzy"],
  "+fh5": ["full house takes five alike", "Full House auch mit fünf gleichen"],
  "+tp4": ["two pairs take four alike", "zwei Paare auch mit vier gleichen"],
  "+forced": ["boxes in order", "Felder der Reihe nach"],
  maxi: ["Maxi Yatzy", "Maxi Yatzy"],
  "maxi-reduced-4-dice": ["Maxi Yatzy, reduced to 4 dice", "Maxi Yatzy, verkleinert auf 4 Würfel"],
  yacht: ["Yacht", "Yacht"],
  raab: ["Schlag den Raab (to 50, a 6 busts, last turn)", "Schlag den Raab (bis 50, die 6 kostet den Zug, letzter Zug)"],
  pig: ["Pig (to 100, a 1 busts)", "Pig (bis 100, die 1 kostet den Zug)"],
  piglet: ["Piglet (a coin, to 2)", "Piglet (eine Münze, bis 2)"],
  "peter-2013": ["Zehntausend, standard", "Zehntausend, Standard"],
  "no-two-fives": ["without two 5s as a 1", "ohne zwei 5er als 1"],
  "three-pairs": ["three pairs score 1500", "drei Paare zählen 1500"],
  doubling: ["six of a kind keeps doubling", "sechs gleiche verdoppeln weiter"],
  "first-to-10000": ["first to 10,000", "zuerst 10.000"],
  "entry-350": ["to 10,000, entry 350", "bis 10.000, Einstieg 350"],
  "entry-500": ["to 10,000, entry 500", "bis 10.000, Einstieg 500"],
  "last-turn": ["to 10,000, last turn for the other", "bis 10.000, letzter Zug für den anderen"],
  "last-turn-350": ["to 10,000, last turn, entry 350", "bis 10.000, letzter Zug, Einstieg 350"],
  small: ["small: to 500", "klein: bis 500"],
  "small-entry": ["small: to 500, entry 200", "klein: bis 500, Einstieg 200"],
  "pig-3": ["Pig, 3 players, to 100", "Pig, 3 Spieler, bis 100"],
  "pig-4": ["Pig, 4 players, to 50", "Pig, 4 Spieler, bis 50"],
  "raab-3": ["Schlag den Raab, 3 players", "Schlag den Raab, 3 Spieler"],
  "raab-4": ["Schlag den Raab, 4 players", "Schlag den Raab, 4 Spieler"],
  "coin-3": ["a coin, 3 players, to 10", "eine Münze, 3 Spieler, bis 10"],
  "small-3": ["small, 3 players", "klein, 3 Spieler"],
  "three-to-2000": ["3 players, to 2,000", "3 Spieler, bis 2.000"],
  "three-to-2000-350": ["3 players, to 2,000, entry 350", "3 Spieler, bis 2.000, Einstieg 350"],
  "three-to-1000": ["3 players, to 1,000", "3 Spieler, bis 1.000"],
  "three-to-10000": ["3 players, to 10,000", "3 Spieler, bis 10.000"],
  "four-to-1000": ["4 players, to 1,000", "4 Spieler, bis 1.000"],
});

function presetWords(name) {
  const words = PRESET_WORDS[state.lang] || PRESET_WORDS.en;
  if (words[name]) return words[name];
  const [base, ...switches] = name.split("+");
  if (switches.length && words[base] && switches.every((x) => words[`+${x}`])) return [words[base], ...switches.map((x) => words[`+${x}`])].join("; ");
  return name;
}

// The games' names where the players' language has its own (else the registration's).
const DISPLAY_WORDS = { de: { "zehntausend-duel": "Zehntausend-Duell", "pig-table": "Pig am Tisch", "zehntausend-table": "Zehntausend am Tisch" } };
function displayWords(g) { return (DISPLAY_WORDS[state.lang] || {})[g.name] || g.display_name; }

function gameWords(g) { return (GAME_WORDS[state.lang] || {})[g.name] || GAME_WORDS.en[g.name] || g.title; }

function t(key, ...args) {
  const w = WORDS[state.lang][key] ?? WORDS.en[key];
  return typeof w === "function" ? w(...args) : w;
}

function listWords(items, and) {
  // 34 and 57; 34, 57 and 64 (German: und)
  return items.length < 2 ? String(items[0] ?? "") : `${items.slice(0, -1).join(", ")} ${and} ${items[items.length - 1]}`;
}

function boxName(box, words) {
  const table = words && (words[state.lang] || words.en);
  return (table && table[box]) || box.replaceAll("_", " ");
}

function translateStatic() {
  document.documentElement.lang = state.lang;
  for (const e of document.querySelectorAll("[data-t]")) {
    const w = t(e.dataset.t);
    if (typeof w === "string") e.textContent = w;
  }
  $("typed").placeholder = state.lang === "de" ? "z. B. 3 5 6" : "e.g. 3 5 6";
  $("help-keys").replaceChildren(...t("helpKeys").flatMap(([k, what]) => [el("dt", { text: k }), el("dd", { text: what })]));
}

// ------------------------------------------------------------------ elements and numbers

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("data-") || k.startsWith("aria-") || k === "role" || k === "for") e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of children) if (c != null) e.append(c);
  return e;
}

const MAX_OPPONENTS = 3;
const WIN = "win probability";
const unitWord = (unit) => (unit === "points" ? t("points") : unit);
const isProb = (unit) => /probab|^P\(/i.test(unit || ""); // "win probability", "P(win)", "P(finish first)"
function dec(text) {
  // a decimal number in the page's language: 235.55 in English, 235,55 in German
  return state.lang === "de" ? text.replace(".", ",") : text;
}
function fmt(x, digits = 4) {
  if (x === null || x === undefined) return "—";
  return dec(Number(x).toFixed(digits));
}
function shown(x, unit) {
  // A probability as a percentage, points with two decimals; the exact value on hover.
  if (x === null || x === undefined) return "—";
  return dec(isProb(unit) ? `${(100 * x).toFixed(1)} %` : Number(x).toFixed(2));
}
function shownLoss(x, unit, bare = false) {
  // A loss in the game's unit: points, or percentage points of a probability (a loss of 0.05
  // in win probability is 5 percentage points: "5.00 pp"); ``bare``: the number alone.
  if (x === null || x === undefined) return "—";
  if (Math.abs(x) < 1e-12) return "0";
  if (!isProb(unit)) return dec(Number(x).toFixed(2));
  return dec(bare ? (100 * x).toFixed(2) : `${(100 * x).toFixed(2)} ${t("ppShort")}`);
}
function numCell(x, unit, loss = false) {
  return el("td", { class: "num", text: loss ? shownLoss(x, unit) : shown(x, unit), title: x === null || x === undefined ? "" : String(x) });
}

// ------------------------------------------------------------------ dice drawn with pips

const SVG = "http://www.w3.org/2000/svg";
const PIPS = { 1: [[50, 50]], 2: [[28, 28], [72, 72]], 3: [[28, 28], [50, 50], [72, 72]], 4: [[28, 28], [72, 28], [28, 72], [72, 72]],
  5: [[28, 28], [72, 28], [50, 50], [28, 72], [72, 72]], 6: [[28, 25], [72, 25], [28, 50], [72, 50], [28, 75], [72, 75]] };

function dieSvg(face) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 100 100");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const rect = document.createElementNS(SVG, "rect");
  for (const [k, v] of Object.entries({ x: 4, y: 4, width: 92, height: 92, rx: 16, class: "face" })) rect.setAttribute(k, v);
  svg.append(rect);
  if (PIPS[face]) {
    for (const [cx, cy] of PIPS[face]) {
      const c = document.createElementNS(SVG, "circle");
      c.setAttribute("cx", cx); c.setAttribute("cy", cy); c.setAttribute("r", 9); c.setAttribute("class", "pip");
      svg.append(c);
    }
  } else {
    const txt = document.createElementNS(SVG, "text");
    for (const [k, v] of Object.entries({ x: 50, y: 64, "text-anchor": "middle", "font-size": 44, class: "num-face" })) txt.setAttribute(k, v);
    txt.textContent = face ? String(face) : "?";
    svg.append(txt);
  }
  return svg;
}

function dieButton(face, i, { held = false, onClick = null, small = false } = {}) {
  const label = face ? t("die", i + 1, face, held) : t("dieEmpty", i + 1);
  const b = el(onClick ? "button" : "span", { class: `die${held ? " held" : ""}${small ? " small" : ""}`, "data-face": face || "", title: label, "aria-label": label });
  if (onClick) {
    b.type = "button";
    b.setAttribute("aria-pressed", held ? "true" : "false");
    b.addEventListener("click", onClick);
  } else b.setAttribute("role", "img");
  b.append(dieSvg(face));
  return b;
}

function miniDice(faces) {
  const span = el("span", { class: "mini", "aria-label": faces.join(" ") });
  faces.forEach((f, i) => span.append(dieButton(f, i, { small: true })));
  return span;
}

// ------------------------------------------------------------------ requests

function playersWords(message) {
  // A box the message names by its internal name, named as the sheet names it.
  const words = (state.play && state.play.words) || (state.game && currentTable().words);
  if (!words) return message;
  return message.replace(/\bbox(es)? ([a-z_]+)/g, (all, plural, name) => (words.en && words.en[name] ? `box${plural || ""} ${boxName(name, words)}` : all));
}

function showError(message, fieldId) {
  const box = $("error");
  box.textContent = message ? `${t("errorWord")}: ${playersWords(message)}` : "";
  box.hidden = !message;
  for (const e of document.querySelectorAll("[aria-invalid=true]")) e.removeAttribute("aria-invalid");
  if (!message) return;
  const target = fieldId ? $(fieldId) : guessField(message);
  if (target) { target.setAttribute("aria-invalid", "true"); target.setAttribute("aria-describedby", "error"); }
  // Beside the field at fault where there is one, else where the eye is.
  box.scrollIntoView({ block: "center", behavior: "instant" });
}

function guessField(message) {
  // The input a message is about: the one whose name or label it says.
  const m = message.toLowerCase();
  const inputs = [...document.querySelectorAll("#advise input, #advise select, #play-fields input, #play-fields select, #rules-options input, #rules-options select, #typed")]
    .filter((e) => e.offsetParent !== null);
  for (const e of inputs) {
    const names = [e.name, (e.name || "").replaceAll("_", " ")].filter((x) => x && x.length > 2);
    if (names.some((n) => m.includes(n.toLowerCase()))) return e;
  }
  if (/\bdie\b|\bdice\b|face/.test(m)) return inputs.find((e) => e.name === "dice" || e.id === "typed") || null;
  return null;
}

function announce(text) {
  const live = $("live");
  live.textContent = "";
  setTimeout(() => { live.textContent = text; }, 30);
}

async function api(method, url, body) {
  showError("");
  const opts = { method, headers: {} };
  if (body !== undefined) { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
  let res = await fetch(url, opts);
  let data = await res.json().catch(() => ({ error: `the server answered ${res.status} without JSON` }));
  while (res.status === 202 && data.pending) {
    showProgress(data);
    await new Promise((r) => setTimeout(r, 300));
    res = await fetch(`/api/jobs/${data.job}`);
    data = await res.json().catch(() => ({ error: `the server answered ${res.status} without JSON` }));
  }
  showProgress(null);
  if (!res.ok) throw new Error(data.error || `HTTP ${res.status}`);
  return data;
}

function showProgress(job) {
  const box = $("progress");
  if (!job) { box.hidden = true; return; }
  box.hidden = false;
  const what = job.what.startsWith("play") ? t("starting") : job.what.startsWith("distribution") ? t("distWorking") : t("working");
  const p = job.progress;
  // every layer solved while the job still runs: the rest (storing the table, the answer) has no
  // count to show, so no time left is promised
  const layers = p && p.total ? ` — ${p.done >= p.total ? t("layersDone", p.total) : t("layersLeft", p.done, p.total, p.eta_seconds)}` : "";
  box.dataset.finishing = p && p.total && p.done >= p.total ? "1" : "";
  $("progress-text").textContent = t("progress", what, dec(job.seconds.toFixed(1))) + layers;
  $("progress-notes").textContent = (job.notes || []).join(" · ");
}

function secondsText(s) {
  return s < 90 ? `${Math.max(1, Math.round(s))} s` : `${Math.round(s / 60)} min`;
}

// Whether the table of the chosen rules is solved already; if not, say how long the first answer
// takes and offer to solve it now (the server's status and warm requests).
async function checkCached() {
  const note = $("cache-note");
  const game = state.game;
  note.hidden = true;
  try {
    const res = await fetch(`/api/games/${encodeURIComponent(game)}/status`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(rulesBody()) });
    const st = await res.json();
    if (!res.ok || st.cached || game !== state.game) return;
    $("cache-text").textContent = t("notCached", st.estimate_seconds);
    note.hidden = false;
  } catch (err) { /* the note is a courtesy: a question asked anyway says what went wrong */ }
}

function solvedMaybe() {
  // An answer for these rules came: their table may be solved now (the note asks the server again).
  if (!$("cache-note").hidden) checkCached();
}

async function warmTable() {
  await guarded(async () => {
    await api("POST", `/api/games/${encodeURIComponent(state.game)}/warm`, rulesBody());
    $("cache-note").hidden = true;
    announce(t("solvedNow"));
  });
}

async function guarded(fn, fieldId) {
  if (state.busy) return;
  state.busy = true;
  try { await fn(); } catch (err) { showError(err.message, fieldId); } finally { state.busy = false; }
}

// ------------------------------------------------------------------ forms from Params

function fieldWords(p, prefix) {
  // A field's words by form (the same name means different things in two forms), else the
  // option's own help with its command-line spellings (--against) named as the page names them.
  const words = t("fieldWords");
  const w = words[`${prefix}-${p.name}`] || words[p.name];
  const help = (p.help || "").replace(/--([a-z][a-z0-9-]*)/g, (all, name) => name.replaceAll("-", " "));
  return w ? [w[0], w[1] || help] : [p.label, help];
}

function choiceWord(p, value) {
  const words = t("choiceWords")[p.name];
  return (words && words[value]) || value;
}

function field(p, prefix) {
  const id = `${prefix}-${p.name}`;
  const [label, help] = fieldWords(p, prefix);
  let input;
  const unset = prefix === "rule" ? t("presetsValue") : t("default");
  if (p.type === "bool") {
    input = el("select", { id, name: p.name });
    if (p.default === null) input.append(el("option", { value: "", text: `(${unset})` }));
    input.append(el("option", { value: "false", text: t("no") }), el("option", { value: "true", text: t("yes") }));
    input.value = p.default === null ? "" : String(p.default);
  } else if (p.name === "opponents" && p.type === "int") {
    // computer opponents at the table: a choice of 0 to MAX_OPPONENTS (the page has room for that many sheets)
    input = el("select", { id, name: p.name });
    for (let k = p.min ?? 0; k <= Math.min(p.max ?? MAX_OPPONENTS, MAX_OPPONENTS); k++) input.append(el("option", { value: String(k), text: String(k) }));
    input.value = String(p.default ?? 0);
    input.addEventListener("change", writeUrl);
  } else if (p.choices && p.choices.length) {
    input = el("select", { id, name: p.name });
    if (p.default === null) input.append(el("option", { value: "", text: `(${unset})` }));
    for (const c of p.choices) input.append(el("option", { value: c, text: choiceWord(p, c) }));
    input.value = p.default === null ? "" : p.default;
    if (prefix === "set" && p.name === "against") input.addEventListener("change", () => { oneOpponent(); writeUrl(); });
  } else {
    input = el("input", { id, name: p.name, type: "text", autocomplete: "off", inputMode: p.type === "int" || p.type === "float" ? "numeric" : "text" });
    input.placeholder = p.default === null ? (p.required ? "required" : prefix === "rule" ? unset : "") : String(p.default);
    if (prefix === "rule" && p.name === "players") input.addEventListener("input", () => { if ($("adv-seats")) buildAdviseBoard(); }); // a score for each player
  }
  input.dataset.type = p.type;
  const helpId = `${id}-help`;
  if (help) input.setAttribute("aria-describedby", helpId);
  const wrap = el("label", { htmlFor: id, class: "field" }, el("span", { class: "label", text: label }), input, help ? el("span", { class: "help", id: helpId, text: help }) : null);
  if (p.type === "str" && !p.choices.length && p.name !== "dice") wrap.classList.add("wide");
  return wrap;
}

function values(container) {
  const out = {};
  for (const input of container.querySelectorAll("input[name], select[name]")) {
    const v = input.value.trim();
    if (v === "") continue;
    if (input.dataset.type === "bool") out[input.name] = v === "true";
    else out[input.name] = v;
  }
  return out;
}

function rulesBody() {
  return { rules: $("preset").value, overrides: values($("rules-options")) };
}

// ------------------------------------------------------------------ choosing a game

function currentGame() { return state.games.find((g) => g.name === state.game); }
function currentTable() { const g = currentGame(); return g.tables[$("preset").value] || {}; }

function chooseGame(name, preset) {
  state.game = name;
  state.play = null;
  stopTimer();
  const g = currentGame();
  $("game").value = name;
  $("game-title").textContent = gameWords(g);
  const presetBox = $("preset");
  presetBox.replaceChildren(...g.presets.map((p) => el("option", { value: p, text: presetWords(p) })));
  presetBox.value = preset && g.presets.includes(preset) ? preset : g.default;
  $("rules-options").replaceChildren(...g.rules_options.map((p) => field(p, "rule")));
  buildAdvisor();
  $("tab-advise").disabled = !g.advise;
  $("tab-play").disabled = !g.play;
  $("tab-quiz").disabled = !g.play;
  $("play-fields").replaceChildren(...(g.play || []).map((p) => field(p, "set")));
  $("advice").hidden = true;
  $("game-view").hidden = true;
  showError("");
  setMode(g.advise ? (g.play ? state.mode : "advise") : (state.mode === "quiz" ? "quiz" : "play"));
  checkCached();
}

function buildAdvisor() {
  const g = currentGame();
  const main = [], more = [];
  for (const p of (g.advise ? g.advise.options : [])) {
    if (p.name === "position" && currentTable().boxes) { main.unshift(field(p, "adv")); continue; }
    (p.choices.length || p.help.startsWith("Heuristic") || ["bot_seed", "against", "i_started", "opponent", "score"].includes(p.name) ? more : main).push(field(p, "adv"));
  }
  $("advise-fields").replaceChildren(...main);
  $("advise-more").replaceChildren(...more);
  $("advise-more-box").hidden = !more.length;
  buildAdviseBoard();
}

function setMode(mode) {
  state.mode = mode;
  $("advise").hidden = mode !== "advise";
  $("play").hidden = mode === "advise";
  $("play").setAttribute("aria-labelledby", mode === "quiz" ? "tab-quiz" : "tab-play");
  for (const tab of document.querySelectorAll("[role=tab]")) {
    const on = tab.dataset.mode === mode;
    tab.classList.toggle("active", on);
    tab.setAttribute("aria-selected", on ? "true" : "false");
    tab.tabIndex = on ? 0 : -1;
  }
  if (state.play) showGame(state.play);
  writeUrl();
}

function oneOpponent() {
  // Against the optimal player (the two-player strategy) the game is one of two: one computer sheet.
  const against = $("set-against"), opp = $("set-opponents");
  if (!against || !opp) return;
  const optimal = against.value === "optimal";
  if (optimal) opp.value = "1";
  opp.disabled = optimal;
}

function writeUrl() {
  const url = new URL(location.href);
  url.searchParams.set("game", state.game);
  url.searchParams.set("rules", $("preset").value);
  url.searchParams.set("mode", state.mode);
  const opp = $("set-opponents");
  if (opp && opp.value && opp.value !== "0" && !opp.disabled) url.searchParams.set("opponents", opp.value); else url.searchParams.delete("opponents");
  const against = $("set-against");
  if (against && against.value === "optimal") url.searchParams.set("against", "optimal"); else url.searchParams.delete("against");
  history.replaceState(null, "", url);
}

// ------------------------------------------------------------------ the advisor's board

function buildAdviseBoard() {
  const box = $("advise-board");
  box.replaceChildren();
  const g = currentGame();
  const names = new Set((g.advise ? g.advise.options : []).map((p) => p.name));
  const table = currentTable();
  if (names.has("dice")) {
    const n = table.dice || 6;
    state.advDice = Array(n).fill(0);
    state.advCount = n;
    state.advFixed = Boolean(table.dice);
    box.append(el("div", { class: "adv-dice-wrap" }, el("div", { class: "label", text: t("diceLabel"), id: "adv-dice-label" }),
      el("div", { id: "adv-dice-pick", class: "dice", role: "group", "aria-labelledby": "adv-dice-label", "aria-describedby": "adv-dice-help" }),
      el("div", { class: "help", id: "adv-dice-help", text: t("diceHelp") })));
    drawAdviseDice();
  }
  if (names.has("position") && table.boxes) {
    box.append(sheetEditor(table));
  }
  const players = Number(($("rule-players") || {}).value) || table.players;
  if (names.has("scores") && Number.isInteger(players) && players >= 2 && players <= 6) box.prepend(seatsEditor(players));
  const typedDice = document.querySelector("#advise-fields input[name=dice]");
  if (typedDice) typedDice.addEventListener("input", syncDiceFromText);
}

function seatsEditor(n) {
  // At a table: one input per player's banked score, in turn order, you (to move) first; they
  // fill the typed field of every score (and follow it where it is typed).
  const typed = document.querySelector("#advise-fields input[name=scores]");
  const have = ((typed && typed.value) || "").split(/[\s,;]+/).filter(Boolean);
  const wrap = el("fieldset", { class: "seats-edit", id: "adv-seats" }, el("legend", { text: t("seatsLegend") }));
  const grid = el("div", { class: "seats-edit-grid" });
  for (let k = 0; k < n; k++) {
    const id = `seat-score-${k + 1}`;
    const input = el("input", { id, "data-seat": String(k + 1), type: "text", inputMode: "numeric", autocomplete: "off", placeholder: "0", value: have[k] || "" });
    input.addEventListener("input", seatsToText);
    grid.append(el("label", { class: `seat-edit${k === 0 ? " you" : ""}`, htmlFor: id }, el("span", { text: k === 0 ? t("youToMove") : t("seatAfter", k) }), input));
  }
  wrap.append(grid, el("div", { class: "help", text: t("seatsHelp") }));
  if (typed && !typed.dataset.seats) {
    typed.dataset.seats = "1";
    typed.addEventListener("input", () => {
      const parts = typed.value.split(/[\s,;]+/).filter(Boolean);
      document.querySelectorAll("#adv-seats input").forEach((e, k) => { e.value = parts[k] || ""; });
    });
  }
  return wrap;
}

function seatsToText() {
  const typed = document.querySelector("#advise-fields input[name=scores]");
  if (typed) typed.value = [...document.querySelectorAll("#adv-seats input")].map((e) => e.value.trim() || "0").join(",");
}

function drawAdviseDice() {
  const wrap = $("adv-dice-pick");
  if (!wrap) return;
  const dice = state.advDice.map((f, i) => dieButton(f, i, {
    onClick: () => { state.advDice[i] = (state.advDice[i] % (currentTable().sides || 6)) + 1; drawAdviseDice(); syncDiceText(); },
  }));
  const tools = [];
  if (!state.advFixed) {
    const less = el("button", { type: "button", class: "mini-btn", text: "−", title: t("removeDie"), "aria-label": t("removeDie") });
    less.addEventListener("click", () => { if (state.advDice.length > 1) { state.advDice.pop(); drawAdviseDice(); syncDiceText(); } });
    const more = el("button", { type: "button", class: "mini-btn", text: "+", title: t("addDie"), "aria-label": t("addDie") });
    more.addEventListener("click", () => { if (state.advDice.length < 6) { state.advDice.push(0); drawAdviseDice(); syncDiceText(); } });
    tools.push(less, more);
  }
  const clear = el("button", { type: "button", class: "mini-btn", text: t("clearDice") });
  clear.addEventListener("click", () => { state.advDice = state.advDice.map(() => 0); drawAdviseDice(); syncDiceText(); });
  tools.push(clear);
  wrap.replaceChildren(...dice, ...tools);
}

function syncDiceText() {
  const input = document.querySelector("#advise-fields input[name=dice]");
  if (input) input.value = state.advDice.filter((f) => f > 0).join(" ");
}

function syncDiceFromText(ev) {
  const faces = (ev.target.value.match(/\d/g) || []).map(Number);
  const n = state.advFixed ? state.advDice.length : Math.max(1, Math.min(6, faces.length || state.advDice.length));
  state.advDice = Array.from({ length: n }, (_, i) => faces[i] || 0);
  drawAdviseDice();
}

function sheetEditor(table) {
  // The score sheet as inputs: a box's points, 0 for a crossed-out box, empty while open.
  const wrap = el("fieldset", { class: "sheet-edit", id: "adv-sheet" }, el("legend", { text: t("fieldWords").position[0] }));
  const cols = [table.boxes.filter((b) => b.upper), table.boxes.filter((b) => !b.upper)];
  const grid = el("div", { class: "sheet-cols" });
  for (const col of cols) {
    const tb = el("div", { class: "sheet-col" });
    for (const b of col) {
      const id = `box-${b.box}`;
      let input;
      if (b.face) {
        input = el("select", { id, "data-box": b.box });
        input.append(el("option", { value: "", text: t("open") }));
        for (let k = 0; k <= (table.dice || 5); k++) input.append(el("option", { value: String(k * b.face), text: k === 0 ? t("scratch") : String(k * b.face) }));
      } else {
        input = el("input", { id, "data-box": b.box, type: "text", inputMode: "numeric", autocomplete: "off", placeholder: t("open") });
      }
      input.addEventListener("change", sheetToText);
      input.addEventListener("input", sheetToText);
      tb.append(el("label", { class: "box-edit", htmlFor: id }, el("span", { text: boxName(b.box, table.words) }), input));
    }
    grid.append(tb);
  }
  wrap.append(grid, el("div", { class: "help", text: t("sheetHelp") }));
  return wrap;
}

function sheetToText() {
  const input = document.querySelector("#advise-fields [name=position]");
  if (!input) return;
  const parts = [];
  for (const e of document.querySelectorAll("#adv-sheet [data-box]")) {
    const v = e.value.trim();
    if (v !== "") parts.push(`${e.dataset.box}=${v === "0" ? "-" : v}`);
  }
  input.value = parts.join(" ");
}

async function advise(ev) {
  ev.preventDefault();
  const game = state.game;
  const options = { ...values($("advise-fields")), ...values($("advise-more")) };
  const answer = await api("POST", `/api/games/${encodeURIComponent(game)}/advise`, { ...rulesBody(), options });
  if (answer.game !== state.game) return; // the game was changed meanwhile: never show another game's answer
  const box = $("advice");
  box.hidden = false;
  box.dataset.game = answer.game;
  solvedMaybe();
  $("advice-stage").textContent = stageWords(answer) || "";
  $("advice-stage").title = answer.heading.join(" · ");
  $("advice-value").textContent = answer.value === null ? "" : t("advValue", `${shown(answer.value, answer.unit)}${isProb(answer.unit) ? "" : " " + unitWord(answer.unit)}`);
  $("advice-value").title = answer.value === null ? "" : String(answer.value);
  const words = currentTable().words;
  drawAdviceSeats(answer);
  rankingRows($("advice-table").tBodies[0], answer.options, { unit: answer.unit, words, open: true });
  box.scrollIntoView({ block: "nearest", behavior: "instant" });
  const best = answer.options[0];
  if (best) announce(`${t("bestMove")}: ${moveWords(best, words)}, ${shown(best.value, answer.unit)}`);
}

function drawAdviceSeats(answer) {
  // At a table: every player's banked score (you to move first) with his win probability after
  // the best move, the turn so far, and the note where the position's cycle has several
  // equilibria or only a mixed one.
  const box = $("advice-seats");
  const d = answer.data || {};
  const scores = Array.isArray(d.seats) && Array.isArray(d.scores) ? d.scores : null;
  box.hidden = !scores;
  if (!scores) { box.replaceChildren(); return; }
  const best = answer.options[0] || {};
  const goal = Number(($("rule-goal") || {}).value) || currentTable().goal;
  seatsBoard(box, scores.map((v, k) => ({ seat: k + 1, score: v, win: Array.isArray(best.win) ? best.win[k] : null })), {
    mover: 1, you: 1, turn: d.turn ?? 0, goal, dice: typeof d.dice === "string" ? (d.dice.match(/\d/g) || []).map(Number) : null,
    name: (k) => (k === 1 ? t("you") : t("seatAfter", k - 1)), caption: t("withBest"), note: d.note_parts, showWin: true, seats: false,
  });
}

function stageWords(answer) {
  const d = answer.data || {};
  const throws = currentTable().throws;
  if (throws && Number.isInteger(d.throws_left) && d.dice) return t("throwOf", throws - d.throws_left, throws);
  return answer.stage || "";
}

// ------------------------------------------------------------------ moves in words

function moveOf(o) {
  // The move an option makes: from the play payload's "move", the advisor's fields, or its label.
  if (o.move) {
    const banked = (o.option || "").match(/(?:bank|write) (\d+)/); // a stop's points are in its label only
    return { ...o.move, points: o.points ?? (banked ? +banked[1] : null), next: o.next_dice };
  }
  if (o.kind === "box") return { action: "fill", box: o.box, points: o.points };
  if (o.kind === "keep") return { action: "keep", keep: o.keep, next: o.rethrow };
  if (o.action === "aside") return { action: "aside", set_aside: o.set_aside, next: o.throw, points: o.turn_total };
  if (o.action === "write") return { action: "write", points: o.turn_total ?? o.points };
  const label = o.option || "";
  let m;
  if ((m = label.match(/^(?:set )?aside (.+?), throw (\d+)(?: with (\d+))?/))) return { action: "aside", set_aside: m[1].split(" "), next: +m[2], points: m[3] ? +m[3] : null };
  if ((m = label.match(/^write (\d+)/))) return { action: "write", points: +m[1] };
  if (label === "roll") return { action: "roll" };
  if ((m = label.match(/^stop(?: \(bank (\d+)\))?/))) return { action: "stop", points: m[1] ? +m[1] : null };
  if ((m = label.match(/^bank (\d+)/))) return { action: "stop", points: +m[1] };
  if ((m = label.match(/^throw (\d+) on/))) return { action: "throwOn", next: +m[1] };
  return { action: "other" };
}

function asideFaces(list) {
  return list.map((f) => (f === "1*" ? t("fiveAsOne") : f)).join(" ");
}

function moveWords(o, words) {
  const m = moveOf(o);
  switch (m.action) {
    case "keep": return t("keepThrow", m.keep || [], m.next ?? "?");
    case "fill": return t("fill", boxName(m.box, words), m.points);
    case "aside": return t("aside", asideFaces(m.set_aside || []), m.next ?? "?", m.points);
    case "write": return t("write", m.points);
    case "roll": return t("roll");
    case "stop": case "bank": return t("stop", m.points);
    case "throwOn": return t("throwOn", m.next);
    default: return o.option;
  }
}

// ------------------------------------------------------------------ rankings

function rankingRows(tbody, options, { unit, words, onPick = null, open = true, win = undefined }) {
  const shownOptions = open ? options : [...options].sort((a, b) => moveWords(a, words).localeCompare(moveWords(b, words)));
  tbody.replaceChildren(...shownOptions.map((o, i) => {
    const cls = open ? [o.best ? "best" : "", o.tie ? "tie" : ""].join(" ").trim() : "";
    const words_ = moveWords(o, words);
    const cell = el("td");
    if (onPick) {
      const b = el("button", { type: "button", class: "opt", text: words_, "data-rank": o.rank });
      b.addEventListener("click", () => onPick(o));
      cell.append(b);
    } else cell.textContent = words_;
    if (open && o.best) cell.append(el("span", { class: "tag", text: o.tie ? ` ★ ${t("tie")}` : ` ★ ${t("bestTag")}` }));
    const w = win && win.available ? win.options[o.option] : null;
    if (open && w && win.best === o.option) cell.append(el("span", { class: "tag win", text: ` ♛ ${t("winBest")}` }));
    const attrs = { class: cls, "data-option": o.option, "data-move": JSON.stringify(moveOf(o)) };
    if (open) Object.assign(attrs, { "data-rank": o.rank, "data-value": String(o.value), "data-regret": String(o.regret) });
    if (w) Object.assign(attrs, { "data-win": String(w.win), "data-win-loss": String(w.loss) });
    const winCell = win === undefined ? null : open && w ? el("td", { class: "num adv win-col", text: shown(w.win, WIN), title: `${w.win} (${t("lossWord")} ${shownLoss(w.loss, WIN)})` }) : el("td", { class: "num adv win-col", text: open && win === null ? "…" : "" });
    return el("tr", attrs, el("td", { class: "num", text: open ? o.rank : i + 1 }), cell,
      open ? numCell(o.value, unit) : el("td", { class: "num adv", text: "" }), open ? numCell(o.regret, unit, true) : el("td", { class: "num adv", text: "" }), winCell);
  }));
}

// ------------------------------------------------------------------ play

function openMode() { return state.mode !== "quiz"; }

function stageOf(s) {
  const b = s.board || {};
  if (s.over) return t("gameOver");
  const parts = [];
  if (b.kind === "race") parts.push(s.mover === "them" ? t("theirTurn") : t("yourTurn"));
  if (b.kind === "table") parts.push(b.mover === b.you ? t("yourTurn") : t("seatTurn", t("seatName", b.mover)));
  if (b.kind === "turns") parts.push(t("turnOf", b.turn, b.turns));
  if (b.kind === "sheet" && b.throws && Number.isInteger(b.throws_left)) parts.push(t("throwOf", b.throws - b.throws_left, b.throws));
  if (s.awaiting === "dice" && b.kind !== "sheet") parts.push(t("throwN", s.throw_count));
  return parts.join(" · ");
}

function showGame(s) {
  if (s.game !== state.game) return;
  const before = state.play;
  const focus = document.activeElement;
  // focus on the board (or lost with a control the board redraws): kept on the board after the move
  const onBoard = !focus || focus === document.body || $("game-view").contains(focus);
  const focusedId = onBoard && focus && focus.id ? focus.id : "";
  if (!before || before.id !== s.id || before.moves !== s.moves) state.held = new Set();
  state.play = s;
  if (!before || before.id !== s.id) state.said = new Map();
  for (const o of s.options) state.said.set(o.option, moveWords(o, s.words)); // the words of every move offered, for the feedback
  const view = $("game-view");
  view.hidden = false;
  Object.assign(view.dataset, { id: s.id, awaiting: s.awaiting, moves: String(s.moves), mover: s.mover || "", mode: state.mode });
  $("play-stage").textContent = stageOf(s);
  drawRace(s);
  drawSeats(s);
  drawTurns(s);
  drawDice(s);
  drawActions(s);
  drawFeedback(s);
  drawChoices(s);
  drawSheet(s);
  drawLog(s);
  drawTable(s, before);
  $("undo").disabled = !s.can_undo;
  $("running-loss").textContent = openMode() || s.over ? t("decisions", s.decisions, shownLoss(s.loss, s.unit, true), t("lossUnit", isProb(s.unit))) : "";
  $("typed-box").hidden = s.awaiting !== "dice";
  $("speed").closest("label").hidden = !(s.board && (s.board.kind === "race" || s.board.kind === "table" || (s.board.players || []).length));
  $("review").hidden = !s.over;
  if (s.over) {
    review().catch((err) => showError(err.message));
  }
  // (brought into view only where the focus was on the board: a page read elsewhere does not jump)
  if (onBoard && !$("game-view").contains(document.activeElement)) focusBoard(s, focusedId, Boolean(focus && focus !== document.body));
  theirTurnSoon(s);
}

function focusBoard(s, focusedId, scroll = true) {
  // After a move the focus stays on the board: on the control pressed where it is still there,
  // else on the next thing to do (throw, the computer's turn, the best move in the open mode,
  // the dice to pick), else on the list of moves (never on a move itself: Enter plays only what
  // the player chose to focus), and at the end on the review.
  const usable = (e) => e && !e.disabled && e.offsetParent !== null;
  const candidates = [
    focusedId && $(focusedId),
    $("their-turn"), $("throw"),
    openMode() ? $("best") : null,
    document.querySelector("#dice button.die"),
  ];
  let target = candidates.find(usable);
  if (!target && s.awaiting === "choice") target = $("choice-head");
  if (!target && s.over) target = $("review");
  if (!target) return;
  target.focus({ preventScroll: true });
  if (scroll) target.scrollIntoView({ block: "nearest", behavior: "instant" });
}

function words() { return state.play && state.play.words; }

function drawRace(s) {
  const b = s.board || {};
  const box = $("race");
  box.hidden = b.kind !== "race";
  if (b.kind !== "race") return;
  const side = (who) => {
    const score = b[who];
    const moving = !s.over && s.mover === who;
    const pct = b.goal ? Math.min(100, (100 * score) / b.goal) : 0;
    const started = (who === "you") === b.you_started;
    return el("div", { class: `player${moving ? " moving" : ""}${b.winner === who ? " winner" : ""}`, "data-who": who },
      el("div", { class: "who", text: `${t(who)}${started ? " ◆" : ""}`, title: started ? t("started") : "" }),
      el("div", { class: "score", text: String(score) }),
      el("div", { class: "meter", role: "img", "aria-label": `${score} / ${b.goal}` }, el("div", { style: `width:${pct}%` })),
      el("div", { class: "muted small", text: moving ? `${t("turnTotal")}: ${b.turn_total}` : (b.winner === who ? t("won") : "") }));
  };
  box.replaceChildren(side("you"), el("div", { class: "goal muted small", text: `${t("goal")} ${b.goal}${b.last ? " · " + t("lastTurn") : ""}` }), side("them"));
}

function drawSeats(s) {
  // A race at a table of N players: each seat's banked score (seat 1 moves first), yours
  // marked, the one to move highlighted with the points of his turn, each one's win probability
  // (not in the quiz), and the note where the position's cycle has several equilibria or only a mixed one.
  const b = s.board || {};
  const box = $("seats");
  box.hidden = b.kind !== "table";
  if (b.kind !== "table") { box.replaceChildren(); return; }
  seatsBoard(box, b.seats, {
    mover: s.over ? null : b.mover, you: b.you, turn: b.turn_total, goal: b.goal, winner: b.winner, showWin: openMode() || s.over,
    name: (k) => (k === b.you ? t("you") : t("seatName", k)), note: s.over ? null : b.note,
  });
}

function seatsBoard(box, seats, { mover, you, turn, goal, winner = null, dice = null, name, caption = "", note = null, showWin = true, seats: numbered = true }) {
  // ``numbered``: the seats are the table's (seat 1 moves first), not the order from the mover
  const cards = seats.map(({ seat, score, win }) => {
    const moving = seat === mover, mine = seat === you, won = seat === winner;
    const pct = goal ? Math.min(100, (100 * score) / goal) : 0;
    const tag = moving ? el("span", { class: "turn-tag", text: t("toMove") }) : won ? el("span", { class: "turn-tag won", text: t("won") }) : null;
    const turnLine = el("div", { class: "turn-line small" });
    if (moving) {
      turnLine.append(`${t("turnTotal")}: `, el("strong", { text: String(turn) }));
      if (dice && dice.length) turnLine.append(" ", miniDice(dice));
    }
    const label = `${name(seat)}: ${score}${moving ? `, ${t("toMove")}` : ""}${won ? `, ${t("won")}` : ""}`;
    return el("div", {
      class: `seat${moving ? " moving" : ""}${mine ? " you" : ""}${won ? " winner" : ""}`, "data-seat": String(seat), "data-score": String(score),
      role: "group", "aria-current": moving ? "true" : null, "aria-label": label,
    },
    el("div", { class: "who" }, el("span", { class: "name", text: name(seat) }), mine && numbered ? el("span", { class: "seat-no muted small", text: t("yourSeat", seat) }) : null, tag),
    el("div", { class: "score", text: String(score) }),
    el("div", { class: "meter", role: "img", "aria-label": `${score} / ${goal}` }, el("div", { style: `width:${pct}%` })),
    turnLine,
    // the percentage and its word each kept whole (a narrow card breaks between them)
    showWin && win != null ? el("div", { class: "win-line small", "data-win": String(win), title: String(win) }, el("span", { class: "pct", text: shown(win, WIN) }), " ", el("span", { text: t("winWord") })) : null);
  });
  const foot = el("div", { class: "seats-foot muted small", text: [`${t("goal")} ${goal}`, numbered ? t("firstMoves") : "", caption].filter(Boolean).join(" · ") });
  const noteLine = note ? el("p", { class: "cycle-note small", "data-note": note.text, text: noteWords(note) }) : null;
  box.style.setProperty("--seats", String(seats.length));
  box.classList.toggle("four", seats.length > 3); // on a phone two rows of two
  box.classList.toggle("from-mover", !numbered); // the advisor's seats are counted from you: no seat colours
  box.replaceChildren(...cards, foot, ...(noteLine ? [noteLine] : []));
}

function noteWords(note) {
  // The game's line about the position's cycle, in the page's words.
  if (Number.isInteger(note.pure)) return t("cyclePure", note.pure);
  if (Array.isArray(note.mixers) && Array.isArray(note.q)) return t("cycleMixed", note.mixers, note.q.map((q) => fmt(q, 4)));
  return note.text;
}

function drawTurns(s) {
  const b = s.board || {};
  const box = $("turns");
  // a game whose registration names no board the page draws: its own lines (the scores, the turn)
  const lines = $("status-lines");
  lines.hidden = ["turns", "race", "sheet", "table"].includes(b.kind) || !(s.status || []).length;
  if (!lines.hidden) lines.replaceChildren(...s.status.map((line) => el("div", { class: "status-line", text: line })));
  box.hidden = b.kind !== "turns";
  if (b.kind !== "turns") return;
  box.replaceChildren(el("div", { class: "total" }, el("span", { class: "muted", text: t("grandTotal") + " " }), el("strong", { text: String(b.total) })),
    el("div", { class: "muted", text: `${t("turnTotal")}: ${b.turn_total}` }));
}

function selectable(s) {
  // What clicking a die does now: hold it (a keep is due), set it aside, or nothing.
  if (s.awaiting !== "choice" || s.mover === "them") return null;
  const opts = s.options.map(moveOf);
  if (opts.some((m) => m.action === "keep")) return "hold";
  if (opts.some((m) => m.action === "aside")) return "aside";
  return null;
}

function drawDice(s) {
  const wrap = $("dice");
  const mode = selectable(s);
  wrap.setAttribute("aria-label", mode === "hold" ? t("holdHint") : mode === "aside" ? t("asideHint") : t("diceLabel"));
  const out = [];
  if (s.dice) {
    s.dice.forEach((f, i) => out.push(dieButton(f, i, {
      held: state.held.has(i),
      onClick: mode ? () => toggleHold(i) : null,
    })));
  } else {
    (s.kept || []).forEach((f, i) => out.push(dieButton(f, i, { held: true })));
    for (let i = 0; i < (s.throw_count || 0) && s.awaiting === "dice"; i++) out.push(el("span", { class: "die blank", "aria-hidden": "true" }));
  }
  wrap.replaceChildren(...out);
  if (mode) wrap.append(el("div", { class: "hint muted small", text: mode === "hold" ? t("holdHint") : t("asideHint") }));
}

function toggleHold(i) {
  if (state.held.has(i)) state.held.delete(i); else state.held.add(i);
  const focused = [...document.querySelectorAll("#dice button.die")].indexOf(document.activeElement);
  const onAction = $("actions").contains(document.activeElement) ? document.activeElement.id : "";
  drawDice(state.play);
  drawActions(state.play);
  // the die (or the button) that had the focus keeps it though the dice are drawn anew
  const again = focused >= 0 ? document.querySelectorAll("#dice button.die")[focused] : onAction ? $(onAction) : null;
  if (again) again.focus({ preventScroll: true });
}

function heldFaces(s) {
  return [...state.held].map((i) => s.dice[i]).sort((a, b) => a - b);
}

function findOption(s, test) {
  return s.options.find((o) => test(moveOf(o)));
}

function sameList(a, b) { return a.length === b.length && a.every((x, i) => String(x) === String(b[i])); }

function drawActions(s) {
  const box = $("actions");
  const out = [];
  const button = (id, text, fn, primary = false, key = null) => {
    // a button's words begin with a capital (the same words in the list of moves do not)
    const b = el("button", { id, type: "button", class: primary ? "primary" : "", text: text.charAt(0).toUpperCase() + text.slice(1) });
    if (key) b.setAttribute("aria-keyshortcuts", key);
    b.addEventListener("click", () => guarded(fn));
    out.push(b);
    return b;
  };
  if (!s.over) {
    const theirs = s.mover === "them";
    if (s.awaiting === "dice" && theirs && !humanOpponent(s)) {
      button("their-turn", t(s.board && s.board.kind === "table" && s.board.seats.length > 2 ? "playOthers" : "playTheirTurn"), playTheirTurn, true, "t");
    } else if (s.awaiting === "dice") {
      button("throw", t("throwN", s.throw_count), () => move({ throw: null }), true, "r");
    } else if (s.awaiting === "choice") {
      const mode = selectable(s);
      if (mode === "hold") {
        const keep = heldFaces(s);
        const n = s.dice.length - keep.length;
        const b = button("throw", t("throwAgain", n), () => keepAndThrow(s), true, "r");
        b.disabled = !n || !findOption(s, (m) => m.action === "keep");
      } else if (mode === "aside") {
        const sel = heldFaces(s);
        const opt = findOption(s, (m) => m.action === "aside" && sameList(m.set_aside, sel.map(String)));
        const b = button("throw", opt ? t("aside", sel.join(" "), opt.next_dice, opt.points) : t("setAside"), () => chooseThen(opt, true), true, "r");
        b.disabled = !opt;
        const w = findOption(s, (m) => m.action === "write");
        if (w) button("write", t("writeBtn", w.points ?? ""), () => chooseThen(w, false));
      } else {
        const roll = findOption(s, (m) => m.action === "roll");
        const stop = findOption(s, (m) => m.action === "stop" || m.action === "bank");
        if (roll) button("throw", t("roll"), () => chooseThen(roll, !theirs), true, "r");
        if (stop) button("stop", t("stop", s.board && s.board.turn_total), () => chooseThen(stop, false));
      }
      if (openMode() && s.options.length) button("best", t("best"), () => move({ choice: "best" }));
    }
  }
  box.replaceChildren(...out);
}

function humanOpponent(s) {
  const set = $("set-opponent");
  return set && set.value === "human";
}

async function keepAndThrow(s) {
  const keep = heldFaces(s);
  if (keep.length === s.dice.length) throw new Error(t("cantKeepAll"));
  const opt = findOption(s, (m) => m.action === "keep" && sameList(m.keep, keep));
  if (!opt) throw new Error(t("noSuchMove"));
  await chooseThen(opt, true);
}

async function chooseThen(opt, thenThrow) {
  if (!opt) throw new Error(t("noSuchMove"));
  const id = state.play.id;
  await move({ choice: opt.rank });
  const s = state.play;
  if (thenThrow && s && s.id === id && s.awaiting === "dice" && s.mover === "you") await move({ throw: null });
}

function drawFeedback(s) {
  const fb = $("feedback");
  const last = s.last;
  if (!last) { fb.hidden = true; state.seen = ""; return; }
  const key = `${s.id}:${last.where}:${last.chosen}`;
  const wordsOf = (label) => state.said.get(label) || label;
  fb.hidden = false;
  fb.className = "feedback " + (last.optimal ? "good" : "loss");
  const chosen = wordsOf(last.chosen);
  fb.textContent = last.optimal
    ? `${t("yourMove")}: ${chosen} — ${t("aBest")} (${t("lossWord")} 0)`
    : `${t("yourMove")}: ${chosen} — ${t("bestWas")}: ${wordsOf(last.best)}, ${t("lossWord")} ${shownLoss(last.regret, s.unit)}`;
  if (last.win_regret !== undefined) {
    fb.textContent += last.win_regret > 1e-9 ? `; ${t("winLoss")}: ${shownLoss(last.win_regret, WIN)} (${t("winBestWas")}: ${wordsOf(last.win_best)})` : `; ${t("winLoss")}: 0`;
    fb.dataset.winRegret = String(last.win_regret);
    if (last.win_regret > 1e-9) fb.className = "feedback loss";
  } else delete fb.dataset.winRegret;
  fb.dataset.regret = String(last.regret);
  fb.dataset.chosen = last.chosen;
  fb.dataset.best = last.best;
  if (key !== state.seen) { state.seen = key; announce(fb.textContent); }
}

function drawChoices(s) {
  const box = $("choice-box");
  box.hidden = s.awaiting !== "choice";
  $("choice-head").textContent = s.mover === "them" ? t("theirChoice") : openMode() ? t("chooseHead") : t("chooseHeadQuiz");
  $("play-table").classList.toggle("quiz", !openMode());
  const table = atTable(s) && s.mover !== "them";
  const win = table ? winOf(s) : undefined;
  const column = win === null || (win && win.available) ? win : undefined; // a column while it is computed or there
  $("win-head").hidden = column === undefined;
  rankingRows($("play-table").tBodies[0], s.options, { unit: s.unit, words: words(), open: openMode(), onPick: (o) => guarded(() => move({ choice: o.rank })), win: column });
  drawWinNote(s, win);
  if (s.awaiting === "choice" && openMode() && s.options[0]) announce(`${t("bestMove")}: ${moveWords(s.options[0], words())}`);
}

function drawSheet(s) {
  const b = s.board || {};
  const box = $("sheet-box");
  box.hidden = b.kind !== "sheet";
  if (b.kind !== "sheet") return;
  const fills = {};
  for (const o of s.options) { const m = moveOf(o); if (m.action === "fill") fills[m.box] = o; }
  const players = b.players || [];
  // at a table: one column per player, yours first (the boxes you can fill are buttons), the computers' beside
  const theirs = (r, i) => players.map((p) => {
    const v = p.scores[i];
    return v === null ? el("td", { class: "num open other", text: "·", "aria-label": `${t("computer", players.indexOf(p) + 1)}: ${t("open")}` })
      : el("td", { class: "num other", text: String(v) });
  });
  const row = (r, i) => {
    const name = boxName(r.box, s.words);
    const o = fills[r.box];
    let cell;
    if (r.score !== null) cell = el("td", { class: "num", text: String(r.score) });
    else if (o && s.mover !== "them") {
      const btn = el("button", { type: "button", class: "fill", "data-box": r.box, text: String(o.points ?? ""), "aria-label": t("fill", name, o.points) });
      btn.addEventListener("click", () => guarded(() => move({ choice: o.rank })));
      cell = el("td", { class: "num" }, btn);
    } else cell = el("td", { class: "num open", text: "·", "aria-label": t("open") });
    return el("tr", { class: r.score === null ? "open" : "", "data-box": r.box }, el("th", { scope: "row", text: name }), cell, ...theirs(r, i));
  };
  const total = (label, mine, others, cls = "") => el("tr", { class: `total ${cls}` }, el("th", { scope: "row", text: label }),
    el("td", { class: "num", text: String(mine) }), ...others.map((v) => el("td", { class: "num other", text: String(v) })));
  const head = () => players.length ? el("thead", {}, el("tr", {}, el("td"), el("th", { scope: "col", class: "num", text: t("you") }),
    ...players.map((p, j) => el("th", { scope: "col", class: "num other", title: t("computer", j + 1) }, el("span", { "aria-hidden": "true", text: t("computerShort", j + 1) }), el("span", { class: "sr-only", text: t("computer", j + 1) }))))) : null;
  const indexed = b.rows.map((r, i) => [r, i]);
  const upper = indexed.filter(([r]) => r.upper), lower = indexed.filter(([r]) => !r.upper);
  const otherBonus = b.other_bonus || players.some((p) => p.other_bonus);
  const up = el("table", { class: "sheet-table" }, head(), el("tbody", {}, ...upper.map(([r, i]) => row(r, i)),
    // a sheet without an upper bonus (Yacht) shows the section's total only
    total(t("upperTotal"), b.bonus_points ? `${b.upper_total} / ${b.upper_threshold}` : b.upper_total, players.map((p) => p.upper_total), "sub"),
    b.bonus_points ? total(t("bonus", b.upper_threshold, b.bonus_points), b.upper_bonus, players.map((p) => p.upper_bonus), "sub") : null));
  const low = el("table", { class: "sheet-table" }, head(), el("tbody", {}, ...lower.map(([r, i]) => row(r, i)),
    otherBonus ? total(t("extraBonus"), b.other_bonus, players.map((p) => p.other_bonus), "sub") : null,
    total(t("lowerTotal"), b.lower_total + (b.other_bonus || 0), players.map((p) => p.lower_total + (p.other_bonus || 0)), "sub"),
    total(t("grandTotal"), b.total, players.map((p) => p.total), "grand")));
  $("sheet").replaceChildren(up, low);
  $("sheet").classList.toggle("multi", players.length > 0);
  $("sheet").dataset.total = String(b.total);
  $("sheet").dataset.players = String(players.length);
}

function logWords(m, s) {
  // What a move did, in words that agree with who did it (du wirfst, der Computer wirft) and
  // with the points it wrote down.
  const you = m.by !== "them";
  switch (m.action) {
    case "throw": return t("logThrew", you);
    case "keep": return t("logKept", you, (m.keep || []).join(" "));
    case "fill": return t("logFilled", you, boxName(m.box, s.words), m.points);
    case "aside": return t("logAside", you, asideFaces(m.set_aside || []));
    case "write": return t("logWrote", you, m.points);
    case "roll": return t("logRolled", you);
    case "stop": case "bank": return t("logStopped", you, m.points);
    default: return m.action;
  }
}

function drawLog(s) {
  const log = $("log");
  const entries = [];
  const all = s.log;
  const first = Math.max(0, all.length - 40);
  for (let j = first; j < all.length; j++) {
    const m = all[j], next = all[j + 1];
    const who = m.by === "them" ? (m.seat ? t("seatName", m.seat) : m.player ? t("computer", m.player) : t("themSubject")) : t("you");
    const li = el("li", { class: `by-${m.by}${m.seat ? ` seat-${m.seat}` : ""}`, "data-action": m.action, "data-seat": m.seat ? String(m.seat) : null });
    li.append(el("span", { class: "who", text: who }));
    // a throw that no decision follows (another throw, the other player, the end) scored nothing
    // (a game that ends on a throw, on a board the page does not know, ended by reaching its goal)
    const known = ["race", "turns", "sheet"].includes((s.board || {}).kind);
    const bust = m.bust !== undefined ? m.bust // at a table the server says it
      : m.action === "throw" && (next ? next.action === "throw" || next.by !== m.by : s.awaiting === "dice" || known && s.over && s.log.length > 0 && !s.dice);
    li.append(el("span", { text: ` ${logWords(m, s)}${m.action === "throw" ? " " : ""}` }));
    if (m.action === "throw") {
      li.append(miniDice(m.dice));
      if (bust) li.append(el("span", { class: "lossmark", text: ` — ${t("bust")}` }));
    }
    if ("regret" in m && (openMode() || m.number < s.moves || s.over)) {
      li.append(el("span", { class: m.regret > 1e-9 ? "lossmark" : "okmark", text: m.regret > 1e-9 ? ` −${shownLoss(m.regret, s.unit)}` : " ✓" }));
    }
    entries.push(li);
  }
  log.replaceChildren(...entries);
  log.scrollTop = log.scrollHeight;
}

// ------------------------------------------------------------------ at a table: computer opponents

function atTable(s) { return Boolean(s && s.board && (s.board.players || []).length); }

function winOf(s) {
  // Your win probability at this decision: in the state (computed before), fetched for it, or null while it is computed.
  if (s.win) return s.win;
  const w = state.win;
  return w && w.id === s.id && w.moves === s.moves ? w : null;
}

function drawWinNote(s, win) {
  const note = $("win-note");
  const mine = atTable(s) && s.awaiting === "choice" && s.mover !== "them" && openMode();
  note.hidden = !mine;
  if (!mine) return;
  note.setAttribute("aria-busy", win === null ? "true" : "false");
  if (win === null) note.textContent = t("winWorking");
  else if (win.available) note.textContent = t(String(win.method || "").startsWith("two-player") ? "winNowOptimal" : "winNow", shown(win.value, WIN));
  else note.textContent = win.from_open != null ? t("winFrom", win.from_open, win.boxes - win.from_open + 1) : win.note;
  note.dataset.available = win === null ? "" : String(win.available);
}

async function fetchWin(s) {
  // The win probability is a job of its own on the server: the board is drawn at once, the column follows.
  if (!atTable(s) || s.awaiting !== "choice" || s.mover === "them" || s.win) return;
  const key = `${s.id}:${s.moves}`;
  if (state.winAsked === key) return;
  state.winAsked = key;
  try {
    let res = await fetch(`/api/play/${s.id}/win`);
    let data = await res.json();
    while (res.status === 202 && data.pending) {
      await new Promise((r) => setTimeout(r, 300));
      if (!state.play || state.play.id !== s.id || state.play.moves !== s.moves) return;
      res = await fetch(`/api/jobs/${data.job}`);
      data = await res.json();
    }
    if (!res.ok) { data = { available: false, note: data.error || `HTTP ${res.status}` }; }
    state.win = { ...data, id: s.id, moves: s.moves };
    if (state.play && state.play.id === s.id && state.play.moves === s.moves) {
      drawChoices(state.play);
      if (data.available) announce(t("winNow", shown(data.value, WIN)));
    }
  } catch (err) {
    state.winAsked = "";
  }
}

function feedLine(m, s) {
  // One move of a computer opponent (at a table: of the seat that made it) in words, with its dice.
  const who = m.seat ? t("seatName", m.seat) : t("computer", m.player || 1);
  const words = logWords(m, s);
  const li = el("li", { class: "by-them", "data-action": m.action, "data-player": String(m.player || 1), "data-seat": m.seat ? String(m.seat) : null },
    el("span", { class: "who", text: who }), el("span", { text: ` ${words}` }));
  if (m.action === "throw") li.append(" ", miniDice(m.dice));
  if (m.action === "throw" && m.bust) li.append(el("span", { class: "lossmark", text: ` — ${t("bust")}` }));
  return [li, `${who} ${words}${m.action === "throw" ? " " + m.dice.join(" ") + (m.bust ? `, ${t("bust")}` : "") : ""}`];
}

function drawTable(s, before) {
  // The computers' turns since your last move, shown step by step (at the speed chosen) and announced.
  const box = $("table-feed");
  const seated = Boolean(s.board && s.board.kind === "table"); // a race at a table: the other seats' turns
  if (!atTable(s) && !seated) { box.hidden = true; return; }
  $("feed-head").textContent = t(seated ? "othersHead" : "opponentsHead");
  if (!seated) fetchWin(s);
  const list = $("feed-list");
  if (!box.hidden && !state.feed) list.scrollTop = list.scrollHeight; // the latest turn in view
  if (!before || before.id !== s.id || s.moves < before.moves) { stopFeed(); box.hidden = true; return; } // a new game, or a move taken back
  if (s.moves === before.moves) return;
  const moves = s.log.slice(before.log.length).filter((m) => m.by === "them");
  if (!moves.length) return;
  stopFeed();
  list.replaceChildren();
  box.hidden = false;
  const lines = moves.map((m) => feedLine(m, s));
  const said = lines.map(([, text]) => text).join(". ");
  const speed = $("speed").value;
  const step = speed === "slow" ? 700 : speed === "fast" ? 150 : 0;
  const lead = $("feedback").hidden ? "" : `${$("feedback").textContent}. `;
  if (!step) {
    list.replaceChildren(...lines.map(([li]) => li));
    list.scrollTop = list.scrollHeight;
    announce(lead + said);
    return;
  }
  let k = 0;
  const next = () => {
    list.append(lines[k][0]);
    list.scrollTop = list.scrollHeight;
    k += 1;
    if (k < lines.length) state.feed = setTimeout(next, step);
    else { state.feed = null; announce(lead + said); }
  };
  next();
}

function stopFeed() { if (state.feed) { clearTimeout(state.feed); state.feed = null; } }

// ------------------------------------------------------------------ the computer's turn

function stopTimer() { if (state.timer) { clearTimeout(state.timer); state.timer = null; } }

function theirTurnSoon(s) {
  stopTimer();
  const speed = $("speed").value;
  if (speed === "click" || s.over || s.mover !== "them" || s.awaiting !== "dice" || humanOpponent(s)) return;
  state.timer = setTimeout(() => {
    state.timer = null;
    if (state.busy) theirTurnSoon(state.play);
    else if (state.play && state.play.id === s.id) guarded(() => move({ throw: null }));
  }, speed === "slow" ? 900 : 250);
}

async function playTheirTurn() {
  // The computer's whole turn with one click: its throws (its decisions follow by themselves).
  const id = state.play && state.play.id;
  const theirs = () => { const s = state.play; return s && s.id === id && !s.over && s.mover === "them" && s.awaiting === "dice"; };
  for (let i = 0; i < 500 && theirs(); i++) {
    if (i) await new Promise((r) => setTimeout(r, 120)); // each throw seen before the next
    await move({ throw: null });
  }
}

// ------------------------------------------------------------------ requests of play

async function newGame(ev) {
  if (ev) ev.preventDefault();
  stopTimer();
  stopFeed();
  state.play = null;
  state.win = null;
  const s = await api("POST", `/api/games/${encodeURIComponent(state.game)}/play`, { ...rulesBody(), settings: values($("play-fields")) });
  showGame(s);
  solvedMaybe();
  // the board in view: on a phone its top at the top of the screen
  const top = s.board && s.board.kind === "race" ? $("race") : s.board && s.board.kind === "table" ? $("seats") : $("play-stage");
  top.scrollIntoView({ block: window.innerWidth < 760 ? "start" : "nearest", behavior: "instant" });
  // started from the New game button: the focus goes to the board's first thing to do
  if (document.activeElement === $("play-new")) focusBoard(state.play || s, "");
}

async function move(body) {
  if (!state.play) return;
  const s = await api("POST", `/api/play/${state.play.id}/move`, body);
  showGame(s);
}

async function undo() {
  if (!state.play) return;
  stopTimer();
  showGame(await api("POST", `/api/play/${state.play.id}/undo`));
}

async function review() {
  const id = state.play.id;
  const r = await api("GET", `/api/play/${id}/review`);
  if (!state.play || state.play.id !== id) return;
  const s = state.play;
  const prob = isProb(r.unit);
  const table = atTable(s) ? standings(s) : null;
  const lines = [finalWords(s, r), ...(table || [])];
  const startWin = s.board && s.board.kind === "table" ? "startWinTable" : "startWin";
  const expected = prob ? t(startWin, shown(r.expected, r.unit)) : t("startExpect", fmt(r.expected, 2), r.from_start !== false);
  $("final").textContent = `${lines.join("; ")} — ${expected}`;
  $("final").title = String(r.expected);
  $("review-summary").textContent = t("summary", r.count, r.optimal, shownLoss(r.loss, r.unit, true), shownLoss(r.mean_loss, r.unit, true), t("lossUnit", prob));
  $("review").dataset.meanLoss = String(r.mean_loss);
  $("review").dataset.score = String(r.score);
  $("review-table").tBodies[0].replaceChildren(...r.decisions.map((d) => el("tr", { class: d.optimal ? "" : "mine", "data-regret": String(d.regret), "data-move": String(d.move) },
    el("td", { class: "num", text: String(d.decision ?? d.move) }), whereCell(d), el("td", { text: state.said.get(d.chosen) || d.chosen }), bestCell(d), numCell(d.regret, r.unit, true))));
  const g = currentGame();
  $("distribution").replaceChildren();
  $("percentile").replaceChildren();
  if (g && g.distribution && !prob && r.from_start !== false) {
    // where the final score stands among optimally played games: from the distribution of the
    // final score under optimal play (computed once per rules, in the background)
    const note = el("p", { class: "muted small", text: t("percentileWorking"), "aria-busy": "true" });
    $("percentile").append(note);
    const button = el("button", { id: "show-distribution", type: "button", text: t("distribution"), disabled: true });
    $("distribution").append(button);
    // asked after a moment on the review (a page left at once asks for no work)
    new Promise((r) => setTimeout(r, 1500)).then(() => (state.play && state.play.id === id ? quietly(`/api/play/${id}/distribution`) : Promise.reject(new Error("gone")))).then((dist) => {
      if (!state.play || state.play.id !== id) return;
      const beats = dist.p.slice(0, Math.max(0, Math.min(r.score, dist.p.length))).reduce((a, x) => a + x, 0);
      $("percentile").replaceChildren(el("p", { id: "percentile-line", text: t("percentile", r.score, percentText(beats)), "data-beats": String(beats) }));
      button.disabled = false;
      button.addEventListener("click", () => { $("distribution").replaceChildren(chart(dist, r.score)); });
    }).catch(() => { // no figure rather than a wrong one
      if (state.play && state.play.id === id) { $("percentile").replaceChildren(); $("distribution").replaceChildren(); }
    });
  }
  announce(`${t("gameOver")}. ${$("final").textContent}. ${$("review-summary").textContent}`);
}

function bestCell(d) {
  // the best move where yours was another; a tick where yours was a best one
  if (d.optimal) return el("td", { class: "okmark", text: "✓", title: t("aBest") }, el("span", { class: "sr-only", text: ` ${t("aBest")}` }));
  return el("td", { text: state.said.get(d.best) || d.best });
}

function percentText(x) {
  // a share as a whole percentage, with one decimal near 0 and 100 (never "0 %" for a few games)
  const v = 100 * x;
  return `${v < 1 || v > 99 ? dec(v.toFixed(1)) : Math.round(v)} %`;
}

function finalWords(s, r) {
  // The result in the page's words: the final score of a sheet or of turns, the race's outcome.
  const b = s.board || {};
  if (b.kind === "race" && b.winner) return b.winner === "you" ? t("raceWon", b.you, b.them) : t("raceLost", b.you, b.them);
  if (b.kind === "table" && b.winner) {
    const name = (k) => (k === b.you ? t("youLower") : t("seatName", k));
    return t("tableWon", t("seatName", b.winner), b.winner === b.you, b.seats.map((x) => `${name(x.seat)} ${x.score}`).join(", "));
  }
  if (b.kind === "sheet" || b.kind === "turns") return t("finalScore", b.total);
  return r.lines.join("; ");
}

function whereCell(d) {
  // Where a decision was: the turn, the scores, the points of the turn, the dice and the throws left.
  const at = d.at || {};
  const parts = [];
  if (at.turn != null) parts.push(t("whereTurn", at.turn));
  if (at.you != null && at.them != null) parts.push(t("whereScores", at.you, at.them));
  if (Array.isArray(at.scores)) parts.push(at.scores.map((v, k) => `${k + 1 === at.seat ? t("youLower") : t("seatName", k + 1)} ${v}`).join(", "));
  if (at.turn_total) parts.push(t("whereTurnTotal", at.turn_total));
  if (at.throws_left != null) parts.push(t("whereLeft", at.throws_left));
  if (!parts.length && !at.dice) return el("td", { text: d.where });
  const cell = el("td", { title: d.where });
  cell.append(parts.join(", "));
  if (at.dice) cell.append(parts.length ? ": " : "", miniDice(at.dice));
  return cell;
}

async function quietly(url) {
  // A GET answered as a job, polled without the progress box (work the player does not wait for).
  let res = await fetch(url);
  let data = await res.json();
  while (res.status === 202 && data.pending) {
    await new Promise((r) => setTimeout(r, 1000));
    res = await fetch(`/api/jobs/${data.job}`);
    data = await res.json();
  }
  if (!res.ok) throw new Error(data.error || `HTTP ${res.status}`);
  return data;
}

function standings(s) {
  // The table's final scores, highest first, and what your decisions lost in win probability.
  const b = s.board;
  const scores = [[t("you"), b.total], ...b.players.map((p, i) => [t("computer", i + 1), p.total])].sort((x, y) => y[1] - x[1]);
  const top = scores.filter(([, v]) => v === scores[0][1]).map(([who]) => who);
  const out = [top.length === 1 ? t("winner", top[0]) : t("tieFirst", top.join(" & ")), `${t("standings")}: ${scores.map(([who, v], k) => `${k + 1}. ${who} ${v}`).join(", ")}`];
  const lost = s.log.filter((m) => m.info && m.info.win_regret !== undefined).map((m) => m.info.win_regret);
  if (lost.length) out.push(t("winLossTotal", shownLoss(lost.reduce((a, x) => a + x, 0), WIN, true), lost.length));
  return out;
}

function chart(dist, score) {
  // The final score's distribution under optimal play, with this game's score marked.
  // Drawn up to the score below which 99.999 % of games end (the exact tail goes much further).
  let n = 0, mass = 0;
  while (n < dist.p.length && mass < 0.99999) mass += dist.p[n++];
  const W = 600, H = 170, pad = 22, p = dist.p.slice(0, n), max = Math.max(...p);
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H + pad}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", t("distCaption", fmt(dist.mean, 2), fmt(dist.sd, 2)));
  const bar = (x, h, color) => { const r = document.createElementNS(SVG, "rect"); r.setAttribute("x", x); r.setAttribute("y", H - h); r.setAttribute("width", Math.max(W / n, 0.6)); r.setAttribute("height", h); r.setAttribute("fill", color); svg.append(r); };
  for (let k = 0; k < n; k++) if (p[k] > 0) bar((k / n) * W, (p[k] / max) * (H - 10), "#3b6e9e");
  bar((Math.min(score, n - 1) / n) * W, H - 10, "#c2410c");
  const text = (x, s, anchor) => { const tx = document.createElementNS(SVG, "text"); tx.setAttribute("x", x); tx.setAttribute("y", H + 16); tx.setAttribute("font-size", "12"); tx.setAttribute("text-anchor", anchor); tx.textContent = s; svg.append(tx); };
  text(0, "0", "start");
  text(W, String(n - 1), "end");
  text(W / 2, t("distCaption", fmt(dist.mean, 2), fmt(dist.sd, 2)), "middle");
  const box = el("div", { "data-mean": String(dist.mean) });
  box.append(svg);
  return box;
}

// ------------------------------------------------------------------ keys

function onKey(ev) {
  const target = ev.target;
  const typing = target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA");
  if (ev.key === "Escape" && $("help").open) { $("help").close(); return; }
  if (typing || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (ev.key === "?") { ev.preventDefault(); toggleHelp(); return; }
  if (target && target.getAttribute && target.getAttribute("role") === "tab" && (ev.key === "ArrowLeft" || ev.key === "ArrowRight")) {
    const tabs = [...document.querySelectorAll("[role=tab]:not(:disabled)")];
    const i = tabs.indexOf(target) + (ev.key === "ArrowRight" ? 1 : -1);
    const next = tabs[(i + tabs.length) % tabs.length];
    next.focus(); next.click(); ev.preventDefault();
    return;
  }
  if (state.mode === "advise" || $("play").hidden) return;
  const s = state.play;
  if (!s) return;
  const k = ev.key.toLowerCase();
  if (/^[1-9]$/.test(k) && s.dice && selectable(s)) {
    const i = Number(k) - 1;
    if (i < s.dice.length) { ev.preventDefault(); toggleHold(i); }
    return;
  }
  if (k === " " || k === "r") {
    if (target && target.tagName === "BUTTON" && k === " ") return; // Space presses the focused button
    const b = $("throw") || $("their-turn");
    if (b && !b.disabled) { ev.preventDefault(); b.click(); }
    return;
  }
  if (k === "t") { const b = $("their-turn"); if (b) { ev.preventDefault(); b.click(); } return; }
  if (k === "u") { ev.preventDefault(); $("undo").click(); return; }
  if (k === "b" && openMode()) { const b = $("best"); if (b) { ev.preventDefault(); b.click(); } return; }
  const opts = [...document.querySelectorAll("#play-table button.opt")];
  if (k === "arrowdown" || k === "arrowup") {
    if (!opts.length) return;
    ev.preventDefault();
    const i = opts.indexOf(document.activeElement);
    const j = i < 0 ? 0 : Math.max(0, Math.min(opts.length - 1, i + (k === "arrowdown" ? 1 : -1)));
    opts[j].focus();
    return;
  }
  // Enter is the focused control's own: with nothing focused it plays nothing
}

function toggleHelp() {
  const d = $("help");
  if (d.open) d.close(); else d.showModal();
}

// ------------------------------------------------------------------ start

function readUrl() {
  const q = new URL(location.href).searchParams;
  return Object.fromEntries(q.entries());
}

function applyUrlValues(q) {
  // Settings and rules options named in the address (e.g. &seed=3&turns=2&goal=500).
  for (const [k, v] of Object.entries(q)) {
    for (const id of [`set-${k}`, `rule-${k}`]) { const e = $(id); if (e) e.value = v; }
  }
}

function chooseLanguage(q) {
  const saved = (() => { try { return localStorage.getItem("jaxsolve-lang"); } catch { return null; } })();
  const asked = q.lang || saved || (navigator.language || "en").slice(0, 2);
  state.lang = WORDS[asked] ? asked : "en";
  $("lang").value = state.lang;
}

function setLanguage(lang) {
  state.lang = lang;
  try { localStorage.setItem("jaxsolve-lang", lang); } catch { /* private mode */ }
  translateStatic();
  for (const o of $("game").options) { const g = state.games.find((x) => x.name === o.value); if (g) o.textContent = displayWords(g); }
  const g = currentGame();
  if (g) {
    $("game-title").textContent = gameWords(g);
    for (const o of $("preset").options) o.textContent = presetWords(o.value);
    const keep = { rules: values($("rules-options")), set: values($("play-fields")) };
    $("rules-options").replaceChildren(...g.rules_options.map((p) => field(p, "rule")));
    $("play-fields").replaceChildren(...(g.play || []).map((p) => field(p, "set")));
    for (const [k, v] of Object.entries(keep.rules)) $(`rule-${k}`).value = String(v);
    for (const [k, v] of Object.entries(keep.set)) $(`set-${k}`).value = String(v);
    oneOpponent();
    checkCached();
    buildAdvisor();
    $("advice").hidden = true;
  }
  state.said = new Map();
  if (state.play) showGame(state.play);
}

async function start() {
  const q = readUrl();
  chooseLanguage(q);
  translateStatic();
  state.games = await api("GET", "/api/games");
  $("game").replaceChildren(...state.games.map((g) => el("option", { value: g.name, text: displayWords(g) })));
  $("game").addEventListener("change", () => guarded(async () => chooseGame($("game").value)));
  $("preset").addEventListener("change", () => { $("advice").hidden = true; buildAdvisor(); writeUrl(); checkCached(); });
  $("cache-warm").addEventListener("click", warmTable);
  for (const tab of document.querySelectorAll("[role=tab]")) tab.addEventListener("click", () => setMode(tab.dataset.mode));
  $("advise-form").addEventListener("submit", (ev) => guarded(() => advise(ev)));
  $("play-form").addEventListener("submit", (ev) => guarded(() => newGame(ev)));
  $("typed-form").addEventListener("submit", (ev) => { ev.preventDefault(); guarded(async () => { await move({ throw: $("typed").value }); $("typed").value = ""; }, "typed"); });
  $("undo").addEventListener("click", () => guarded(undo));
  $("speed").addEventListener("change", () => state.play && theirTurnSoon(state.play));
  $("lang").addEventListener("change", () => setLanguage($("lang").value));
  $("help-open").addEventListener("click", toggleHelp);
  $("help-close").addEventListener("click", () => $("help").close());
  document.addEventListener("keydown", onKey);
  const game = state.games.some((g) => g.name === q.game) ? q.game : state.games[0].name;
  if (["advise", "play", "quiz"].includes(q.mode)) state.mode = q.mode;
  chooseGame(game, q.rules);
  applyUrlValues(q);
  oneOpponent();
  writeUrl();
  if (q.speed && ["click", "slow", "fast"].includes(q.speed)) $("speed").value = q.speed;
  document.body.dataset.ready = "1";
  if (state.mode !== "advise" && currentGame().play) await newGame();
}

guarded(start);
