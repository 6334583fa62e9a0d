// The buraco-rules table: one seat's view, drawn from the messages of the /ws WebSocket.
// Everything shown comes from the seat's own messages (its view, the public move log); the moves
// offered are the legal moves the server lists, so the page never decides what is legal.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const I = window.BURACO_I18N;
  const t = I.t, plural = I.plural;
  const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  const SUIT_ORDER = "SHDC";
  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  const BOTS = ["greedy", "random", "montecarlo", "ismcts"];
  const CLOCKS = [30, 60, 120, 300];
  // The house rules' kinds (variants.OPTIONS): the control each gets in the lobby. An option the
  // server lists that the page does not know is not offered (the page sends no unknown field).
  const OPTION_KINDS = {
    ace_low_only: "bool",
    minimum_opening: "int",
    closed_take_naturals_only: "bool",
    set_ranks: "text",
    locked_wildcards: "bool",
    opening_thresholds: "pairs",
    long_meld_size: "int",
    long_meld_bonus: "int",
    take_both_extra_piles: "bool",
    first_draw_refusal: "bool",
  };
  // Variants whose pile is taken whole, without a meld (R11): taking it "with naturals only"
  // means nothing there, and the server refuses that option.
  const OPEN_PILE = ["italian", "italian-fibur"];
  // The presets whose pile starts with a card face up (R3) and that allow sets (R5): where a
  // view's rules are a preset's name, not its fields.
  const FACE_UP = ["italian", "italian-fibur"];
  const SETS = ["italian", "italian-fibur"];
  const ITALIAN = ["italian", "italian-fibur"]; // Burraco: the extra pile is the pozzetto
  // The variants that price a semi-clean canasta on its own (RuleSet.canasta_bonuses.semi_clean,
  // R22); elsewhere it scores, and is drawn, as a mixed one.
  const SEMI_CLEAN_PRICED = ["italian-fibur"];
  const STALEMATE_TURNS = 12; // R24 in every preset
  const SEAT_KEY = "buraco-seat"; // sessionStorage: {table, token} of this tab's seat
  const TABLES_KEY = "buraco-tables"; // localStorage: the tables created in this browser

  let socket = null;
  let join = null; // {table, token}
  let welcome = null;
  let last = null; // the last view message
  let previous = null; // the view message before it
  let nextSeq = 1;
  let pending = null; // {seq, action}: sent, not yet answered
  let selected = new Set(); // indices into the sorted hand
  let retry = 0;
  let log = []; // the moves of the hand in play, oldest first: {number, seat, action, hand, pile}
  let logDrawn = null; // what the page's log shows: {log, seat, lang, count}
  let endShown = 0; // how many finished hands' scores the end dialog has shown
  let clockTimer = null;

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
    return card === "JK" ? "JK" : rankOf(card) + SUITS[suitOf(card)]; // "JK" as on the cards
  }
  function prettyCards(cards) {
    return cards.map(pretty).join(" ");
  }
  function cardName(card) {
    if (card === "JK") return t("card.joker");
    const rank = rankOf(card);
    return t("card.label", { rank: /^[AJQK]$/.test(rank) ? t("rank." + rank) : rank, suit: t("suit." + suitOf(card)) });
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
    if (!tag) el.setAttribute("aria-hidden", "true"); // the group around it is labelled
    else {
      // A control: its name is said in words ("7 of spades, selected"), the glyphs are for eyes.
      rank.setAttribute("aria-hidden", "true");
      suit.setAttribute("aria-hidden", "true");
      const name = document.createElement("span");
      name.className = "visually-hidden name";
      el.append(name);
    }
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

  // ---- melds: how a player reads them -------------------------------------------------

  // The engine lays a run out ascending, its wildcard in the gap it fills or, when it stands
  // at an end, last (Meld.cards). Where a run ends on a high ace the end wildcard can only stand
  // below it, so it is drawn first. Returns {cards (reading order), wild (index or -1), kind,
  // canasta ("clean"|"mixed"|"semi"|null)}.
  function position(card, index, size) {
    const rank = rankOf(card);
    if (rank === "A") return index === 0 && size > 1 ? 1 : 14;
    return RANKS.indexOf(rank) + 1;
  }
  function isWildCapable(card) {
    return card === "JK" || rankOf(card) === "2";
  }
  function readMeld(text, variant) {
    const cards = cardsOf(text);
    const naturals = cards.filter((c) => !isWildCapable(c)).map(rankOf);
    const isSet = naturals.length >= 2 && naturals.every((r) => r === naturals[0]);
    let wild = -1;
    if (isSet) {
      wild = cards.findIndex((c) => isWildCapable(c) && rankOf(c) !== naturals[0]);
    } else if (!runFits(cards, -1)) {
      for (let i = cards.length - 1; i >= 0; i--) {
        if (isWildCapable(cards[i]) && runFits(cards, i)) {
          wild = i;
          break;
        }
      }
    }
    let shown = cards;
    if (!isSet && wild === cards.length - 1 && cards.length > 2 && rankOf(cards[wild - 1]) === "A") {
      shown = [cards[wild]].concat(cards.slice(0, -1)); // a high ace: the wildcard stands below
      wild = 0;
    }
    let canasta = null;
    if (cards.length >= 7) {
      if (wild < 0) canasta = "clean";
      else {
        const beside = cards.length >= 8 && (isSet || wild === 0 || wild === cards.length - 1);
        canasta = beside && SEMI_CLEAN_PRICED.includes(variant) ? "semi" : "mixed";
      }
    }
    return { cards: shown, wild: wild, kind: isSet ? "set" : "run", canasta: canasta };
  }
  // Whether cards, without the one at skip (a wildcard: in a gap, or standing at an end), are a
  // run's naturals of one suit in consecutive places (an ace first is low, elsewhere high).
  function runFits(cards, skip) {
    const rest = cards.filter((c, i) => i !== skip);
    if (!rest.length || rest.includes("JK")) return false;
    const suit = suitOf(rest[0]);
    if (rest.some((c) => suitOf(c) !== suit)) return false;
    const inside = skip > 0 && skip < cards.length - 1;
    for (let i = 1; i < rest.length; i++) {
      const step = position(rest[i], i, rest.length) - position(rest[i - 1], i - 1, rest.length);
      const across = inside && i === skip; // rest[i - 1] and rest[i] stand either side of the gap
      if (step !== (across ? 2 : 1)) return false;
    }
    return true;
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
      option.textContent = variantName(v.name, v.title);
      select.append(option);
    }
    select.value = "canasta-stbl";
    playerChoices();
  }

  // A variant's name as players of that language call it, else the server's title.
  function variantName(name, title) {
    const key = "variant." + name;
    return t(key) === key ? title : t(key);
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
    optionChoices();
  }

  // The house rules the server lists for the chosen variant (GET /api/variants), each with its
  // line in the player's language (the server's own line where the catalogue has none).
  function optionChoices() {
    const v = variants[$("variant").value];
    const box = $("house-options");
    const old = {};
    for (const input of box.querySelectorAll("input")) old[input.id] = input.type === "checkbox" ? input.checked : input.value;
    box.textContent = "";
    const offered = Object.keys((v && v.options) || {}).filter(
      (name) => OPTION_KINDS[name] && !(name === "closed_take_naturals_only" && OPEN_PILE.includes(v.name))
    );
    $("house").hidden = offered.length === 0;
    for (const name of offered) {
      const kind = OPTION_KINDS[name];
      const key = "option." + name;
      const line = t(key) === key ? String(v.options[name]) : t(key);
      const label = document.createElement("label");
      label.className = kind === "bool" ? "check option" : "option";
      const input = document.createElement("input");
      input.id = "opt-" + name;
      input.dataset.option = name;
      input.dataset.kind = kind;
      if (kind === "bool") {
        input.type = "checkbox";
        input.checked = Boolean(old[input.id]);
        label.append(input, " ", line);
      } else {
        input.type = kind === "int" ? "number" : "text";
        if (kind === "int") input.min = "0";
        if (kind === "pairs") input.placeholder = "1500:50,3000:90";
        if (kind === "text") input.placeholder = "AK";
        input.value = old[input.id] || "";
        const words = document.createElement("span");
        words.textContent = line;
        label.append(words, " ", input);
      }
      box.append(label);
    }
  }

  // The options filled in, as the server reads them; a value the page cannot read goes as typed,
  // for the server to refuse naming the option.
  function chosenOptions() {
    const options = {};
    for (const input of $("house-options").querySelectorAll("input")) {
      const name = input.dataset.option, kind = input.dataset.kind;
      if (kind === "bool") {
        if (input.checked) options[name] = true;
        continue;
      }
      const text = input.value.trim();
      if (!text) continue;
      if (kind === "int") options[name] = /^\d{1,9}$/.test(text) ? Number(text) : text;
      else if (kind === "pairs") {
        const pairs = text.split(",").map((item) => item.trim().split(":"));
        options[name] = pairs.every((p) => p.length === 2 && /^\d{1,9}$/.test(p[0]) && /^\d{1,9}$/.test(p[1]))
          ? pairs.map((p) => [Number(p[0]), Number(p[1])])
          : text;
      } else options[name] = text.toUpperCase();
    }
    return options;
  }

  // The house rules checked as the engine checks them (RuleSet, R25-R30), so that a person
  // reads what to change in their own language, next to the field; null when all is well, else
  // the name of the first option refused ("long_meld" for a size without a bonus or the reverse).
  function badOption(options) {
    const opening = (n) => Number.isInteger(n) && (n === 0 || (n >= 15 && n <= 150));
    for (const input of $("house-options").querySelectorAll("input")) input.removeAttribute("aria-invalid");
    if ("minimum_opening" in options && !opening(options.minimum_opening)) return "minimum_opening";
    if ("set_ranks" in options) {
      const text = options.set_ranks, order = ["A", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
      const tokens = text.match(/10|[A3-9JQK]/g) || [];
      const at = tokens.map((token) => order.indexOf(token));
      if (!tokens.length || tokens.join("") !== text || at.some((n, i) => i > 0 && n <= at[i - 1])) return "set_ranks";
    }
    if ("opening_thresholds" in options) {
      const pairs = options.opening_thresholds;
      if (!Array.isArray(pairs) || pairs.length > 8 ||
          pairs.some((p, i) => p[0] < 1 || p[0] > 1e9 || !opening(p[1]) || (i > 0 && p[0] <= pairs[i - 1][0]))) {
        return "opening_thresholds";
      }
    }
    const size = options.long_meld_size, bonus = options.long_meld_bonus;
    if (size !== undefined && !(Number.isInteger(size) && size >= 8 && size <= 14)) return "long_meld_size";
    if (bonus !== undefined && !(Number.isInteger(bonus) && bonus >= 1 && bonus <= 1e9)) return "long_meld_bonus";
    if ((size === undefined) !== (bonus === undefined)) return "long_meld";
    return null;
  }

  // A refusal of the server in the player's words: by the option it names where the page has
  // words for it, else the server's message without its rule ids.
  function serverWords(text) {
    for (const name of Object.keys(OPTION_KINDS)) {
      if (OPTION_KINDS[name] !== "bool" && new RegExp("\\b" + name + "\\b").test(text)) {
        return t("lobby.bad." + (/long_meld_size.*long_meld_bonus/.test(text) ? "long_meld" : name));
      }
    }
    return text.replace(/\s*\(R\d+[^)]*\)/g, "");
  }

  // The refusal under the Create button, scrolled into view, and the field to change focused.
  let createShown = null; // the lobby's refusal on screen, as a function of the language
  function createError(make, input) {
    const box = $("create-error");
    createShown = make;
    box.textContent = make();
    box.hidden = false;
    if (input) {
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", "create-error");
      input.focus();
    }
    box.scrollIntoView({ block: "nearest" });
  }

  // The house rules in force at a table, read from the rules its views carry (every option is
  // off in every preset, so any that is on was chosen for this table).
  function houseRules(rules) {
    if (!rules) return [];
    const found = [];
    if (rules.ace_low_only) found.push(t("house.ace_low_only"));
    if (rules.minimum_opening > 0) found.push(t("house.minimum_opening", { n: rules.minimum_opening }));
    if (rules.closed_take_naturals_only) found.push(t("house.closed_take_naturals_only"));
    if (rules.set_ranks) found.push(t("house.set_ranks", { ranks: String(rules.set_ranks).split("").join(" ") }));
    if (rules.locked_wildcards) found.push(t("house.locked_wildcards"));
    if (Array.isArray(rules.opening_thresholds) && rules.opening_thresholds.length) {
      found.push(t("house.opening_thresholds", { pairs: rules.opening_thresholds.map((p) => p[0] + ": " + p[1]).join(", ") }));
    }
    if (rules.take_both_extra_piles) found.push(t("house.take_both_extra_piles"));
    if (rules.first_draw_refusal) found.push(t("house.first_draw_refusal"));
    if (rules.long_meld_size > 0) found.push(t("house.long_meld", { size: rules.long_meld_size, bonus: rules.long_meld_bonus }));
    return found;
  }

  function clockChoices() {
    const select = $("clock");
    const old = select.value;
    select.textContent = "";
    const options = [["", t("lobby.clock.default")], ["off", t("lobby.clock.off")]];
    for (const n of CLOCKS) options.push([String(n), t("lobby.clock.seconds", { n: n })]);
    for (const [value, text] of options) {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = text;
      select.append(option);
    }
    select.value = old || "";
  }

  function seatChoices() {
    const players = Number($("players").value);
    const box = $("seat-kinds");
    const old = Array.from(box.querySelectorAll("select")).map((s) => s.value);
    box.textContent = "";
    for (let seat = 0; seat < players; seat++) {
      const label = document.createElement("label");
      const words = document.createElement("span");
      words.textContent = t("lobby.seat", { seat: seat + 1, team: (seat % 2) + 1 });
      label.append(words, " ");
      const select = document.createElement("select");
      select.id = "seat-kind-" + seat;
      select.dataset.seat = String(seat);
      for (const kind of ["human", ...BOTS]) {
        const option = document.createElement("option");
        option.value = kind;
        option.textContent = kind === "human" ? t("lobby.person") : (t("lobby.bot." + kind) === "lobby.bot." + kind ? t("lobby.bot", { bot: kind }) : t("lobby.bot." + kind));
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
    const clock = $("clock").value;
    if (clock) request.turn_seconds = clock === "off" ? null : Number(clock); // else the server's default
    $("create-error").hidden = true;
    const options = chosenOptions();
    const bad = badOption(options);
    if (bad) {
      createError(() => t("lobby.bad." + bad), $("opt-" + bad) || $("opt-long_meld_size"));
      return;
    }
    if (Object.keys(options).length) request.options = options;
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
      createError(() => serverWords(String(error.message || error)), null);
      return;
    }
    const entry = {
      table: answer.table,
      variant: answer.variant,
      players: answer.players,
      match: answer.match,
      created: new Date().toISOString(),
      seats: answer.seats.map((s) => ({ seat: s.seat, kind: s.kind, bot: s.bot || null, link: s.link || null })),
    };
    rememberTable(entry);
    showSeats(entry);
    drawMine();
    $("created-heading").focus(); // the links are what comes next: a keyboard or reader is taken there
  }

  function showSeats(entry) {
    $("created-heading").textContent = t("lobby.seats", { table: entry.table });
    const list = $("links");
    list.textContent = "";
    for (const seat of entry.seats) {
      const item = document.createElement("li");
      item.dataset.seat = String(seat.seat);
      if (seat.kind !== "human") {
        item.textContent = t("lobby.seat.bot", { seat: seat.seat + 1, bot: botName(seat.bot) });
      } else {
        const url = new URL(seat.link, location.href).href;
        const link = document.createElement("input");
        link.readOnly = true;
        link.value = url;
        link.className = "link";
        link.id = "link-" + seat.seat;
        link.setAttribute("aria-label", t("lobby.link", { seat: seat.seat + 1 }));
        link.addEventListener("focus", () => link.select());
        const copy = document.createElement("button");
        copy.type = "button";
        copy.id = "copy-" + seat.seat;
        copy.textContent = t("lobby.copy");
        copy.addEventListener("click", () => copyLink(link, copy));
        const open = document.createElement("a");
        open.href = url;
        open.target = "_blank";
        open.rel = "noopener";
        open.textContent = t("lobby.open", { seat: seat.seat + 1 });
        open.className = "play";
        open.id = "play-" + seat.seat;
        const name = document.createElement("span");
        name.textContent = t("lobby.link", { seat: seat.seat + 1 }) + ": ";
        item.append(name, link, " ", copy, " ", open);
      }
      list.append(item);
    }
    $("created").hidden = false;
  }

  async function copyLink(input, button) {
    try {
      await navigator.clipboard.writeText(input.value);
    } catch (error) {
      // No clipboard API (a page served over plain http to another machine): select and copy.
      input.focus();
      input.select();
      document.execCommand("copy");
    }
    button.textContent = t("lobby.copied");
    setTimeout(() => (button.textContent = t("lobby.copy")), 1500);
  }

  function storedTables() {
    try {
      const list = JSON.parse(localStorage.getItem(TABLES_KEY) || "[]");
      return Array.isArray(list) ? list.filter((e) => e && typeof e.table === "string" && Array.isArray(e.seats)) : [];
    } catch (error) {
      return [];
    }
  }
  function rememberTable(entry) {
    const list = storedTables().filter((e) => e.table !== entry.table);
    list.unshift(entry);
    try {
      localStorage.setItem(TABLES_KEY, JSON.stringify(list.slice(0, 20)));
    } catch (error) {
      // storage off or full: the links stay on screen for now
    }
  }
  function forgetTable(table) {
    try {
      localStorage.setItem(TABLES_KEY, JSON.stringify(storedTables().filter((e) => e.table !== table)));
    } catch (error) {
      // nothing kept, nothing to forget
    }
  }
  function drawMine() {
    const list = $("mine");
    const tables = storedTables();
    list.textContent = "";
    $("mine-panel").hidden = tables.length === 0;
    for (const entry of tables) {
      const item = document.createElement("li");
      item.dataset.table = entry.table;
      const when = new Date(entry.created);
      const title = variantName(entry.variant, (variants[entry.variant] && variants[entry.variant].title) || entry.variant);
      item.append(title + ", " + plural("players.count", entry.players) + " \u00b7 " + entry.table + " \u00b7 " + (isNaN(when) ? "" : when.toLocaleString(I.lang)) + " ");
      const show = document.createElement("button");
      show.type = "button";
      show.textContent = t("lobby.show");
      show.addEventListener("click", () => showSeats(entry));
      const forget = document.createElement("button");
      forget.type = "button";
      forget.className = "quiet";
      forget.textContent = t("lobby.forget");
      // Its links are the only keys to its seats: forgotten only once the person confirms.
      forget.addEventListener("click", () => {
        const ask = document.createElement("span");
        ask.className = "confirm";
        ask.setAttribute("role", "group");
        const words = document.createElement("span");
        words.textContent = t("lobby.forget.confirm") + " ";
        const yes = document.createElement("button");
        yes.type = "button";
        yes.className = "forget-yes";
        yes.textContent = t("lobby.forget.yes");
        yes.addEventListener("click", () => {
          forgetTable(entry.table);
          drawMine();
          $("mine-panel").hidden ? $("variant").focus() : $("mine").querySelector("button").focus();
        });
        const no = document.createElement("button");
        no.type = "button";
        no.className = "quiet";
        no.textContent = t("lobby.forget.no");
        no.addEventListener("click", () => {
          drawMine();
          const again = $("mine").querySelector('li[data-table="' + CSS.escape(entry.table) + '"] button');
          if (again) again.focus();
        });
        ask.append(words, yes, " ", no);
        show.remove();
        forget.replaceWith(ask);
        no.focus();
      });
      item.append(show, " ", forget);
      list.append(item);
    }
  }

  // ---- the connection ------------------------------------------------------------------

  // The seat: from the address (a link just opened), whose token then leaves the address bar and
  // the history, kept in this tab's session storage for reloads and reconnects.
  function readSeat() {
    const params = new URLSearchParams(location.hash.slice(1));
    const table = params.get("table");
    const token = params.get("token");
    if (token) {
      try {
        sessionStorage.setItem(SEAT_KEY, JSON.stringify({ table: table, token: token }));
      } catch (error) {
        // not kept: a reload then needs the link again
      }
      history.replaceState(null, "", location.pathname + location.search + (table ? "#table=" + encodeURIComponent(table) : ""));
      return { table: table, token: token };
    }
    if (!table) return null;
    try {
      const kept = JSON.parse(sessionStorage.getItem(SEAT_KEY) || "null");
      if (kept && kept.table === table && typeof kept.token === "string") return kept;
    } catch (error) {
      return null;
    }
    return null;
  }

  function setConn(state) {
    $("conn").dataset.state = state;
    $("conn").textContent = t("conn." + state);
    const banner = $("banner");
    if (state === "closed" && welcome) {
      banner.textContent = t("conn.banner");
      banner.hidden = false;
    } else if (state === "refused") {
      banner.textContent = t("conn.refused.banner");
      banner.hidden = false;
    } else banner.hidden = true;
    if (last) drawControls(last);
  }
  function connected() {
    return socket !== null && socket.readyState === WebSocket.OPEN && welcome !== null && $("conn").dataset.state === "open";
  }

  function connect() {
    // Relative to the page, so that the server works mounted under a path too.
    const url = new URL("ws", location.href);
    url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    url.hash = "";
    socket = new WebSocket(url.href);
    setConn("connecting");
    socket.onopen = () => {
      // The token travels in the first message, never in a URL: it reaches no access log.
      socket.send(JSON.stringify({ type: "join", token: join.token, table: join.table }));
    };
    socket.onmessage = (event) => receive(JSON.parse(event.data));
    socket.onclose = (event) => {
      socket = null;
      if (event.code === 1008 && welcome === null) {
        setConn("refused");
        return; // a bad token: retrying cannot help
      }
      setConn("closed");
      // 0.5, 1, then every 2 s: after a long outage the page is back within 2 s of the server.
      retry = Math.min(retry + 1, 3);
      setTimeout(connect, 250 * 2 ** retry);
    };
  }

  function send(action) {
    if (!connected() || pending) return;
    pending = { seq: nextSeq, action: action };
    socket.send(JSON.stringify({ type: "move", seq: pending.seq, action: action }));
    setControlsBusy();
  }

  function receive(message) {
    switch (message.type) {
      case "welcome":
        welcome = message;
        retry = 0;
        setConn("open");
        $("title").textContent = t(message.match ? "title.match" : "title.hand", { title: variantName(message.variant, message.title) });
        nextSeq = message.next_seq;
        // The welcome's moves say less than a view's `last` seen live: the cards of a take are
        // counted again from the moves (countTakes); whether a bot played a move for an away
        // seat is not in them (marked only where the server says so, `away`).
        if (Array.isArray(message.log)) log = message.log.map((m) => Object.assign({ robot: m.away === true }, m));
        if (pending && pending.seq < nextSeq) pending = null; // it was played before the break
        if (pending) socket.send(JSON.stringify({ type: "move", seq: pending.seq, action: pending.action }));
        if (last) render(last);
        break;
      case "view":
        nextSeq = Math.max(nextSeq, message.next_seq);
        if (!last || message.number !== last.number) showMessage("", "");
        previous = last;
        last = message;
        logMove(message);
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
        if (pending && pending.seq === message.seq) {
          const tried = pending.action;
          showMessage(() => refusal(message, tried), message.code, "error");
          pending = null;
        } else showMessage(() => refusal(message, ""), message.code, "error");
        if (last) render(last);
        break;
      case "error": {
        if (message.next_seq) nextSeq = message.next_seq;
        const tried = pending ? pending.action : "";
        showMessage(() => refusal(message, tried), message.code, "error");
        pending = null;
        if (last) render(last);
        break;
      }
    }
  }

  // A refusal in the player's words, from its stable code (the rule ids stay in the API's
  // message), naming the cards of the move that was tried.
  function refusal(message, action) {
    const cards = cardsOf(action).filter((w) => /^(10|[2-9AJQK])[SHDC]$|^JK$/.test(w));
    let key = "error." + message.code;
    // The engine's one code for a meld that is not one: why, where the page can see it.
    if (message.code === "invalid-meld" && cards.length) key = meldWhy(cards) || key;
    const text = t(key, { cards: prettyCards(cards), code: message.code });
    return text === key ? t("error.other", { code: message.code }) : text;
  }

  // Why cards make no meld, from what any player can see: too few (every preset asks three,
  // R4-R5), or of one rank where the rules have no sets (R5); null otherwise.
  function meldWhy(cards) {
    const naturals = cards.filter((c) => !isWildCapable(c)).map(rankOf);
    const rules = last && last.view.rules;
    const sets = rules && typeof rules === "object" ? Boolean(rules.sets_allowed) : SETS.includes(welcome ? welcome.variant : "");
    if (!sets && naturals.length >= 2 && naturals.every((r) => r === naturals[0])) return "error.invalid-meld.no-sets";
    if (cards.length < 3) return "error.invalid-meld.short";
    return null;
  }

  // Whether the selection is, or is on its way to, one of the legal melds (its cards among it).
  function meldInReach(chosen) {
    return last.legal.some((action) => {
      const words = action.split(" ");
      if (words[0] !== "meld") return false;
      const pool = words.slice(1);
      return chosen.every((card) => {
        const at = pool.indexOf(card);
        if (at >= 0) pool.splice(at, 1);
        return at >= 0;
      });
    });
  }

  // The move log: the welcome's log (the hand so far), then each view's last move.
  function logMove(message) {
    const move = message.last;
    if (!move || typeof move.number !== "number") {
      if (move && (!previous || previous.number !== message.number)) {
        // a server without move numbers: the view's number is the count of moves
        log.push({ number: message.number - 1, seat: move.seat, action: move.action, hand: move.hand || 1 });
      }
      return;
    }
    const hand = move.hand || 1;
    if (log.length && (log[log.length - 1].hand || 1) !== hand) log = [];
    if (log.some((m) => m.number === move.number)) return;
    const entry = Object.assign({}, move);
    // A new meld is written as the player reads it on the table (the wildcard where it stands),
    // not in the notation's sorted order: the meld this move laid is its team's last one.
    const laid = move.action.split(" ");
    const melds = message.view && message.view.melds && message.view.melds[move.seat % 2];
    if ((laid[0] === "meld" || (laid[0] === "take" && laid[1] === "meld")) && melds && melds.length) {
      const newest = melds[melds.length - 1];
      const cards = laid.slice(laid[0] === "meld" ? 1 : 2);
      if (sameCards(cardsOf(newest), cards)) entry.shown = readMeld(newest, welcome ? welcome.variant : null).cards;
    }
    // A move made while the seat was away was the server's bot's, not the person's.
    const info = message.seats && message.seats[move.seat];
    if (info && info.away) entry.robot = true;
    if (previous && previous.number === move.number && move.action === "take") entry.pile = previous.view.discard_pile_size;
    log.push(entry);
  }

  // A move in words: "move" for another seat's ("drew from the stock"), "you" for this seat's
  // (Italian conjugates: "hai pescato"), "do" for a legal move offered ("Draw from the stock").
  function moveWords(move, form) {
    const words = move.action.split(" ");
    const cards = (list) => prettyCards(list);
    const k = form || "move";
    let text;
    if (words[0] === "draw") text = t(k + ".draw");
    else if (words[0] === "refuse") text = t(k + ".refuse");
    else if (words[0] === "take" && words.length === 1) text = move.pile ? t(k + ".take.count", { cards: plural("cards", move.pile) }) : t(k + ".take");
    else if (words[0] === "take" && words[1] === "meld") text = t(k + ".take.meld", { cards: cards(move.shown || words.slice(2)) });
    else if (words[0] === "take" && words[1] === "add") text = t(k + ".take.add", { cards: cards(words.slice(3)), meld: Number(words[2]) + 1 });
    else if (words[0] === "meld") text = t(k + ".meld", { cards: cards(move.shown || words.slice(1)) });
    else if (words[0] === "add") text = t(k + ".add", { cards: cards(words.slice(2)), meld: Number(words[1]) + 1 });
    else if (words[0] === "discard") text = t(k + ".discard", { card: cards(words.slice(1)) });
    else text = prettyAction(move.action);
    return text;
  }

  // The line under the table: a hint or a refusal, or nothing (""). Given as a function of
  // the language, it is written again in another language when the player switches.
  let messageShown = null; // {make, code, style}
  function showMessage(make, code, style) {
    messageShown = typeof make === "function" ? { make: make, code: code, style: style } : null;
    const text = typeof make === "function" ? make() : make;
    const box = $("message");
    box.textContent = text;
    box.dataset.code = code || "";
    box.className = text ? style || "hint" : "";
    box.setAttribute("role", style === "error" ? "alert" : "status");
  }

  // ---- drawing the table ---------------------------------------------------------------

  // The extra pile's words: at an Italian table it is the pozzetto in every language (players of
  // Burraco call it so), elsewhere the morto of the Brazilian games.
  function pileWords(key) {
    const italian = welcome && ITALIAN.includes(welcome.variant);
    return italian && t(key + ".pozzetto") !== key + ".pozzetto" ? t(key + ".pozzetto") : t(key);
  }

  // A bot as players read it ("quick robot"), not by its name in the API.
  function botName(bot) {
    const key = "bot." + bot;
    const name = t(key);
    return name === key ? t("seat.bot", { bot: bot }) : name;
  }

  function seatName(message, seat, short) {
    const info = message.seats[seat] || { kind: "human", bot: null };
    const mine = message.seat;
    let who;
    if (seat === mine) who = t("seat.you");
    else if (seat % 2 === mine % 2) who = t("seat.partner");
    // R1 fixes the order of play (the next seat up), not a side of the table: the opponents
    // are told apart by when they play.
    else if (message.seats.length === 4) who = seat === (mine + 1) % 4 ? t("seat.opponent.next") : t("seat.opponent.previous");
    else who = t("seat.opponent");
    // People count from 1; the protocol's seat numbers (from 0) stay in the data attributes.
    let text = who + " (" + t("seat.n", { seat: seat + 1 }) + ")";
    if (info.kind === "bot" && !short) text += " \u00b7 " + botName(info.bot);
    return text;
  }

  function render(message) {
    const view = message.view;
    const seat = message.seat;
    const us = seat % 2, them = 1 - us;
    const focused = document.activeElement && document.activeElement.id;
    $("lobby").hidden = true;
    $("table").hidden = false;
    $("table").dataset.number = String(message.number);
    $("table").dataset.seat = String(seat);
    $("table-heading").textContent = welcome ? welcome.title : "";
    document.body.dataset.over = String(message.over);

    // Whose turn, and the phase.
    const turn = $("turn");
    turn.dataset.current = String(view.current_player);
    if (message.over) turn.textContent = t("turn.over");
    else if (view.current_player === seat) turn.textContent = t("turn.mine");
    else turn.textContent = t("turn.other", { seat: seatName(message, view.current_player, true) });
    turn.className = !message.over && view.current_player === seat ? "mine" : "";
    const drawWords = view.discard_pile_size ? t("phase.draw") : t("phase.draw.stock"); // an empty pile: nothing to take
    $("phase").textContent = message.over ? "" : view.phase === "draw" ? drawWords : view.phase === "play" ? t("phase.play") : "";
    const totals = $("match-totals");
    if (message.match) {
      totals.hidden = false;
      totals.textContent = t("match.totals", { hand: message.match.hand, us: message.match.totals[us], them: message.match.totals[them], target: message.match.target });
    }
    drawClock(message);
    drawNotice(message);
    const house = houseRules(view.rules);
    $("house-rules").hidden = house.length === 0;
    $("house-rules").textContent = house.length ? t("house.title") + " " + house.join(" \u00b7 ") : "";

    // The seats, with their hand sizes and presence.
    const seats = $("seats");
    seats.textContent = "";
    view.hand_sizes.forEach((size, i) => {
      const el = document.createElement("span");
      const info = message.seats[i] || {};
      el.className = "seat" + (i === view.current_player && !message.over ? " current" : "") + (i % 2 === us ? " ours" : " theirs");
      el.id = "seat-" + i;
      el.dataset.seat = String(i);
      el.dataset.handSize = String(size);
      let text = seatName(message, i) + ": " + plural("cards", size);
      // Away (a bot plays the seat) and not connected are told apart: a person may be either.
      if (info.away) {
        text += " \u00b7 " + t(i === seat ? "seat.away.you" : "seat.away");
        el.classList.add("away");
      }
      if (info.kind === "human" && info.connected === false && i !== seat) {
        text += " \u00b7 " + t("seat.offline");
        el.classList.add("offline");
      }
      el.textContent = text;
      seats.append(el);
    });

    // Melds, both teams.
    const variant = welcome ? welcome.variant : view.rules;
    drawMelds($("melds-us"), view.melds[us], us, message, variant);
    drawMelds($("melds-them"), view.melds[them], them, message, variant);
    // One opponent is no team: "Opponent's melds" in a game of two.
    const usHeading = $("team-us").querySelector("h3 span[data-i18n]");
    usHeading.dataset.i18n = message.seats.length === 2 ? "melds.us.one" : "melds.us";
    usHeading.textContent = message.seats.length === 2 ? t("melds.us.one") : t("melds.us");
    const themHeading = $("team-them").querySelector("h3 span[data-i18n]");
    themHeading.dataset.i18n = message.seats.length === 2 ? "melds.them.one" : "melds.them";
    themHeading.textContent = t(themHeading.dataset.i18n);
    const points = message.points || [0, 0];
    $("points-us").textContent = points[us] ? t("melds.points", { n: points[us] }) : "";
    $("points-them").textContent = points[them] ? t("melds.points", { n: points[them] }) : "";

    // Stock, pile and the extra piles (ours first, whatever our seat).
    $("stock").dataset.count = String(view.stock_size);
    $("stock-count").textContent = String(view.stock_size);
    $("stock").setAttribute("aria-label", t("stock.label", { count: plural("cards", view.stock_size) }));
    $("stock").setAttribute("role", "group");
    const pile = $("pile");
    const pileCards = cardsOf(view.discard_pile);
    pile.dataset.count = String(view.discard_pile_size);
    pile.dataset.cards = view.discard_pile;
    $("pile-count").textContent = String(view.discard_pile_size);
    const closed = view.discard_pile_size > pileCards.length;
    $("pile-closed").hidden = !closed;
    $("pile-closed").textContent = "(" + t("pile.closed") + ")";
    const box = $("pile-cards");
    box.textContent = "";
    for (const card of pileCards) box.append(cardElement(card));
    box.setAttribute("aria-label", t("pile.label", { count: plural("cards", view.discard_pile_size), cards: pileCards.length ? pileCards.map(cardName).join(", ") : t("pile.empty") }));
    const extra = $("extra");
    const one = message.seats.length === 2; // each player a team (R1): "your extra pile"
    extra.textContent = "";
    for (const team of [us, them]) {
      const size = view.extra_pile_sizes[team];
      const el = document.createElement("span");
      el.className = "extra-pile";
      el.dataset.team = String(team);
      el.dataset.size = size === null ? "" : String(size);
      const whose = pileWords(one ? (team === us ? "extra.us.one" : "extra.them.one") : team === us ? "extra.us" : "extra.them");
      el.textContent = whose + ": " + (size === null ? t(view.extra_pile_taken[team] ? "extra.taken" : "extra.gone") : plural("cards", size));
      extra.append(el);
    }

    // The hand, sorted; the selection survives a redraw when the hand is unchanged.
    const hand = sortedHand(cardsOf(view.hand));
    const handBox = $("hand");
    if (handBox.dataset.cards !== hand.join(" ")) selected.clear();
    handBox.dataset.cards = hand.join(" ");
    handBox.dataset.size = String(hand.length);
    handBox.setAttribute("aria-label", t("hand.label", { count: plural("cards", hand.length) }));
    handBox.textContent = "";
    hand.forEach((card, i) => {
      const el = cardElement(card, "button");
      el.dataset.i = String(i);
      el.id = "card-" + i;
      el.type = "button";
      markCard(el, card, i);
      el.addEventListener("click", () => toggle(i));
      handBox.append(el);
    });

    drawAway(message);
    drawLog(message);
    drawControls(message);
    drawEnd(message);
    // The focus stays on the control it was on (or, for a card played, its neighbour).
    let again = focused ? $(focused) : null;
    if (!again && focused && focused.startsWith("card-")) again = $("card-" + Math.min(Number(focused.slice(5)), hand.length - 1)) || $("btn-draw");
    if (!again && focused && focused.startsWith("meld-")) again = document.querySelector("#melds-us .meld") || $("btn-draw");
    if (again && again.id === "btn-back" && again.hidden) {
      // Back: to the first move the person can make now, else to their hand.
      again = ["btn-draw", "btn-take", "btn-meld", "btn-discard"].map($).find((b) => !b.disabled) || $("card-0") || $("log");
    }
    if (again && document.activeElement !== again && !$("end").open) again.focus();
  }

  function markCard(el, card, i) {
    const on = selected.has(i);
    el.classList.toggle("selected", on);
    el.setAttribute("aria-pressed", String(on));
    el.querySelector(".name").textContent = on ? t("card.selected", { card: cardName(card) }) : cardName(card);
  }

  // Selecting a card changes that card and the buttons, in place: the focus stays where it is.
  function toggle(i) {
    if (selected.has(i)) selected.delete(i);
    else selected.add(i);
    const hand = sortedHand(cardsOf(last.view.hand));
    markCard($("card-" + i), hand[i], i);
    showMessage("", "");
    drawControls(last);
  }

  function drawMelds(box, melds, team, message, variant) {
    box.textContent = "";
    box.dataset.count = String(melds.length);
    if (!melds.length) {
      const none = document.createElement("span");
      none.className = "none";
      none.textContent = t("melds.none");
      box.append(none);
    }
    const ours = team === message.seat % 2;
    melds.forEach((meld, index) => {
      const read = readMeld(meld, variant);
      const el = document.createElement("button");
      el.type = "button";
      el.className = "meld";
      el.id = "meld-" + team + "-" + index;
      el.dataset.team = String(team);
      el.dataset.index = String(index);
      el.dataset.cards = meld;
      el.dataset.kind = read.kind;
      if (read.canasta) {
        el.classList.add("canasta", read.canasta);
        el.dataset.canasta = read.canasta;
      }
      const number = document.createElement("span");
      number.className = "meld-index";
      number.textContent = String(index + 1); // people count from 1; data-index keeps the protocol's
      number.setAttribute("aria-hidden", "true");
      el.append(number);
      const row = document.createElement("span");
      row.className = "meld-cards";
      row.setAttribute("aria-hidden", "true");
      read.cards.forEach((card, i) => {
        const c = cardElement(card);
        if (i === read.wild) c.classList.add("wild");
        row.append(c);
      });
      el.append(row);
      if (read.canasta) {
        const badge = document.createElement("span");
        badge.className = "badge";
        badge.textContent = t("meld.short." + read.canasta);
        badge.setAttribute("aria-hidden", "true");
        el.append(badge);
      }
      let label = t("meld.label", { index: index + 1, cards: read.cards.map(cardName).join(", ") }) + "; " + t("meld." + read.kind);
      if (read.canasta) label += "; " + t("meld." + read.canasta);
      const name = document.createElement("span");
      name.className = "visually-hidden";
      name.textContent = label;
      el.append(name);
      if (ours) el.addEventListener("click", () => addTo(index));
      else el.setAttribute("aria-disabled", "true");
      box.append(el);
    });
  }

  function selectedCards() {
    const hand = sortedHand(cardsOf(last.view.hand));
    return Array.from(selected).sort((a, b) => a - b).map((i) => hand[i]);
  }
  function topCard() {
    return cardsOf(last.view.discard_pile).slice(-1);
  }

  // The legal moves that play the selected cards in the way a control names.
  function matches(kind, index) {
    const chosen = selectedCards();
    const top = topCard();
    const found = [];
    for (const action of last.legal) {
      const words = action.split(" ");
      if (kind === "meld" && words[0] === "meld" && sameCards(words.slice(1), chosen)) found.push(action);
      if (kind === "discard" && words[0] === "discard" && chosen.length === 1 && words[1] === chosen[0]) found.push(action);
      if (kind === "add" && words[0] === "add" && words[1] === String(index) && sameCards(words.slice(2), chosen)) found.push(action);
      if (kind === "take") {
        if (action === "take" && chosen.length === 0) found.push(action);
        if (words[0] === "take" && words[1] === "meld" && sameCards(words.slice(2), chosen.concat(top))) found.push(action);
        if (words[0] === "take" && words[1] === "add" && sameCards(words.slice(3), chosen.concat(top))) found.push(action);
      }
      if (kind === "take-add" && words[0] === "take" && words[1] === "add" && words[2] === String(index) && sameCards(words.slice(3), chosen.concat(top))) found.push(action);
    }
    return found;
  }
  function takeKinds() {
    const kinds = new Set();
    for (const action of last.legal) {
      const words = action.split(" ");
      if (words[0] !== "take") continue;
      kinds.add(words.length === 1 ? "open" : words[1]);
    }
    return kinds;
  }

  function addTo(index) {
    if (!last || !last.legal.length || !connected()) return;
    const action = matches("add", index)[0] || matches("take-add", index)[0];
    if (action) {
      send(action);
      return;
    }
    // Why not, from the legal moves: nothing selected; the selection fits only with more cards;
    // or it does not fit that meld at all.
    const chosen = selectedCards();
    const meld = t("meld.n", { meld: index + 1 });
    if (!chosen.length) {
      showMessage(() => t("hint.add", { meld: meld }), "page-hint", "hint");
      return;
    }
    const top = topCard();
    const more = last.legal.some((legal) => {
      const words = legal.split(" ");
      const cards = words[0] === "add" && words[1] === String(index) ? words.slice(2)
        : words[0] === "take" && words[1] === "add" && words[2] === String(index) ? words.slice(3) : null;
      if (!cards) return false;
      const pool = cards.slice();
      return chosen.every((card) => {
        const at = pool.indexOf(card);
        if (at < 0) return false;
        pool.splice(at, 1);
        return true;
      }) && (words[0] === "add" || cards.includes(top));
    });
    showMessage(() => t(more ? "hint.add.more" : "hint.add.none", { meld: meld, cards: prettyCards(chosen) }), "page-hint", "hint");
  }

  function take() {
    // T takes with the selected cards in a new meld (or, open, the whole pile); onto one of
    // your melds only when that is the one take they make (else click the meld).
    const all = matches("take");
    const found = all.some((a) => !a.startsWith("take add ")) ? all.filter((a) => !a.startsWith("take add ")) : all;
    if (found.length === 1) return send(found[0]);
    const kinds = takeKinds();
    const top = prettyCards(topCard());
    if (found.length > 1) showMessage(() => t("hint.take.several"), "page-hint", "hint");
    else if (kinds.has("add") && !kinds.has("meld")) showMessage(() => t("hint.take.add", { top: top }), "page-hint", "hint");
    else showMessage(() => t("hint.take.meld", { top: top }), "page-hint", "hint");
  }

  function drawControls(message) {
    const legal = message.legal;
    const mine = legal.length > 0 && !pending && connected();
    const has = (word) => legal.some((a) => a.split(" ")[0] === word);
    const buttons = {
      "btn-draw": mine && legal.includes("draw"),
      "btn-take": mine && has("take"),
      "btn-refuse": mine && legal.includes("refuse"), // R32, a house rule
      // Meld: only a selection that is, or can grow into, a legal meld (the engine says what is
      // missing); the hint says why another cannot.
      "btn-meld": mine && has("meld") && selected.size > 0 && meldInReach(selectedCards()),
      "btn-discard": mine && has("discard") && selected.size === 1,
      "btn-clear": selected.size > 0,
    };
    for (const [id, on] of Object.entries(buttons)) $(id).disabled = !on;
    $("btn-back").disabled = !connected();
    $("btn-refuse").hidden = !buttons["btn-refuse"]; // shown only when the refusal is offered
    let hint = "";
    const top = prettyCards(topCard());
    if (message.over || (legal.length && !connected())) hint = ""; // the banner says why nothing can be played
    else if (!legal.length) hint = t("hint.wait");
    else if (has("draw")) {
      const kinds = takeKinds();
      if (kinds.has("open")) hint = t("hint.draw.take.open");
      else if (kinds.has("meld")) hint = t("hint.draw.take.meld", { top: top });
      else if (kinds.has("add")) hint = t("hint.draw.take.add", { top: top });
      else hint = t("hint.draw");
    } else if (legal.includes("refuse") && message.view && message.view.first_draw) {
      hint = t("hint.refuse", { card: prettyCards([message.view.first_draw]) });
    } else if (selected.size >= 2 && !meldInReach(selectedCards()) && !matches("discard").length) {
      const chosen = selectedCards();
      const adds = last.legal.some((a) => a.startsWith("add ") && sameCards(a.split(" ").slice(2), chosen));
      const why = adds ? "hint.meld.add" : meldWhy(chosen) === "error.invalid-meld.no-sets" ? "error.invalid-meld.no-sets" : "hint.meld.none";
      hint = t(why, { cards: prettyCards(chosen) });
    } else hint = t("hint.play");
    $("hint").textContent = hint;

    const list = $("moves");
    list.textContent = "";
    $("moves-summary").textContent = t("moves.all", { n: legal.length });
    for (const action of legal) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "move";
      button.dataset.action = action;
      button.textContent = moveWords({ action: action }, "do");
      button.disabled = !mine;
      button.addEventListener("click", () => send(action));
      list.append(button);
    }
  }

  // While the turn clock has given this seat to a bot (away), the "I'm back" button, and a line
  // (a live region) that says so and how to come back; once back, a line that says that.
  function drawAway(message) {
    const info = message.seats[message.seat] || {};
    const away = Boolean(info.away) && !message.over;
    const was = previous && previous.seats[previous.seat] && previous.seats[previous.seat].away;
    $("btn-back").hidden = !away;
    $("btn-back").disabled = !connected();
    const line = $("away-line");
    if (away) line.textContent = t("away.line");
    else if (was && !message.over) line.textContent = t("away.done");
    else if (!previous || previous.number !== message.number) line.textContent = "";
    line.dataset.away = String(away);
  }

  function comeBack() {
    if (!connected() || $("btn-back").hidden) return;
    socket.send(JSON.stringify({ type: "back" }));
    $("btn-back").disabled = true; // until the server's view says the seat is back
  }

  function setControlsBusy() {
    for (const el of document.querySelectorAll("#controls button, #moves button")) el.disabled = true;
  }

  // The move log, newest first. A hand's log only grows: the moves added since the last view are
  // written, not the whole log again at every move (a hand has a few hundred); a new hand, a
  // reload, a reconnection or another language writes it anew.
  function drawLog(message) {
    countTakes(message);
    const list = $("log");
    if (!log.length) {
      list.textContent = "";
      const none = document.createElement("li");
      none.className = "none";
      none.textContent = t("log.empty");
      list.append(none);
      logDrawn = null;
      return;
    }
    const same = logDrawn && logDrawn.log === log && logDrawn.seat === message.seat && logDrawn.lang === I.lang;
    const kept = same && logDrawn.count <= log.length && list.children.length === logDrawn.count ? logDrawn.count : 0;
    if (!kept) list.textContent = "";
    for (let i = kept; i < log.length; i++) list.prepend(logLine(message, log[i], i));
    // The last round: the moves since this seat's own last move.
    let mineAt = -1;
    log.forEach((m, i) => {
      if (m.seat === message.seat) mineAt = i;
    });
    for (const item of list.children) item.classList.toggle("recent", item.value - 1 > mineAt);
    logDrawn = { log: log, seat: message.seat, lang: I.lang, count: log.length };
  }

  // The cards of each whole-pile take that the log does not carry yet (the welcome's log, after
  // a reload or a restart, has no pile sizes): from public moves alone, the pile holds its first
  // card where it starts face up (R3), grows by each discard and each refused first draw (R32),
  // and every take empties it.
  function countTakes(message) {
    if (!log.some((m) => m.action === "take" && m.pile === undefined)) return;
    const rules = message.view.rules;
    const faceUp = rules && typeof rules === "object" ? Boolean(rules.discard_pile_starts_face_up) : FACE_UP.includes(welcome ? welcome.variant : "");
    let size = faceUp ? 1 : 0;
    for (const move of log) {
      const word = move.action.split(" ")[0];
      if (word === "discard" || word === "refuse") size += 1;
      else if (word === "take") {
        if (move.action === "take" && move.pile === undefined) move.pile = size;
        size = 0;
      }
    }
  }

  function logLine(message, move, i) {
    const item = document.createElement("li");
    item.className = "move-line";
    item.dataset.number = String(move.number);
    item.dataset.seat = String(move.seat);
    item.dataset.action = move.action;
    if (move.pile !== undefined) item.dataset.pile = String(move.pile);
    item.value = i + 1;
    const mine = move.seat === message.seat;
    item.textContent = t(mine ? "move.line.you" : "move.line", { seat: seatName(message, move.seat, true), move: moveWords(move, mine ? "move.you" : "move") });
    if (move.robot) {
      item.dataset.robot = "true";
      item.textContent += " " + t(move.seat === message.seat ? "log.robot.you" : "log.robot");
    }
    return item;
  }

  function drawClock(message) {
    const box = $("clock-left");
    if (clockTimer) clearInterval(clockTimer);
    clockTimer = null;
    const clock = message.clock;
    if (!clock || message.over) {
      box.hidden = true;
      return;
    }
    const ends = Date.now() + 1000 * Number(clock.remaining || 0);
    const tick = () => {
      const left = Math.max(0, Math.round((ends - Date.now()) / 1000));
      box.textContent = t("clock.label", { seat: seatName(message, clock.seat, true), time: Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0") });
      box.classList.toggle("low", left <= 10);
    };
    tick();
    box.hidden = false;
    clockTimer = setInterval(tick, 1000);
  }

  function drawNotice(message) {
    const box = $("notice");
    const notice = message.notice;
    if (!notice) {
      box.hidden = true;
      box.textContent = "";
      return;
    }
    const key = "notice." + notice.code;
    const text = t(key);
    box.textContent = text === key ? t("notice.other", { message: String(notice.message || notice.code) }) : text;
    box.dataset.code = notice.code;
    box.hidden = false;
  }

  // ---- the end of a hand and of a match -------------------------------------------------

  // Why the hand ended: the server's outcome if it sends one, else from the scores (a going-out
  // bonus) and the hand's last view (the turns without progress, R24).
  function termination(message, handView, final) {
    const sent = message.outcome || (message.view && message.view.outcome);
    if (sent && sent.termination) return { why: sent.termination, team: sent.went_out };
    if (final[0].going_out > 0) return { why: "went-out", team: 0 };
    if (final[1].going_out > 0) return { why: "went-out", team: 1 };
    if (handView && handView.went_out !== null && handView.went_out !== undefined) return { why: "went-out", team: handView.went_out };
    if (handView && handView.idle_turns >= STALEMATE_TURNS - 1) return { why: "stalemate", team: null };
    return { why: "stock-exhausted", team: null };
  }

  function drawEnd(message) {
    const dialog = $("end");
    const scores = message.scores || [];
    // The dialog stays until the person closes it (button or Esc): a score is never taken away
    // unread, and the "Scores" button opens it again during the next hand.
    // Offered once a hand is scored: during a match's next hand, and at a finished table, where
    // the dialog holds "New table" and "Replay this table".
    $("btn-scores").hidden = !scores.length;
    if (previous === null && !message.over) endShown = scores.length; // joined mid-match
    if (scores.length <= endShown) return;
    // A single hand's last view is the end; a match's is the next deal, so the hand that ended
    // is seen in the view before it.
    const handView = message.match && !message.over ? previous && previous.view : message.view;
    endShown = scores.length;
    const us = message.seat % 2, them = 1 - us;
    // At two, each player is a team (R1): "You" and "Opponent", not "your team" and "their team".
    const one = message.seats.length === 2;
    const team = (k) => (one ? (k === us ? t("end.one.us") : t("end.one.them")) : k === us ? t("end.team.us") : t("end.team.them"));
    const final = scores[scores.length - 1];
    const title = message.match ? (message.over ? t("end.title.match") : t("end.title.handn", { hand: scores.length })) : t("end.title.hand");
    $("end-heading").textContent = title;
    const end = termination(message, handView, final);
    if (one && end.why === "went-out") $("end-why").textContent = end.team === us ? t("end.why.went-out.one.us") : t("end.why.went-out.one.them");
    else $("end-why").textContent = t("end.why." + end.why, { team: end.team === null ? "" : team(end.team) });
    $("end-why").dataset.termination = end.why;
    const a = final[us].total, b = final[them].total;
    let result;
    if (message.match && !message.over) {
      // A hand of a match that goes on: who did better in this hand, and the match so far (not
      // "wins", which a player reads as the match's result).
      const which = a === b ? "tie" : (one ? "one." : "") + (a > b ? "us" : "them");
      const totals = message.match.totals;
      result = t("end.hand." + which) + " " + t("end.goes.on", { us: totals[us], them: totals[them] });
    } else if (a === b) result = t("end.tie");
    else if (one) result = a > b ? t("end.winner.one.us") : t("end.winner.one.them");
    else result = a > b ? t("end.winner.us") : t("end.winner.them");
    if (message.match && message.over) {
      const won = message.match.winner === us;
      if (one) result = won ? t("end.match.one.us") : t("end.match.one.them");
      else result = won ? t("end.match.us") : t("end.match.them");
    }
    $("end-result").textContent = result;

    const table = $("score-table");
    table.textContent = "";
    const items = ["table", "canastas", "going_out", "hands", "extra_pile", "total"];
    const head = document.createElement("tr");
    for (const text of [t("end.item"), team(us), team(them)]) {
      const th = document.createElement("th");
      th.scope = "col";
      th.textContent = text;
      head.append(th);
    }
    table.append(head);
    for (const key of items) {
      const sign = key === "hands" || key === "extra_pile" ? -1 : 1;
      const tr = document.createElement("tr");
      tr.dataset.item = key;
      const th = document.createElement("th");
      th.scope = "row";
      th.textContent = pileWords("end.item." + key);
      tr.append(th);
      for (const team of [us, them]) {
        const td = document.createElement("td");
        td.dataset.team = String(team);
        td.textContent = String(sign * final[team][key] || 0);
        tr.append(td);
      }
      table.append(tr);
    }

    const box = $("match-box");
    box.hidden = !message.match;
    if (message.match) {
      $("match-target").textContent = t("end.target", { target: message.match.target });
      const matchTable = $("match-table");
      matchTable.textContent = "";
      const header = document.createElement("tr");
      for (const text of [t("end.hand"), team(us), t("end.running"), team(them), t("end.running")]) {
        const th = document.createElement("th");
        th.scope = "col";
        th.textContent = text;
        header.append(th);
      }
      matchTable.append(header);
      let runUs = 0, runThem = 0;
      scores.forEach((pair, i) => {
        runUs += pair[us].total;
        runThem += pair[them].total;
        const tr = document.createElement("tr");
        tr.dataset.hand = String(i + 1);
        const th = document.createElement("th");
        th.scope = "row";
        th.textContent = t("end.hand.n", { hand: i + 1 });
        tr.append(th);
        for (const value of [pair[us].total, runUs, pair[them].total, runThem]) {
          const td = document.createElement("td");
          td.textContent = String(value);
          tr.append(td);
        }
        matchTable.append(tr);
      });
    }
    const over = message.over;
    $("end-close").textContent = t(over ? "end.close" : "end.next");
    $("new-table").hidden = !over;
    $("replay-table").hidden = !over;
    $("replay-table").href = "replay#table=" + encodeURIComponent(message.table);
    dialog.dataset.number = String(message.number);
    dialog.dataset.hands = String(scores.length);
    dialog.dataset.closed = "";
    if (!dialog.open) dialog.showModal();
    $("end-close").focus();
  }

  // ---- keys ------------------------------------------------------------------------------

  function shortcut(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) return;
    if ($("table").hidden || $("end").open) return;
    const key = event.key.toLowerCase();
    if (key === "h" || key === "g") {
      // H: to the hand's first card; G: to your team's first meld.
      const first = document.querySelector(key === "h" ? "#hand .card" : "#melds-us .meld");
      if (first) {
        event.preventDefault();
        first.focus();
      }
      return;
    }
    const moves = { arrowleft: -1, arrowright: 1, home: -Infinity, end: Infinity };
    if (key in moves && target && target.closest && target.closest("#hand, .melds")) {
      // Arrows move along the hand, or along the melds; Home and End to either end.
      const group = Array.from(target.closest("#hand, .melds").querySelectorAll("button"));
      const at = group.indexOf(target) + moves[key];
      const next = group[Math.max(0, Math.min(group.length - 1, at))];
      if (next) {
        event.preventDefault();
        next.focus();
      }
      return;
    }
    const ids = { d: "btn-draw", t: "btn-take", m: "btn-meld", x: "btn-discard", escape: "btn-clear", b: "btn-back" };
    const id = ids[key];
    if (!id) return;
    event.preventDefault();
    if (key === "escape") showMessage("", ""); // Esc also dismisses a hint or a refusal
    if (!$(id).disabled && !$(id).hidden) $(id).click();
  }

  // ---- start ---------------------------------------------------------------------------

  function translateAll() {
    I.translatePage();
    for (const option of $("variant").options) {
      if (variants[option.value]) option.textContent = variantName(option.value, variants[option.value].title);
    }
    clockChoices();
    seatChoices();
    optionChoices();
    drawMine();
    if ($("conn").dataset.state !== "idle") setConn($("conn").dataset.state);
    if (welcome) $("title").textContent = t(welcome.match ? "title.match" : "title.hand", { title: variantName(welcome.variant, welcome.title) });
    if (messageShown) showMessage(messageShown.make, messageShown.code, messageShown.style);
    if (createShown && !$("create-error").hidden) $("create-error").textContent = createShown();
    if (last) {
      endShown = Math.max(0, endShown - 1); // redraw the dialog's words if it is open
      const open = $("end").open;
      render(last);
      if (!open) $("end").close();
    }
  }

  function start() {
    I.languageSwitch($("lang"), translateAll);
    I.translatePage();
    clockChoices();
    $("players").addEventListener("change", seatChoices);
    $("variant").addEventListener("change", playerChoices);
    loadVariants().then(drawMine);
    $("create-form").addEventListener("submit", createTable);
    // A refusal of the form goes once the person changes it (it may no longer hold).
    $("create-form").addEventListener("input", () => {
      $("create-error").hidden = true;
      createShown = null;
    });
    seatChoices();
    drawMine();
    $("btn-draw").addEventListener("click", () => send("draw"));
    $("btn-take").addEventListener("click", take);
    $("btn-refuse").addEventListener("click", () => send("refuse"));
    $("btn-back").addEventListener("click", comeBack);
    $("btn-meld").addEventListener("click", () => {
      const action = matches("meld")[0];
      send(action || "meld " + selectedCards().join(" ")); // the engine says why it is refused
    });
    $("btn-discard").addEventListener("click", () => {
      const action = matches("discard")[0];
      send(action || "discard " + selectedCards()[0]);
    });
    $("btn-clear").addEventListener("click", () => {
      selected.clear();
      showMessage("", "");
      if (last) render(last);
    });
    $("end-close").addEventListener("click", () => {
      $("end").dataset.closed = "person"; // at once: the close event comes a task later
      $("end").close();
    });
    $("btn-scores").addEventListener("click", () => {
      const dialog = $("end");
      dialog.dataset.closed = "";
      if (!dialog.open) dialog.showModal();
      $("end-close").focus();
    });
    $("end").addEventListener("close", () => {
      if ($("end").dataset.closed === "") $("end").dataset.closed = "person";
    });
    document.addEventListener("keydown", shortcut);
    // A new seat's link, or Back/Forward to another table or to the lobby: the page starts
    // again from the address (the lobby where it names no table).
    const onAddress = () => {
      const params = new URLSearchParams(location.hash.slice(1));
      const table = params.get("table");
      if (params.get("token") || (join ? table !== join.table : table)) location.reload();
    };
    window.addEventListener("hashchange", onAddress);
    window.addEventListener("popstate", onAddress);
    join = readSeat();
    if (join) {
      $("lobby").hidden = true;
      connect();
    }
  }

  // How the page reads a meld, for the tests that compare it with the engine's.
  window.BURACO_PAGE = Object.freeze({ readMeld: readMeld });
  start();
})();
