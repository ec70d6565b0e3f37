// The board and direct control, for any game: tiles drawn once per room and updated in place, so
// nothing moves under the pointer or loses focus between steps. The page draws only what the game's
// view describes (tiles, agents, and for the person's agent the actions available now, each with its
// exact command, words, group and tile) and never reads or builds a command string. Words shown to
// people come from the game's static view (`page.words`) over neutral defaults. No framework, no assets.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const KEY_POOL = "1234567890abcdefghijklmnopqrstuvwxyz";
const board = { tiles: new Map(), selected: null, built: null, lastAnimated: null, labels: new Map(), groupsBuilt: null };

// ------------------------------------------------------------------ words
const DEFAULT_WORDS = {
  title: "game", board: "Board", tables: "The game as tables", recipes: "How things are made",
  director: "director", director_example: "e.g. agent1, take the oldest order first",
  director_help: "A language model reads anything; a built-in policy follows what it understands.",
  completed: "completed", failed: "missed", open: "open", busy: "busy",
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
function remember(actions) { for (const a of actions) board.labels.set(a.command, a.label); }
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

// --------------------------------------------------------------- controls
// The buttons are built once per room from the game's groups, so they never move: one button per
// single group (it acts on the chosen tile), and one row of item buttons for the groups with `many`.
function buildControls(groups) {
  const signature = groups.map((g) => `${g.id}:${g.key}:${g.many ? 1 : 0}`).join(",");
  if (board.groupsBuilt === signature) return;
  board.groupsBuilt = signature;
  const box = clear($("actions"));
  for (const g of groups.filter((x) => !x.many)) {
    const button = el("button", { type: "button", class: "act", id: `act-${g.id}`, "data-slot": g.id,
      onclick: (e) => act(e.currentTarget) });
    if (g.key) button.setAttribute("aria-keyshortcuts", g.key);
    button.append(el("kbd", { text: (g.key || "").toUpperCase(), "aria-hidden": "true" }), " ", el("span", { text: g.label }));
    box.append(button);
  }
  const many = groups.filter((x) => x.many);
  $("takes").setAttribute("aria-label", many.length ?
    `${many.map((g) => g.label.toLowerCase()).join(" or ")}: choose one (${many.map((g) => g.key.toUpperCase()).join(", ")}, then arrow keys)` :
    "choices at the chosen place");
  $("takes").hidden = !many.length;
  const keys = groups.filter((g) => g.key).map((g) => `${g.key.toUpperCase()} ${g.label.toLowerCase()}`).join(", ");
  $("keys-help").textContent = `Keys: a place's number or letter picks it${keys ? ", then " + keys : ""}.`;
  clear($("takes")).dataset.signature = "";
}

function setAction(button, command, text) {
  button.dataset.command = command || "";
  button.setAttribute("aria-disabled", command ? "false" : "true");
  button.querySelector("span").textContent = text;
  button.title = text; // the label may wrap; the tooltip and the accessible name always hold all of it
  button.classList.toggle("chosen", !!command && command === (app.lastState && app.lastState.you && app.lastState.you.queued));
}

// The item buttons at the chosen tile: first what the tile always offers (stable positions,
// disabled when not possible now), then whatever else the game offers there now.
function itemChoices(actions, groups) {
  const many = new Set(groups.filter((g) => g.many).map((g) => g.id));
  const here = actions.filter((a) => many.has(a.group) && a.tile === board.selected);
  const offers = ((pageInfo().offers || {})[board.selected]) || [];
  const first = groups.find((g) => g.many);
  const out = offers.map((item) => ({ item, group: (first || {}).id, action: here.find((a) => a.item === item) }));
  for (const a of here) if (!offers.includes(a.item)) out.push({ item: a.item, group: a.group, action: a });
  if (!out.length && first) out.push({ item: null, group: first.id, action: null });
  return out;
}

function itemButtons(actions, groups) {
  const box = $("takes");
  const wanted = itemChoices(actions, groups);
  const signature = board.selected + "|" + wanted.map((w) => `${w.group}:${w.item}:${w.action ? w.action.command : ""}`).join(",");
  if (box.dataset.signature !== signature) {
    const focused = box.contains(document.activeElement) ? [...box.children].indexOf(document.activeElement) : -1;
    clear(box);
    for (const w of wanted) {
      const g = groups.find((x) => x.id === w.group) || {};
      box.append(el("button", { type: "button", class: "act take", "data-item": w.item || "", "data-group": w.group || "",
        onclick: (e) => act(e.currentTarget) }, w.item ? el("span", { class: "icon", "aria-hidden": "true" }, iconOf(w.item))
        : el("kbd", { text: (g.key || "").toUpperCase(), "aria-hidden": "true" }), el("span", {})));
    }
    box.dataset.signature = signature;
    const keep = Math.min(focused, box.children.length - 1);
    if (focused >= 0 && box.children[keep]) box.children[keep].focus();
  }
  const queued = app.lastState && app.lastState.you && app.lastState.you.queued;
  [...box.children].forEach((b, i) => {
    const w = wanted[i];
    const g = groups.find((x) => x.id === w.group) || { label: "" };
    const text = w.action ? (w.action.short || capital(w.action.label)) : w.item ? `${g.label} ${pretty(w.item)}` : `${g.label} (nothing here)`;
    b.dataset.command = w.action ? w.action.command : "";
    b.setAttribute("aria-disabled", w.action ? "false" : "true");
    b.querySelector("span:last-child").textContent = b.title = text;
    b.setAttribute("aria-label", w.action ? w.action.label : w.item ? `${g.label.toLowerCase()} ${pretty(w.item)} (not now)` :
      `${g.label.toLowerCase()}: nothing here`);
    b.classList.toggle("chosen", !!w.action && w.action.command === queued);
  });
}

function renderActions(s) {
  const actions = actionsOf(s);
  remember(actions);
  const groups = groupsOf(actions);
  buildControls(groups);
  if (app.role !== "player") return;
  const you = s.you || {};
  const mine = s.agents.find((a) => a.agent === app.agent) || {};
  if (board.selected === null || !board.tiles.has(board.selected)) board.selected = board.tiles.has(mine.location) ? mine.location : null;
  const tile = tilesOf(s).find((t) => t.id === board.selected);
  $("selected-name").textContent = tile ? tile.label : "pick a place";
  $("hold-line").textContent = `You are at ${mine.location ? labelOfTile(s, mine.location) : "nowhere yet"} and hold ${mine.holding ? pretty(mine.holding) : "nothing"}.`;
  for (const g of groups.filter((x) => !x.many)) {
    const button = $(`act-${g.id}`);
    if (!button) continue;
    const chosen = actions.find((a) => a.group === g.id && (a.tile === board.selected || a.tile === null || a.tile === undefined));
    setAction(button, chosen && chosen.command, chosen ? capital(chosen.label) : g.label);
  }
  itemButtons(actions, groups);
  $("queued").textContent = you.queued ? `Next step you will: ${labelOf(you.queued)}.` : s.status === "running" ? "Choose what to do next." : "";
  for (const t of board.tiles.values()) {
    t.classList.toggle("selected", t.dataset.location === board.selected);
    t.setAttribute("aria-pressed", t.dataset.location === board.selected ? "true" : "false");
  }
  renderCoach(s);
}

function labelOfTile(s, id) {
  const t = tilesOf(s).find((x) => x.id === id);
  return t ? t.label : pretty(id);
}

function selectTile(name, focusAction) {
  board.selected = name;
  if (app.lastState) renderActions(app.lastState);
  if (focusAction) {
    const first = [...document.querySelectorAll("#controls .actions .act, #takes .act")].find((b) => b.getAttribute("aria-disabled") === "false");
    if (first) first.focus();
  }
}

function act(button) {
  if (!button || button.getAttribute("aria-disabled") === "true" || !button.dataset.command) {
    toast("not possible right now", "info");
    return;
  }
  send({ type: "command", command: button.dataset.command });
}

function onKey(event) {
  if (app.role !== "player" || $("game").hidden || !$("survey").hidden) return;
  const t = event.target;
  if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT")) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const key = event.key.toLowerCase();
  const takes = [...$("takes").children];
  if ((key === "arrowright" || key === "arrowleft") && takes.includes(document.activeElement)) {
    const i = takes.indexOf(document.activeElement) + (key === "arrowright" ? 1 : -1);
    if (takes[(i + takes.length) % takes.length]) takes[(i + takes.length) % takes.length].focus();
    event.preventDefault();
    return;
  }
  const group = key.length === 1 ? groupsOf(actionsOf(app.lastState)).find((g) => g.key === key) : null;
  if (group && !group.many) {
    const button = $(`act-${group.id}`);
    if (button) { act(button); button.focus(); }
    event.preventDefault();
    return;
  }
  if (group) {
    const row = takes.filter((b) => b.dataset.group === group.id);
    const first = row.find((b) => b.getAttribute("aria-disabled") === "false") || row[0] || takes[0];
    if (first) first.focus();
    event.preventDefault();
    return;
  }
  const index = key.length === 1 ? tileKeys().indexOf(key) : -1;
  if (index >= 0) {
    const tile = [...board.tiles.values()][index];
    if (tile) { selectTile(tile.dataset.location, false); tile.focus(); event.preventDefault(); }
  }
}

// ------------------------------------------------------------------ coach
function renderCoach(s) {
  const box = $("coach");
  box.hidden = !s.practice;
  if (!s.practice) return;
  const you = s.you || {};
  let text;
  for (const t of board.tiles.values()) t.classList.remove("hint");
  if (s.counts.completed > 0) text = word("practice_done");
  else if (s.status === "waiting") text = "Press Ready (or wait) to start.";
  else if (s.status === "finished") text = "The practice is over. Press Play again to try once more.";
  else if (you.hint) {
    const hint = actionsOf(s).find((a) => a.command === you.hint);
    const group = hint ? groupsOf(actionsOf(s)).find((g) => g.id === hint.group) : null;
    const keyOf = group && group.key ? group.key.toUpperCase() : "";
    if (!hint) text = `Next: ${you.hint}.`;
    else if (!hint.tile) text = `Next: ${hint.label}. ` + (keyOf ? `Press ${keyOf} to ${hint.label}.` : "");
    else {
      const tile = board.tiles.get(hint.tile);
      const key = tile && tile.dataset.key ? ` (key ${tile.dataset.key.toUpperCase()})` : "";
      text = `Next: ${hint.label}. Pick ${labelOfTile(s, hint.tile)}${key}, then ${keyOf}${group && group.many ? " and choose the item" : ""}.`;
      if (tile) tile.classList.add("hint");
    }
  } else text = word("practice_goal");
  $("coach-text").textContent = text;
}

// ---------------------------------------------------------------- results
function plural(n, one, many) { return `${n} ${n === 1 ? one : many}`; }

function renderResults(msg) {
  const box = clear($("results"));
  const team = msg.team || [];
  if (!team.length) return;
  const mine = team.find((a) => a.agent === msg.agent);
  if (mine && app.role === "player") {
    box.append(el("p", { class: "yours", text: `Your part (${mine.name}): ${plural(mine.served, word("completed_one"), word("completed_many"))}, ` +
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

document.addEventListener("keydown", onKey);
