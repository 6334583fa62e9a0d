// The replay page: a finished table's record (the server's export, or a file dropped here),
// stepped through move by move from one seat's view or from above, with the move log and the
// score. The record is only given once the game is over, so every hand may then be shown.
//
// A hand's record (GameRecord) holds its deal, so the page deals it again as the engine does
// (new_game(deck=...): 11 cards to each seat, the two extra piles, the first discard where the
// pile starts face up, the stock) and plays each move on it. It trusts the record (the server's
// engine checked every move) and lays melds out as the table page reads them. A match's record
// (MatchRecord) keeps a seed rather than its deals, which only the engine can shuffle: for a
// finished table the server also gives each hand's record (GET .../hands), which the page deals
// and plays in turn; a match's file alone is stepped through without the cards.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const I = window.BURACO_I18N;
  const t = I.t, plural = I.plural;
  const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  const HAND = 11, EXTRA = 11; // every preset (RuleSet.hand_size, extra_pile_size)
  const FACE_UP = ["italian", "italian-fibur"]; // R3: the first discard is dealt face up
  const OPEN_PILE = ["italian", "italian-fibur"]; // R11: the whole pile is seen
  const EXTRA_TO_STOCK = ["buraco-fechado", "canasta-stbl"]; // R15: an extra pile refills the stock
  const STOCK_RESERVE = { "italian-fibur": 2 }; // R21: cards of the stock never drawn
  const TARGET = { "canasta-stbl": 3000, "buraco-fechado": 3000, italian: 2005, "italian-fibur": 2005 }; // R20
  // A record names a preset, or writes a rule set in full (house rules): its fields then.
  const rulesName = (rules) => (rules && typeof rules === "object" ? rules.name : rules);
  function rule(rules, field, preset) {
    return rules && typeof rules === "object" && field in rules ? rules[field] : preset;
  }

  let record = null;
  let states = []; // one position per step (the deal first), for a hand's record
  let step = 0;
  const titles = {}; // variant name: its title, from /api/variants

  // ---- cards and words ------------------------------------------------------------------

  const cardsOf = (text) => (text ? text.split(" ").filter(Boolean) : []);
  const suitOf = (c) => (c === "JK" ? "J" : c.slice(-1));
  const rankOf = (c) => (c === "JK" ? "JK" : c.slice(0, -1));
  const pretty = (c) => (c === "JK" ? "JK" : rankOf(c) + SUITS[suitOf(c)]); // "JK" as the table's log
  const prettyCards = (list) => list.map(pretty).join(" ");
  const wildCapable = (c) => c === "JK" || rankOf(c) === "2";
  function sortKey(c) {
    return c === "JK" ? 99 : "SHDC".indexOf(suitOf(c)) * 20 + RANKS.indexOf(rankOf(c));
  }
  function cardElement(card) {
    const el = document.createElement("span");
    el.className = "card suit-" + suitOf(card);
    el.dataset.card = card;
    el.setAttribute("aria-hidden", "true");
    const rank = document.createElement("span");
    rank.className = "rank";
    rank.textContent = card === "JK" ? "JK" : rankOf(card);
    const suit = document.createElement("span");
    suit.className = "suit";
    suit.textContent = card === "JK" ? "\u2605" : SUITS[suitOf(card)];
    el.append(rank, suit);
    return el;
  }
  function moveWords(action) {
    const w = action.split(" ");
    if (w[0] === "draw") return t("move.draw");
    if (w[0] === "refuse") return t("move.refuse");
    if (w[0] === "take" && w.length === 1) return t("move.take");
    if (w[0] === "take" && w[1] === "meld") return t("move.take.meld", { cards: prettyCards(w.slice(2)) });
    if (w[0] === "take" && w[1] === "add") return t("move.take.add", { cards: prettyCards(w.slice(3)), meld: Number(w[2]) + 1 });
    if (w[0] === "meld") return t("move.meld", { cards: prettyCards(w.slice(1)) });
    if (w[0] === "add") return t("move.add", { cards: prettyCards(w.slice(2)), meld: Number(w[1]) + 1 });
    if (w[0] === "discard") return t("move.discard", { card: prettyCards(w.slice(1)) });
    return action;
  }

  // ---- a hand, dealt and played again --------------------------------------------------

  // A meld's cards in the engine's layout, as a player reads them: a set's naturals then its
  // wildcard; a run ascending, its wildcard in the one gap it fills, else last, or first where
  // the run ends with a high ace (the engine may write it after the ace; it stands below).
  function layout(cards) {
    const naturals = cards.filter((c) => !wildCapable(c));
    if (naturals.length >= 2 && naturals.every((c) => rankOf(c) === rankOf(naturals[0]))) {
      const order = (c) => "CDHS".indexOf(suitOf(c)); // the engine's card order: by id
      return naturals.slice().sort((a, b) => order(a) - order(b)).concat(cards.filter(wildCapable));
    }
    const choices = [-1].concat(cards.map((c, i) => i).filter((i) => wildCapable(cards[i])));
    for (const skip of choices) {
      const rest = cards.filter((c, i) => i !== skip);
      if (rest.includes("JK") || new Set(rest.map(suitOf)).size !== 1) continue;
      for (const aceHigh of [false, true]) {
        const place = (c) => (rankOf(c) === "A" ? (aceHigh ? 14 : 1) : RANKS.indexOf(rankOf(c)) + 1);
        const sorted = rest.slice().sort((a, b) => place(a) - place(b));
        const gaps = [];
        for (let i = 1; i < sorted.length; i++) {
          const step = place(sorted[i]) - place(sorted[i - 1]);
          if (step === 2) gaps.push(i);
          else if (step !== 1) gaps.push(-99);
        }
        if (skip < 0 && gaps.length === 0) return sorted;
        if (skip >= 0 && gaps.length === 0) {
          // Nothing stands above a high ace: the wildcard extends the run below, and is read there.
          const top = aceHigh && rankOf(sorted[sorted.length - 1]) === "A";
          return top ? [cards[skip]].concat(sorted) : sorted.concat([cards[skip]]);
        }
        if (skip >= 0 && gaps.length === 1 && gaps[0] > 0) {
          return sorted.slice(0, gaps[0]).concat([cards[skip]], sorted.slice(gaps[0]));
        }
      }
    }
    return cards.slice();
  }

  function takeOut(hand, cards) {
    for (const card of cards) {
      const at = hand.indexOf(card);
      if (at >= 0) hand.splice(at, 1);
    }
  }

  function deal(rec) {
    const deck = cardsOf(rec.deck);
    const players = rec.players;
    const hands = [];
    const size = rule(rec.rules, "hand_size", HAND), extras = rule(rec.rules, "extra_pile_size", EXTRA);
    let at = 0;
    for (let s = 0; s < players; s++, at += size) hands.push(deck.slice(at, at + size));
    const extra = [deck.slice(at, at + extras), deck.slice(at + extras, at + 2 * extras)];
    at += 2 * extras;
    const faceUp = rule(rec.rules, "discard_pile_starts_face_up", FACE_UP.includes(rulesName(rec.rules)));
    const pile = faceUp ? [deck[at++]] : [];
    return { hands: hands, extra: extra, taken: [false, false], stock: deck.slice(at), pile: pile, melds: [[], []], current: rec.first_player || 0, move: null };
  }

  function play(state, action, rules) {
    const s = JSON.parse(JSON.stringify(state));
    const seat = s.current, team = seat % 2;
    const hand = s.hands[seat];
    const w = action.split(" ");
    s.move = { seat: seat, action: action };
    if (w[0] === "draw") {
      if (s.stock.length) hand.push(s.stock.shift());
    } else if (w[0] === "take") {
      hand.push(...s.pile);
      s.pile = [];
      if (w[1] === "meld") {
        takeOut(hand, w.slice(2));
        s.melds[team].push(layout(w.slice(2)));
      } else if (w[1] === "add") {
        takeOut(hand, w.slice(3));
        const i = Number(w[2]);
        s.melds[team][i] = layout(s.melds[team][i].concat(w.slice(3)));
      }
    } else if (w[0] === "meld") {
      takeOut(hand, w.slice(1));
      s.melds[team].push(layout(w.slice(1)));
    } else if (w[0] === "add") {
      takeOut(hand, w.slice(2));
      const i = Number(w[1]);
      s.melds[team][i] = layout(s.melds[team][i].concat(w.slice(2)));
    } else if (w[0] === "discard") {
      takeOut(hand, w.slice(1));
      s.pile.push(w[1]);
      s.current = (seat + 1) % s.hands.length;
    }
    if (!hand.length && s.extra[team] && !s.taken[team]) {
      // R12: a hand emptied while the team's extra pile waits picks it up
      s.hands[seat] = s.extra[team];
      s.extra[team] = null;
      s.taken[team] = true;
    }
    const name = rulesName(rules);
    const reserve = rule(rules, "stock_reserve", STOCK_RESERVE[name] || 0);
    if (w[0] === "discard" && s.stock.length <= reserve && rule(rules, "extra_pile_becomes_stock", EXTRA_TO_STOCK.includes(name))) {
      // R15: as the turn passes, an extra pile left becomes the stock, the next player's team's
      // first, its first card drawn first (above the cards never drawn, R21)
      const next = s.current % 2;
      for (const k of [next, 1 - next]) {
        if (s.extra[k]) {
          s.stock = s.extra[k].concat(s.stock);
          s.extra[k] = null;
          break;
        }
      }
    }
    return s;
  }

  // ---- loading -----------------------------------------------------------------------------

  function fail(key) {
    $("replay-error").textContent = t(key);
    $("replay-error").hidden = false;
  }

  function open(data) {
    if (!data || (data.type !== "record" && data.type !== "match-record") || !Array.isArray(data.actions) || !(data.players === 2 || data.players === 4)) {
      fail("replay.bad");
      return;
    }
    if (data.actions.some((a) => typeof a !== "string")) {
      fail("replay.bad");
      return;
    }
    $("replay-error").hidden = true;
    record = data;
    states = [];
    if (data.type === "record" && typeof data.deck === "string") states = playHands([data], data.actions) || [];
    step = 0; // the deal first: a replay is read from its start
    const from = $("from");
    from.textContent = "";
    const choices = [["above", t("replay.above")]];
    for (let s = 0; s < data.players; s++) choices.push([String(s), t("replay.seat", { seat: s + 1 }) + (data.names && data.names[s] ? " \u00b7 " + data.names[s] : "")]);
    for (const [value, text] of choices) {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = text;
      from.append(option);
    }
    $("open").hidden = true;
    $("replay").hidden = false;
    draw();
  }

  // The positions of hands played one after the other (a match's, from each hand's record):
  // the first deal, then one position a move; null unless their moves are the ``actions``.
  function playHands(hands, actions) {
    let all = [];
    let k = 0;
    hands.forEach((hand, h) => {
      if (!all || !hand || hand.type !== "record" || typeof hand.deck !== "string" || !Array.isArray(hand.actions)) {
        all = null;
        return;
      }
      let state = deal(hand);
      state.hand = h + 1; // which hand, and the move's number in it (people count from 1)
      state.index = 0;
      if (!all.length) all.push(state);
      for (const [i, action] of hand.actions.entries()) {
        if (actions[k++] !== action) {
          all = null;
          return;
        }
        state = play(state, action, hand.rules);
        state.hand = h + 1;
        state.index = i + 1;
        all.push(state);
      }
    });
    if (!all) return null;
    return k === actions.length ? all : null;
  }

  async function fetchRecord(table, token) {
    let response;
    try {
      response = await fetch("api/tables/" + encodeURIComponent(table) + "/record", {
        headers: { Authorization: "Bearer " + token }, // never in the address: no log sees it
      });
    } catch (error) {
      fail("replay.bad");
      return;
    }
    if (response.status === 409) return fail("replay.notover");
    if (response.status === 401 || response.status === 404) return fail("replay.badtoken");
    if (!response.ok) return fail("replay.bad");
    const data = await response.json();
    open(data);
    if (data.type !== "match-record") return;
    // A match: its hands' records, dealt and played here, show the cards of every move.
    try {
      const answer = await fetch("api/tables/" + encodeURIComponent(table) + "/hands", {
        headers: { Authorization: "Bearer " + token },
      });
      const played = answer.ok ? playHands(await answer.json(), data.actions) : null;
      if (played && record === data) {
        states = played;
        draw();
      }
    } catch (error) {
      // the moves and scores stay, without the cards
    }
  }

  function fromLink(text) {
    let params;
    try {
      params = new URLSearchParams(new URL(text, location.href).hash.slice(1));
    } catch (error) {
      return null;
    }
    const table = params.get("table"), token = params.get("token");
    return table && token ? { table: table, token: token } : null;
  }

  function readFile(file) {
    const reader = new FileReader();
    reader.onload = () => {
      try {
        open(JSON.parse(String(reader.result)));
      } catch (error) {
        fail("replay.bad");
      }
    };
    reader.readAsText(file);
  }

  // ---- drawing --------------------------------------------------------------------------------

  function cardsRow(cards, label) {
    const row = document.createElement("div");
    row.className = "cards replay-cards";
    row.setAttribute("role", "img");
    row.setAttribute("aria-label", label + ": " + (cards.length ? prettyCards(cards) : t("pile.empty")));
    for (const card of cards) row.append(cardElement(card));
    return row;
  }

  function draw() {
    const total = record.actions.length;
    const name = rulesName(record.rules);
    const key = "variant." + name; // as the lobby and the table name it
    $("replay-heading").textContent = (t(key) !== key ? t(key) : titles[name] || name) + " \u00b7 " + plural("players.count", record.players) + (record.meta && record.meta.table ? " \u00b7 " + record.meta.table : "");
    const here = states[step];
    const many = record.type === "match-record" && here && here.hand;
    $("step").textContent = many ? t("replay.step.hand", { hand: here.hand, n: here.index, total: handStart(here.hand + 1) - handStart(here.hand) }) : t("replay.step", { n: step, total: total });
    // Without the cards (a match's file alone) there is no seat to see them from.
    $("from").closest("label").hidden = !states.length;
    $("step").dataset.step = String(step);
    const focused = document.activeElement;
    $("first").disabled = $("prev").disabled = step === 0;
    $("next").disabled = $("last").disabled = step === total;
    // A button that has the focus and is now disabled would leave a keyboard (and a screen
    // reader) nowhere: the focus moves to the way that is still open.
    if (focused && focused.disabled) {
      const open = [$("next"), $("prev")].find((button) => !button.disabled);
      if (open) open.focus();
    }
    $("next").classList.toggle("primary", step < total); // nothing to go forward to at the end
    const from = $("from").value;
    const box = $("position");
    box.textContent = "";
    const state = states[step];
    if (state) {
      const bar = document.createElement("p");
      bar.id = "replay-turn";
      bar.textContent = t("stock.label", { count: plural("cards", state.stock.length) });
      box.append(bar);
      const open = !rule(record.rules, "closed_discard_pile", !OPEN_PILE.includes(rulesName(record.rules)));
      const shownPile = open ? state.pile : state.pile.slice(-1);
      const pileHead = document.createElement("h3");
      pileHead.textContent = t("replay.pile", { count: plural("cards", state.pile.length) });
      const pile = cardsRow(shownPile, pileHead.textContent);
      pile.id = "replay-pile";
      box.append(pileHead, pile);
      if (state.move) {
        const lastMove = document.createElement("p");
        lastMove.id = "replay-move";
        lastMove.textContent = t("move.line", { seat: t("replay.seat", { seat: state.move.seat + 1 }), move: moveWords(state.move.action) });
        box.prepend(lastMove);
      }
      for (let s = 0; s < record.players; s++) {
        const line = document.createElement("div");
        line.className = "replay-seat";
        line.dataset.seat = String(s);
        const name = document.createElement("h3");
        name.textContent = t("replay.seat", { seat: s + 1 }) + ": " + plural("cards", state.hands[s].length);
        line.append(name);
        if (from === "above" || Number(from) === s) {
          const hand = state.hands[s].slice().sort((a, b) => sortKey(a) - sortKey(b));
          const row = cardsRow(hand, t("replay.seat", { seat: s + 1 }));
          row.dataset.cards = hand.join(" ");
          line.append(row);
        }
        box.append(line);
      }
      for (const team of [0, 1]) {
        const melds = document.createElement("div");
        melds.className = "team replay-melds";
        melds.dataset.team = String(team);
        const head = document.createElement("h3");
        head.textContent = t("replay.melds", { team: team + 1 });
        melds.append(head);
        state.melds[team].forEach((meld, i) => {
          const row = cardsRow(meld, t("meld.label", { index: i + 1, cards: "" }).replace(/:\s*$/, ""));
          row.classList.add("meld");
          row.dataset.cards = meld.join(" ");
          melds.append(row);
        });
        box.append(melds);
      }
    }
    // The log, newest first, up to this step.
    const log = $("log");
    log.textContent = "";
    // A match's moves, hand by hand where the hands' records are in (the moves of the step's
    // hand, numbered in it); a match's file alone does not say where its hands end or who moved:
    // its moves go numbered over the match, without their seat.
    const hand = here && here.hand;
    const first = hand ? handStart(hand) : 0;
    $("log-heading").textContent = !states.length && record.type === "match-record" ? t("replay.log.match") : t("log.title");
    for (let k = step - 1; k >= first; k--) {
      const action = record.actions[k];
      const item = document.createElement("li");
      item.value = k + 1 - first;
      item.dataset.action = action;
      item.className = "move-line" + (k === step - 1 ? " recent" : "");
      const move = states[k + 1] && states[k + 1].move;
      if (move) {
        item.dataset.seat = String(move.seat);
        item.textContent = t("move.line", { seat: t("replay.seat", { seat: move.seat + 1 }), move: moveWords(action) });
      } else item.textContent = moveWords(action); // the list numbers it
      log.append(item);
    }
    drawScores();
  }

  // The step before the first move of hand ``hand`` (the number of moves of the hands before it).
  function handStart(hand) {
    for (let k = 1; k < states.length; k++) if (states[k].hand === hand) return k - 1;
    return hand > 1 ? states.length - 1 : 0; // after the last hand: every move
  }

  function drawScores() {
    const table = $("replay-scores");
    table.textContent = "";
    const scores = record.type === "record" ? (record.scores ? [record.scores] : []) : record.scores || [];
    const header = document.createElement("tr");
    const running = record.type === "match-record";
    const heads = running ? [t("end.hand"), t("replay.team", { team: 1 }), t("end.running"), t("replay.team", { team: 2 }), t("end.running")] : [t("end.hand"), t("replay.team", { team: 1 }), t("replay.team", { team: 2 })];
    for (const text of heads) {
      const th = document.createElement("th");
      th.scope = "col";
      th.textContent = text;
      header.append(th);
    }
    table.append(header);
    const totals = [0, 0];
    scores.forEach((pair, i) => {
      const tr = document.createElement("tr");
      tr.dataset.hand = String(i + 1);
      const th = document.createElement("th");
      th.scope = "row";
      th.textContent = t("replay.hand", { hand: i + 1 });
      tr.append(th);
      pair.forEach((team, k) => {
        const points = team.total !== undefined ? team.total : team.table + team.canastas + team.going_out - team.hands - team.extra_pile;
        totals[k] += points;
        for (const value of running ? [points, totals[k]] : [points]) {
          const td = document.createElement("td");
          td.textContent = String(value);
          tr.append(td);
        }
      });
      table.append(tr);
    });
    // A match's winner (R20): the higher total once one has reached the target.
    const result = $("replay-result");
    const target = rule(record.rules, "match_target", TARGET[rulesName(record.rules)]);
    const over = running && scores.length && totals[0] !== totals[1] && Math.max(totals[0], totals[1]) >= target;
    result.hidden = !over;
    result.textContent = over ? t("replay.winner", { team: t("replay.team", { team: totals[0] > totals[1] ? 1 : 2 }), a: Math.max(...totals), b: Math.min(...totals) }) : "";
  }

  function go(to) {
    if (!record) return;
    step = Math.max(0, Math.min(record.actions.length, to));
    draw();
  }

  // ---- start ----------------------------------------------------------------------------------

  fetch("api/variants")
    .then((response) => response.json())
    .then((list) => {
      for (const v of list) titles[v.name] = v.title;
      if (record) draw();
    })
    .catch(() => undefined); // the names then
  I.languageSwitch($("lang"), () => record && draw());
  I.translatePage();
  $("link-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const seat = fromLink($("seat-link").value.trim());
    if (!seat) return fail("replay.badtoken");
    fetchRecord(seat.table, seat.token);
  });
  $("file").addEventListener("change", () => $("file").files[0] && readFile($("file").files[0]));
  const drop = $("drop");
  drop.addEventListener("dragover", (event) => event.preventDefault());
  document.body.addEventListener("dragover", (event) => event.preventDefault());
  document.body.addEventListener("drop", (event) => {
    event.preventDefault();
    const file = event.dataTransfer && event.dataTransfer.files[0];
    if (file) readFile(file);
  });
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(step - 1));
  $("next").addEventListener("click", () => go(step + 1));
  $("last").addEventListener("click", () => go(Infinity));
  $("from").addEventListener("change", draw);
  document.addEventListener("keydown", (event) => {
    if (!record || (event.target && /^(INPUT|SELECT|TEXTAREA)$/.test(event.target.tagName))) return;
    if (event.key === "ArrowLeft") go(step - 1);
    else if (event.key === "ArrowRight") go(step + 1);
  });
  // From the table page ("Replay this table"): this tab's seat opens its table's record.
  const wanted = new URLSearchParams(location.hash.slice(1)).get("table");
  if (wanted) {
    try {
      const kept = JSON.parse(sessionStorage.getItem("buraco-seat") || "null");
      if (kept && kept.table === wanted && typeof kept.token === "string") fetchRecord(kept.table, kept.token);
    } catch (error) {
      // no seat kept here: the form stays
    }
  }
  // For the tests: the positions the page deals and plays from hands' records.
  window.BURACO_REPLAY = Object.freeze({ playHands: playHands });
})();
