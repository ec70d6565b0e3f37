// The board, for any game: tiles drawn once per room and updated in place, so nothing moves under
// the pointer or loses focus between steps. The page draws only what the game's view describes
// (tiles, agents, and for the person's agent the actions available now, each with its exact command,
// words, group and tile; see controls.js) and never reads or builds a command string. Words shown to
// people come from the game's static view (`page.words`) over neutral defaults. No framework, no assets.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const KEY_POOL = "1234567890abcdefghijklmnopqrstuvwxyz";
const board = { tiles: new Map(), selected: null, built: null, lastAnimated: null, labels: new Map(), groupsBuilt: null,
  tileOf: new Map(), lastRefusal: null };

// ------------------------------------------------------------------ words
const DEFAULT_WORDS = {
  title: "game", board: "Board", tables: "The game as tables", recipes: "How things are made",
  director: "director", director_example: "e.g. agent1, take the oldest order first",
  director_help: "Every line gets a reply saying whether the team can follow it.",
  completed: "completed", failed: "missed", open: "open", busy: "busy", score: "team score",
  completed_line: "Completed {}!", failed_line: "{} missed.",
  completed_one: "order completed", completed_many: "orders completed", made_one: "item made", made_many: "items made",
  practice_goal: "Complete the order on the ticket: the hint shows the next action.",
  practice_done: "Tutorial complete: you completed an order! Leave with “Rooms”, or keep practising.",
};
function pageInfo() { return (app.level && app.level.page) || {}; }
function word(key) { return (pageInfo().words || {})[key] || DEFAULT_WORDS[key]; }
function fill(template, value) { return String(template).replace("{}", value); }
function capital(text) { return text ? text[0].toUpperCase() + text.slice(1) : text; }

function pretty(name) {
  if (name === null || name === undefined) return "";
  const display = (app.level && app.level.display) || {};
  if (display[name]) return display[name];
  return String(name).replace(/_/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
}
function iconOf(name, type) {
  // A badge drawn by us (no emoji font needed): a coloured disc with the name's initials.
  const key = String(type || name || "?");
  let hash = 0;
  for (const ch of String(name || key)) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  const words = pretty(name || key).split(" ").filter((w) => w && !/^\d+$/.test(w));
  const text = (words.length > 1 ? words[0][0] + words[1][0] : (words[0] || "?").slice(0, 2)).toUpperCase();
  const svg = document.createElementNS(SVGNS, "svg");
  svg.setAttribute("viewBox", "0 0 32 32");
  svg.setAttribute("class", "badge");
  svg.setAttribute("aria-hidden", "true");
  const disc = document.createElementNS(SVGNS, "circle");
  disc.setAttribute("cx", "16"); disc.setAttribute("cy", "16"); disc.setAttribute("r", "15");
  disc.setAttribute("fill", `hsl(${hash % 360} 45% 38%)`);
  const label = document.createElementNS(SVGNS, "text");
  label.setAttribute("x", "16"); label.setAttribute("y", "21"); label.setAttribute("text-anchor", "middle");
  label.textContent = text;
  svg.append(disc, label);
  return svg;
}

// --------------------------------------------------------------- actions
// The action groups the game declares (buttons with keys); a group an action names that was not
// declared gets a row of its own buttons; "other" actions are listed only as text.
function groupsOf(actions) {
  const declared = (pageInfo().groups || []).map((g) => ({ ...g }));
  const known = new Set(declared.map((g) => g.id));
  for (const a of actions || []) {
    if (a.group !== "other" && !known.has(a.group)) {
      known.add(a.group);
      declared.push({ id: a.group, label: capital(pretty(a.group)), key: "", many: true });
    }
  }
  return declared;
}
function actionsOf(s) { return ((s && s.you) || {}).actions || []; }
// A command's words, from the last actions that described it (the command itself otherwise).
function labelOf(command) {
  if (!command) return "";
  for (const a of actionsOf(app.lastState)) if (a.command === command) return a.label;
  return board.labels.get(command) || command;
}
function remember(actions) {
  for (const a of actions) {
    board.labels.set(a.command, a.label);
    if (a.tile) board.tileOf.set(a.command, a.tile);
  }
}
function tileKeys() {
  const used = new Set(groupsOf(actionsOf(app.lastState)).map((g) => g.key).filter((k) => k));
  return [...KEY_POOL].filter((k) => !used.has(k));
}

// ------------------------------------------------------------------ tiles
// The game's tiles, or (a game that sends none) tiles made from its locations.
function tilesOf(s) {
  if (Array.isArray(s.tiles)) return s.tiles;
  return (s.locations || []).map((loc) => ({
    id: loc.name, label: pretty(loc.name), kind: loc.type, holds: (loc.content || []).map((c) => pretty(c)),
    busy: loc.in_use ? { share: Math.min(1, (loc.busy || 0) / 5), short: String(loc.busy || ""), text: `${loc.busy} step(s)` } : null,
    users: null, goal: false, stock: false,
  }));
}

function ring(share, left) {
  const svg = document.createElementNS(SVGNS, "svg");
  svg.setAttribute("viewBox", "0 0 36 36");
  svg.setAttribute("class", "ring");
  svg.setAttribute("aria-hidden", "true");
  const back = document.createElementNS(SVGNS, "circle");
  const front = document.createElementNS(SVGNS, "circle");
  for (const c of [back, front]) { c.setAttribute("cx", "18"); c.setAttribute("cy", "18"); c.setAttribute("r", "15"); }
  back.setAttribute("class", "ring-back");
  front.setAttribute("class", "ring-front");
  front.setAttribute("stroke-dasharray", `${(share * 94.2).toFixed(1)} 94.2`);
  const text = document.createElementNS(SVGNS, "text");
  text.setAttribute("x", "18"); text.setAttribute("y", "22"); text.setAttribute("text-anchor", "middle");
  text.textContent = left;
  svg.append(back, front, text);
  return svg;
}

function boardKey(s, tiles) { return s.room + ":" + tiles.map((t) => t.id).join(","); }

function buildBoard(s, tiles) {
  const box = clear($("board"));
  board.tiles.clear();
  const keys = tileKeys();
  tiles.forEach((t, i) => {
    const key = keys[i] || "";
    const tile = el("button", { type: "button", class: `tile t-${t.kind || "place"}`, "data-location": t.id,
      "data-key": key, onclick: () => selectTile(t.id, false) });
    if (key) tile.setAttribute("aria-keyshortcuts", key);
    tile.append(
      el("span", { class: "key", text: key.toUpperCase(), "aria-hidden": "true" }),
      el("span", { class: "icon", "aria-hidden": "true" }, iconOf(null, t.kind || t.id)),
      el("span", { class: "name", text: t.label }),
      el("span", { class: "contents" }),
      el("span", { class: "progress" }),
      el("span", { class: "chefs" }),
      el("span", { class: "why", hidden: true }),
    );
    if (Array.isArray(t.users)) tile.append(el("span", { class: "reach small", text: reachLine(t.users) }));
    box.append(tile);
    board.tiles.set(t.id, tile);
  });
  board.built = boardKey(s, tiles);
}

// The visible line of who may use a tile: the person's own agent reads "you", and a tile it cannot
// use says so first ("not yours"), since a faded tile alone is easy to miss on a phone.
function reachLine(users) {
  if (!users.length) return "reach: nobody";
  const own = app.role === "player" ? app.agent : null;
  const names = users.map((a) => (a === own ? "you" : "agent" + a)).join(", ");
  return own !== null && !users.includes(own) ? `not yours: ${names}` : `reach: ${names}`;
}

function chefToken(a, s) {
  const mine = app.role === "player" && a.agent === app.agent;
  const human = s.controllers[a.agent] === "human";
  const token = el("span", { class: "chef" + (mine ? " mine" : human ? " person" : "") });
  token.append(el("span", { class: "hat", text: mine ? "You" : String(a.agent) }));
  if (a.holding) token.append(el("span", { class: "held", text: pretty(a.holding) }));
  token.title = `${a.name}${mine ? " (you)" : human ? " (a person)" : ""}: holding ${a.holding ? pretty(a.holding) : "nothing"}`;
  return token;
}

function renderBoard(s) {
  const tiles = tilesOf(s);
  if (board.built !== boardKey(s, tiles)) buildBoard(s, tiles);
  const here = new Map();
  const elsewhere = [];
  for (const a of s.agents) {
    if (board.tiles.has(a.location)) (here.get(a.location) || here.set(a.location, []).get(a.location)).push(a);
    else elsewhere.push(a);
  }
  for (const t of tiles) {
    const tile = board.tiles.get(t.id);
    if (!tile) continue;
    const contents = (t.holds || []).length ? t.holds.join(", ") : "empty";
    tile.querySelector(".contents").textContent = contents;
    const progress = clear(tile.querySelector(".progress"));
    let busyText = "";
    if (t.busy) {
      progress.append(ring(t.busy.share, t.busy.short));
      busyText = `, ${word("busy")}: ${t.busy.long || t.busy.text}`;
    }
    const chefs = clear(tile.querySelector(".chefs"));
    const people = here.get(t.id) || [];
    for (const a of people) chefs.append(chefToken(a, s));
    tile.classList.toggle("busy", !!t.busy);
    tile.classList.toggle("has-me", people.some((a) => app.role === "player" && a.agent === app.agent));
    tile.classList.toggle("selected", board.selected === t.id);
    const who = people.map((a) => (app.role === "player" && a.agent === app.agent) ? "you" : a.name).join(", ");
    const users = Array.isArray(t.users) ? t.users : null;
    const outOfReach = !!users && app.role === "player" && !users.includes(app.agent);
    tile.classList.toggle("out-of-reach", outOfReach);
    tile.dataset.goal = t.goal ? "true" : "false";
    const reachSpan = tile.querySelector(".reach");
    if (reachSpan && users) reachSpan.textContent = reachLine(users);  // the seat may have changed
    const reachText = users ? `; reachable by ${users.length ? users.map((a) => "agent" + a).join(", ") : "nobody"}` +
      (outOfReach ? " (not by you)" : "") : "";
    tile.setAttribute("aria-label", `${tile.dataset.key ? tile.dataset.key + ": " : ""}${t.label}, ${contents}${busyText}` +
      `${who ? "; here: " + who : ""}${reachText}`);
    tile.setAttribute("aria-pressed", board.selected === t.id ? "true" : "false");
  }
  const team = clear($("team"));
  if (elsewhere.length) {
    team.append(el("span", { class: "muted small", text: "Agents: " }));
    for (const a of elsewhere) {
      team.append(el("span", { class: "team-agent" }, chefToken(a, s),
        el("span", { class: "small", text: ` ${a.name}${a.location ? " at " + a.location : ""}` })));
    }
  }
  animateOrders(s);
  showRefusal(s);
}

// A refused command of the person's shows at once where they look: its tile flashes and says why in
// a few words (the game's `page.reasons`, by reason code; the full sentence otherwise), the line
// under the score says it too, and the event log keeps it. It stays until the next step.
function showRefusal(s) {
  const last = s.last_step;
  const key = last ? `${s.room}:${s.episode}:${last.step}` : null;
  if (key === board.lastRefusal) return;
  board.lastRefusal = key;
  for (const tile of board.tiles.values()) {
    tile.classList.remove("refused");
    const why = tile.querySelector(".why");
    if (why) why.hidden = true;
  }
  $("refusal").textContent = "";
  if (!last || app.role !== "player") return;
  const mine = last.actions.find((a) => a.agent === app.agent && a.by === "human" && !a.ok && !a.idle);
  if (!mine) return;
  const reasons = pageInfo().reasons || {};
  const words = (mine.code && reasons[mine.code]) || mine.reason || "not possible";
  const what = labelOf(mine.command);
  $("refusal").textContent = `Not done: ${what}. ${words}.`;
  logEvent(`step ${last.step}: not done: ${what}. ${words}.`, "bad");
  const tile = board.tiles.get(board.tileOf.get(mine.command));
  if (!tile) return;
  const why = tile.querySelector(".why");
  why.textContent = words;
  why.hidden = false;
  tile.classList.remove("refused"); void tile.offsetWidth; tile.classList.add("refused");
  tile.setAttribute("aria-label", `${tile.getAttribute("aria-label")}; not done: ${words}`);
  revealBelowSticky(tile);
}

// On a phone the focused button can sit a screen below its tile, so the sticky figures cover the
// tile's banner; bring the tile back into view just below them.
function revealBelowSticky(tile) {
  const sticky = $("sticky");
  const top = sticky ? sticky.getBoundingClientRect().bottom : 0;
  const box = tile.getBoundingClientRect();
  // the refusal line just grew the sticky block, so its height is measured now, not taken from the
  // page's scroll padding (set before the line was written)
  if (box.top < top + 4) window.scrollBy(0, box.top - top - 8);
  else if (box.bottom > window.innerHeight) window.scrollBy(0, Math.min(box.bottom - window.innerHeight + 8, box.top - top - 8));
}

// ---------------------------------------------------------------- orders
function renderTickets(s) {
  const list = clear($("orders"));
  if (!s.orders.length) { list.append(el("li", { class: "muted empty", text: "no open orders" })); return; }
  const lifetime = Math.max(1, ...s.orders.map((o) => o.lifetime), app.maxLife || 1);
  app.maxLife = lifetime;
  for (const o of s.orders) {
    const urgent = o.lifetime <= 5 ? " urgent" : "";
    const bar = el("span", { class: "life-bar" }, el("span", { class: "life-fill" }));
    bar.firstChild.style.width = `${Math.max(4, (o.lifetime / lifetime) * 100).toFixed(0)}%`;
    bar.setAttribute("aria-hidden", "true");
    list.append(el("li", { class: "order ticket" + urgent, "data-dish": o.dish },
      el("span", { class: "ticket-icon", "aria-hidden": "true" }, iconOf(o.dish)),
      el("span", { class: "dish", text: pretty(o.dish), title: pretty(o.dish) }),
      bar,
      el("span", { class: "life", text: `${o.lifetime} step${o.lifetime === 1 ? "" : "s"} left` })));
  }
}

function animateOrders(s) {
  const last = s.last_step;
  if (!last || board.lastAnimated === `${s.room}:${s.episode}:${last.step}`) return;
  board.lastAnimated = `${s.room}:${s.episode}:${last.step}`;
  const pops = $("pops");
  const pop = (text, kind) => {
    const node = el("span", { class: `pop ${kind}`, text });
    pops.append(node);
    setTimeout(() => node.remove(), 2200);
  };
  for (const done of last.completed) pop(`✔ ${fill(word("completed_line"), pretty(done))}`, "good");
  for (const lost of last.failed) pop(`✖ ${fill(word("failed_line"), pretty(lost))}`, "bad");
  if (last.completed.length) {
    for (const tile of board.tiles.values()) if (tile.dataset.goal === "true") {
      tile.classList.remove("flash"); void tile.offsetWidth; tile.classList.add("flash");
    }
  }
}

// ---------------------------------------------------------------- results
function plural(n, one, many) { return `${n} ${n === 1 ? one : many}`; }

function renderResults(msg) {
  const box = clear($("results"));
  if (msg.sources && msg.sources.line) box.append(el("p", { class: "muted small", text: msg.sources.line }));
  const team = msg.team || [];
  if (!team.length) return;
  const mine = team.find((a) => a.agent === msg.agent);
  if (mine && app.role === "player") {
    // a game that follows who worked on each dish sends `share`: hand-offs count, not only the serve
    const part = typeof mine.share === "number"
      ? `a share of ${Number.isInteger(mine.share) ? mine.share : mine.share.toFixed(1)} ${word("completed_many")} ` +
        `(each split among everyone who worked on it; ${mine.served} by your own hand)`
      : plural(mine.served, word("completed_one"), word("completed_many"));
    box.append(el("p", { class: "yours", text: `Your part (${mine.name}): ${part}, ` +
      `${plural(mine.made, word("made_one"), word("made_many"))}, ${mine.worked} steps worked.` }));
  }
  const table = el("div", { class: "timeline", role: "table", "aria-label": "what each agent did, step by step" });
  for (const a of team) {
    const row = el("div", { class: "tl-row", role: "row" },
      el("span", { class: "tl-name", role: "rowheader", text: `${a.name}${a.agent === msg.agent && app.role === "player" ? " (you)" : ""}` }),
      el("span", { class: "tl-sum", role: "cell", text: `${a.served} ${word("completed")} · ${a.made} made · ${a.worked} worked` }));
    const cells = el("span", { class: "tl-cells", role: "cell" });
    for (const t of a.timeline) {
      const kind = !t.ok ? "bad" : t.credit ? "credit" : t.idle ? "idle" : "ok";
      cells.append(el("span", { class: `tl ${kind}`, title: `step ${t.step}: ${labelOf(t.command)}${t.ok ? "" : " (refused)"}` }));
    }
    row.append(cells);
    table.append(row);
  }
  box.append(table, el("p", { class: "muted small", text: `Each square is a step: green worked, gold ${word("completed")} or made, grey waited, red refused.` }));
}

