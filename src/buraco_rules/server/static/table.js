// The buraco-rules table: one seat's view, drawn from the messages of the /ws WebSocket.
// Everything shown comes from the seat's own view message; the moves offered are the legal
// moves the server lists, so the page never decides what is legal.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  const SUIT_ORDER = "SHDC";
  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  const BOTS = ["greedy", "random", "montecarlo"];

  let socket = null;
  let join = null; // {table, token}
  let welcome = null;
  let last = null; // the last view message
  let nextSeq = 1;
  let pending = null; // {seq, action}: sent, not yet answered
  let selected = new Set(); // indices into the sorted hand
  let retry = 0;

  // ---- cards ---------------------------------------------------------------------------

  function cardsOf(text) {
    return text ? text.split(" ").filter(Boolean) : [];
  }
  function suitOf(card) {
    return card === "JK" ? "J" : card.slice(-1);
  }
  function rankOf(card) {
    return card === "JK" ? "JK" : card.slice(0, -1);
  }
  function sortKey(card) {
    if (card === "JK") return 99;
    return SUIT_ORDER.indexOf(suitOf(card)) * 20 + RANKS.indexOf(rankOf(card));
  }
  function sortedHand(cards) {
    return cards.slice().sort((a, b) => sortKey(a) - sortKey(b));
  }
  function pretty(card) {
    return card === "JK" ? "\u2605" : rankOf(card) + SUITS[suitOf(card)];
  }
  function cardElement(card, tag) {
    const el = document.createElement(tag || "span");
    el.className = "card suit-" + suitOf(card);
    el.dataset.card = card;
    const rank = document.createElement("span");
    rank.className = "rank";
    rank.textContent = card === "JK" ? "JK" : rankOf(card);
    const suit = document.createElement("span");
    suit.className = "suit";
    suit.textContent = card === "JK" ? "\u2605" : SUITS[suitOf(card)];
    el.append(rank, suit);
    el.title = card === "JK" ? "Joker" : pretty(card);
    return el;
  }
  function sameCards(a, b) {
    if (a.length !== b.length) return false;
    const x = a.slice().sort(), y = b.slice().sort();
    return x.every((c, i) => c === y[i]);
  }
  function prettyAction(text) {
    return text.split(" ").map((w) => (/^(10|[2-9AJQK])[SHDC]$|^JK$/.test(w) ? pretty(w) : w)).join(" ");
  }

  // ---- the lobby -----------------------------------------------------------------------

  let variants = {}; // name: the player counts, from /api/variants

  async function loadVariants() {
    try {
      const response = await fetch("api/variants");
      for (const v of await response.json()) variants[v.name] = v;
    } catch (error) {
      return; // the form still works with the built-in choices
    }
    const select = $("variant");
    select.textContent = "";
    for (const v of Object.values(variants)) {
      const option = document.createElement("option");
      option.value = v.name;
      option.textContent = v.title;
      select.append(option);
    }
    select.value = "canasta-stbl";
    playerChoices();
  }

  function playerChoices() {
    const v = variants[$("variant").value];
    if (!v) return;
    const select = $("players");
    const old = Number(select.value);
    select.textContent = "";
    for (const n of v.players) {
      const option = document.createElement("option");
      option.value = String(n);
      option.textContent = String(n);
      select.append(option);
    }
    select.value = String(v.players.includes(old) ? old : v.players[0]);
    seatChoices();
  }

  function seatChoices() {
    const players = Number($("players").value);
    const box = $("seat-kinds");
    const old = Array.from(box.querySelectorAll("select")).map((s) => s.value);
    box.textContent = "";
    for (let seat = 0; seat < players; seat++) {
      const label = document.createElement("label");
      label.textContent = "Seat " + seat + (seat % 2 === 0 ? " (team 0)" : " (team 1)") + " ";
      const select = document.createElement("select");
      select.id = "seat-kind-" + seat;
      select.dataset.seat = String(seat);
      for (const kind of ["human", ...BOTS]) {
        const option = document.createElement("option");
        option.value = kind;
        option.textContent = kind === "human" ? "a person" : "bot: " + kind;
        select.append(option);
      }
      select.value = old[seat] || (seat === 0 ? "human" : "greedy");
      label.append(select);
      box.append(label);
    }
  }

  async function createTable(event) {
    event.preventDefault();
    const seats = Array.from($("seat-kinds").querySelectorAll("select")).map((s) => s.value);
    const request = {
      variant: $("variant").value,
      players: Number($("players").value),
      seats: seats,
      match: $("match").checked,
    };
    $("create-error").hidden = true;
    let answer;
    try {
      const response = await fetch("api/tables", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(request),
      });
      answer = await response.json();
      if (!response.ok) throw new Error(answer.message || response.statusText);
    } catch (error) {
      $("create-error").textContent = String(error.message || error);
      $("create-error").hidden = false;
      return;
    }
    const list = $("links");
    list.textContent = "";
    for (const seat of answer.seats) {
      const item = document.createElement("li");
      item.dataset.seat = String(seat.seat);
      if (seat.kind !== "human") {
        item.textContent = "Seat " + seat.seat + ": bot " + seat.bot;
      } else {
        const url = location.origin + seat.link;
        item.append("Seat " + seat.seat + ": ");
        const link = document.createElement("input");
        link.readOnly = true;
        link.value = url;
        link.className = "link";
        link.id = "link-" + seat.seat;
        link.addEventListener("focus", () => link.select());
        const open = document.createElement("a");
        open.href = seat.link;  // same origin: the page of this server
        open.textContent = "play this seat";
        open.className = "play";
        open.id = "play-" + seat.seat;
        item.append(link, " ", open);
      }
      list.append(item);
    }
    $("created").hidden = false;
  }

  // ---- the connection ------------------------------------------------------------------

  function readHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    const token = params.get("token");
    return token ? { table: params.get("table"), token: token } : null;
  }

  function setConn(state, text) {
    $("conn").dataset.state = state;
    $("conn").textContent = text;
  }

  function connect() {
    // Relative to the page, so that the server works mounted under a path too.
    const url = new URL("ws", location.href);
    url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    url.hash = "";
    socket = new WebSocket(url.href);
    setConn("connecting", "connecting\u2026");
    socket.onopen = () => {
      // The token travels in the first message, never in a URL: it reaches no access log.
      socket.send(JSON.stringify({ type: "join", token: join.token, table: join.table }));
    };
    socket.onmessage = (event) => receive(JSON.parse(event.data));
    socket.onclose = (event) => {
      socket = null;
      if (event.code === 1008 && welcome === null) {
        setConn("closed", "refused");
        return; // a bad token: retrying cannot help
      }
      setConn("closed", "reconnecting\u2026");
      retry = Math.min(retry + 1, 6);
      setTimeout(connect, 250 * 2 ** retry);
    };
  }

  function send(action) {
    if (!socket || socket.readyState !== WebSocket.OPEN || pending) return;
    pending = { seq: nextSeq, action: action };
    socket.send(JSON.stringify({ type: "move", seq: pending.seq, action: action }));
    setControlsBusy();
  }

  function receive(message) {
    switch (message.type) {
      case "welcome":
        welcome = message;
        retry = 0;
        setConn("open", "connected");
        $("title").textContent = message.title + (message.match ? ", a match" : ", one hand");
        nextSeq = message.next_seq;
        if (pending && pending.seq < nextSeq) pending = null; // it was played before the break
        if (pending) socket.send(JSON.stringify({ type: "move", seq: pending.seq, action: pending.action }));
        break;
      case "view":
        nextSeq = Math.max(nextSeq, message.next_seq);
        last = message;
        render(message);
        break;
      case "accepted":
        if (pending && pending.seq === message.seq) {
          nextSeq = message.seq + 1;
          pending = null;
          selected.clear();
          showMessage("", "");
        }
        break;
      case "refused":
        if (pending && pending.seq === message.seq) pending = null;
        showMessage(message.message, message.code);
        if (last) render(last);
        break;
      case "error":
        if (message.next_seq) nextSeq = message.next_seq;
        pending = null;
        showMessage(message.message, message.code);
        if (last) render(last);
        break;
    }
  }

  function showMessage(text, code) {
    const box = $("message");
    box.textContent = text;
    box.dataset.code = code || "";
    box.className = code ? "refused" : "";
  }

  // ---- drawing the table ---------------------------------------------------------------

  function seatName(message, seat) {
    const info = message.seats[seat];
    if (seat === message.seat) return "You (seat " + seat + ")";
    if (info.kind === "bot") return "Seat " + seat + " \u00b7 bot " + info.bot;
    return "Seat " + seat + (seat % 2 === message.seat % 2 ? " \u00b7 partner" : "");
  }

  function render(message) {
    const view = message.view;
    const seat = message.seat;
    const us = seat % 2, them = 1 - us;
    $("lobby").hidden = true;
    $("table").hidden = false;
    $("table").dataset.number = String(message.number);
    $("table").dataset.seat = String(seat);
    document.body.dataset.over = String(message.over);

    // Whose turn, and the phase.
    const turn = $("turn");
    turn.dataset.current = String(view.current_player);
    if (message.over) turn.textContent = "The game is over";
    else if (view.current_player === seat) turn.textContent = "Your turn";
    else turn.textContent = seatName(message, view.current_player) + " to play";
    turn.className = !message.over && view.current_player === seat ? "mine" : "";
    $("phase").textContent = message.over ? "" : view.phase === "draw" ? "draw or take" : view.phase === "play" ? "meld, then discard" : "";
    const totals = $("match-totals");
    if (message.match) {
      totals.hidden = false;
      totals.textContent = "Hand " + message.match.hand + " \u00b7 match " + message.match.totals[us] + " to " + message.match.totals[them] + " (target " + message.match.target + ")";
    }

    // The seats, with their hand sizes.
    const seats = $("seats");
    seats.textContent = "";
    view.hand_sizes.forEach((size, i) => {
      const el = document.createElement("span");
      el.className = "seat" + (i === view.current_player && !message.over ? " current" : "") + (i % 2 === us ? " ours" : " theirs");
      el.id = "seat-" + i;
      el.dataset.seat = String(i);
      el.dataset.handSize = String(size);
      el.textContent = seatName(message, i) + ": " + size + " cards";
      seats.append(el);
    });

    // Melds, both teams.
    drawMelds($("melds-us"), view.melds[us], us, message);
    drawMelds($("melds-them"), view.melds[them], them, message);
    const points = message.points;
    $("points-us").textContent = points[us] ? points[us] + " on the table" : "";
    $("points-them").textContent = points[them] ? points[them] + " on the table" : "";

    // Stock, pile and the extra piles.
    $("stock").dataset.count = String(view.stock_size);
    $("stock-count").textContent = String(view.stock_size);
    const pile = $("pile");
    pile.dataset.count = String(view.discard_pile_size);
    pile.dataset.cards = view.discard_pile;
    $("pile-count").textContent = String(view.discard_pile_size);
    $("pile-closed").hidden = !(view.discard_pile_size > cardsOf(view.discard_pile).length);
    const pileCards = $("pile-cards");
    pileCards.textContent = "";
    for (const card of cardsOf(view.discard_pile)) pileCards.append(cardElement(card));
    const extra = $("extra");
    extra.textContent = "";
    view.extra_pile_sizes.forEach((size, team) => {
      const el = document.createElement("span");
      el.className = "extra-pile";
      el.dataset.team = String(team);
      el.dataset.size = size === null ? "" : String(size);
      const whose = team === us ? "Your" : "Their";
      el.textContent = whose + " extra pile: " + (size === null ? (view.extra_pile_taken[team] ? "taken" : "gone") : size + " cards");
      extra.append(el);
    });

    // The last move.
    const lastMove = $("last");
    lastMove.textContent = message.last ? seatName(message, message.last.seat) + ": " + prettyAction(message.last.action) : "";

    // The hand, sorted; the selection survives a redraw when the hand is unchanged.
    const hand = sortedHand(cardsOf(view.hand));
    const box = $("hand");
    if (box.dataset.cards !== hand.join(" ")) selected.clear();
    box.dataset.cards = hand.join(" ");
    box.dataset.size = String(hand.length);
    box.textContent = "";
    hand.forEach((card, i) => {
      const el = cardElement(card, "button");
      el.dataset.i = String(i);
      el.type = "button";
      if (selected.has(i)) el.classList.add("selected");
      el.addEventListener("click", () => {
        if (selected.has(i)) selected.delete(i);
        else selected.add(i);
        render(last);
      });
      box.append(el);
    });

    drawControls(message, hand);
    drawScore(message);
  }

  function drawMelds(box, melds, team, message) {
    box.textContent = "";
    box.dataset.count = String(melds.length);
    if (!melds.length) {
      const none = document.createElement("span");
      none.className = "none";
      none.textContent = "no melds yet";
      box.append(none);
    }
    melds.forEach((meld, index) => {
      const el = document.createElement("div");
      el.className = "meld";
      el.id = "meld-" + team + "-" + index;
      el.dataset.team = String(team);
      el.dataset.index = String(index);
      el.dataset.cards = meld;
      const cards = cardsOf(meld);
      if (cards.length >= 7) el.classList.add("canasta");
      for (const card of cards) el.append(cardElement(card));
      const label = document.createElement("span");
      label.className = "meld-index";
      label.textContent = String(index);
      el.prepend(label);
      if (team === message.seat % 2) el.addEventListener("click", () => addTo(index));
      box.append(el);
    });
  }

  function selectedCards() {
    const hand = sortedHand(cardsOf(last.view.hand));
    return Array.from(selected).sort((a, b) => a - b).map((i) => hand[i]);
  }

  // The legal move that plays the selected cards in the way a button names, or null.
  function findMove(kind, index) {
    const chosen = selectedCards();
    const top = cardsOf(last.view.discard_pile).slice(-1);
    for (const action of last.legal) {
      const words = action.split(" ");
      if (kind === "meld" && words[0] === "meld" && sameCards(words.slice(1), chosen)) return action;
      if (kind === "discard" && words[0] === "discard" && chosen.length === 1 && words[1] === chosen[0]) return action;
      if (kind === "add" && words[0] === "add" && words[1] === String(index) && sameCards(words.slice(2), chosen)) return action;
      if (kind === "take") {
        if (action === "take" && chosen.length === 0) return action;
        if (words[0] === "take" && words[1] === "meld" && sameCards(words.slice(2), chosen.concat(top))) return action;
      }
      if (kind === "take-add" && words[0] === "take" && words[1] === "add" && words[2] === String(index) && sameCards(words.slice(3), chosen.concat(top))) return action;
    }
    return null;
  }

  function addTo(index) {
    if (!last || !last.legal.length) return;
    const action = findMove("add", index) || findMove("take-add", index);
    if (action) send(action);
    else showMessage("Select the cards to add to meld " + index + " first (with the pile's top card when you take it).", "page-hint");
  }

  function drawControls(message, hand) {
    const legal = message.legal;
    const mine = legal.length > 0 && !pending;
    const has = (word) => legal.some((a) => a.split(" ")[0] === word);
    const buttons = {
      "btn-draw": mine && legal.includes("draw"),
      "btn-take": mine && has("take"),
      "btn-meld": mine && has("meld") && selected.size > 0,
      "btn-discard": mine && has("discard") && selected.size === 1,
      "btn-clear": selected.size > 0,
    };
    for (const [id, on] of Object.entries(buttons)) $(id).disabled = !on;
    let hint = "";
    if (message.over) hint = "";
    else if (!legal.length) hint = "Waiting for the other seats\u2026";
    else if (has("draw")) hint = has("take") ? "Draw from the stock, or select cards that meld with the pile's top card and take the pile." : "Draw from the stock.";
    else hint = "Select cards to meld, click one of your melds to add them, or select one card to discard.";
    $("hint").textContent = hint;

    const list = $("moves");
    list.textContent = "";
    $("moves-count").textContent = String(legal.length);
    for (const action of legal) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "move";
      button.dataset.action = action;
      button.textContent = prettyAction(action);
      button.disabled = !mine;
      button.addEventListener("click", () => send(action));
      list.append(button);
    }
  }

  function setControlsBusy() {
    for (const el of document.querySelectorAll("#controls button, #moves button")) el.disabled = true;
  }

  function drawScore(message) {
    const box = $("score");
    if (!message.scores.length) {
      box.hidden = true;
      box.textContent = "";
      return;
    }
    const us = message.seat % 2, them = 1 - us;
    box.hidden = false;
    box.textContent = "";
    const heading = document.createElement("h2");
    const final = message.scores[message.scores.length - 1];
    if (message.match) {
      heading.textContent = message.over ? (message.match.winner === us ? "Your team won the match" : "Their team won the match") : "Hand " + message.scores.length + " is over";
    } else {
      const a = final[us].total, b = final[them].total;
      heading.textContent = "The hand is over: " + (a > b ? "your team wins" : a < b ? "their team wins" : "a tie");
    }
    box.append(heading);
    const table = document.createElement("table");
    table.id = "score-table";
    const rows = [["", "Your team", "Their team"]];
    const items = [["table", "Cards melded"], ["canastas", "Canastas"], ["going_out", "Going out"], ["hands", "Cards in hand"], ["extra_pile", "Extra pile not taken"], ["total", "Total"]];
    for (const [key, name] of items) {
      const sign = key === "hands" || key === "extra_pile" ? -1 : 1;
      rows.push([name, sign * final[us][key], sign * final[them][key], key]);
    }
    rows.forEach((row, r) => {
      const tr = document.createElement("tr");
      if (row[3]) tr.dataset.item = row[3];
      row.slice(0, 3).forEach((cell, c) => {
        const td = document.createElement(r === 0 || c === 0 ? "th" : "td");
        td.textContent = String(cell);
        if (r > 0 && c > 0) td.dataset.team = String(c === 1 ? us : them);
        tr.append(td);
      });
      table.append(tr);
    });
    box.append(table);
    if (!message.over) {
      const note = document.createElement("p");
      note.textContent = "The next hand is dealt.";
      box.append(note);
    } else {
      const again = document.createElement("a");
      again.href = "./";
      again.id = "new-table";
      again.textContent = "New table";
      again.className = "button";
      box.append(again);
    }
  }

  // ---- start ---------------------------------------------------------------------------

  function start() {
    $("players").addEventListener("change", seatChoices);
    $("variant").addEventListener("change", playerChoices);
    loadVariants();
    $("create-form").addEventListener("submit", createTable);
    seatChoices();
    $("btn-draw").addEventListener("click", () => send("draw"));
    $("btn-take").addEventListener("click", () => {
      const action = findMove("take");
      if (action) send(action);
      else showMessage("Select the cards from your hand that meld with the pile's top card, then take.", "page-hint");
    });
    $("btn-meld").addEventListener("click", () => {
      const action = findMove("meld");
      if (action) send(action);
      else send("meld " + selectedCards().join(" ")); // the engine says why it is refused
    });
    $("btn-discard").addEventListener("click", () => {
      const action = findMove("discard");
      send(action || "discard " + selectedCards()[0]);
    });
    $("btn-clear").addEventListener("click", () => {
      selected.clear();
      if (last) render(last);
    });
    window.addEventListener("hashchange", () => location.reload());
    join = readHash();
    if (join) {
      $("lobby").hidden = true;
      connect();
    }
  }

  start();
})();
