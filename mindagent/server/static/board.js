// The kitchen board and direct control: tiles drawn once per room and updated in place, so nothing
// moves under the pointer or loses focus between steps. Works for any domain from `state.locations`,
// `state.agents` and the static `display` / `icons` names a domain may send. No framework, no assets.
"use strict";

const TILE_KEYS = "1234567890abcdefhijklmnoqr"; // g p s t w are actions
const SVGNS = "http://www.w3.org/2000/svg";
const board = { tiles: new Map(), selected: null, staticTakes: [], built: null, lastOrders: new Map() };

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
function parseCommand(command) {
  // Both command forms: verb_agentK[_item]_place and verb(Agent, target).
  const c = call(command);
  if (c) return { verb: c.verb, item: c.args.length > 1 ? c.args[0] : null, place: c.args[c.args.length - 1] || null };
  const parts = command.split("_");
  if (parts.length === 2) return { verb: parts[0], item: null, place: null };
  if (parts.length === 3) return { verb: parts[0], item: null, place: parts[2] };
  return { verb: parts[0], item: parts.slice(2, -1).join("_"), place: parts[parts.length - 1] };
}
const SLOT_OF = { goto: "go", get: "take", put: "put", activate: "start", noop: "wait",
  takeOutFurnace: "take", killMob: "take", mineBlock: "take", putItemFurnace: "put", putFuelFurnace: "put", putInChest: "put" };

function plainCommand(command) {
  // get_agent0_tuna_storage0 -> "take tuna from storage"; noop -> "wait"
  const p = parseCommand(command);
  const slot = SLOT_OF[p.verb];
  if (slot === "wait") return "wait";
  if (slot === "go") return `go to ${pretty(p.place)}`;
  if (slot === "take") return p.item ? `take ${pretty(p.item)} from ${pretty(p.place)}` : `take from ${pretty(p.place)}`;
  if (slot === "put") return p.item ? `put ${pretty(p.item)} into ${pretty(p.place)}` : `put into ${pretty(p.place)}`;
  if (slot === "start") return `start ${pretty(p.place)}`;
  return command;
}

// ------------------------------------------------------------------ tiles
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

function buildBoard(s) {
  const box = clear($("board"));
  board.tiles.clear();
  s.locations.forEach((loc, i) => {
    const key = TILE_KEYS[i] || "";
    const tile = el("button", { type: "button", class: `tile t-${loc.type}`, "data-location": loc.name,
      "data-key": key, onclick: () => selectTile(loc.name, false) });
    if (key) tile.setAttribute("aria-keyshortcuts", key);
    tile.append(
      el("span", { class: "key", text: key.toUpperCase(), "aria-hidden": "true" }),
      el("span", { class: "icon", "aria-hidden": "true" }, iconOf(null, loc.type)),
      el("span", { class: "name", text: pretty(loc.name) }),
      el("span", { class: "contents" }),
      el("span", { class: "progress" }),
      el("span", { class: "chefs" }),
    );
    const reachers = reachersOf(loc.name);
    if (reachers) {
      tile.dataset.reach = reachers.join(",");
      tile.append(el("span", { class: "reach small", text: reachLine(reachers) }));
    }
    tile.querySelector(".icon").setAttribute("aria-hidden", "true");
    tile.querySelector(".key").setAttribute("aria-hidden", "true");
    box.append(tile);
    board.tiles.set(loc.name, tile);
  });
  board.built = s.room + ":" + s.locations.map((l) => l.name).join(",");
  const storage = s.locations.find((l) => l.type === "storage");
  board.staticTakes = storage ? ((app.level && app.level.needed_ingredients) || []) : [];
}

// On a level whose agents reach different stations (`reach` in the static level view): the agents
// who can use a location, or null when every agent reaches everything.
function reachersOf(name) {
  const reach = app.level && app.level.reach;
  if (!reach) return null;
  const out = [];
  reach.forEach((names, a) => { if (names.includes(name)) out.push(a); });
  return out;
}

// The visible reach line: the person's own agent reads "you", and a place it cannot use says so
// first ("not yours"), since a faded tile alone is easy to miss on a phone.
function reachLine(reachers) {
  if (!reachers.length) return "reach: nobody";
  const own = app.role === "player" ? app.agent : null;
  const names = reachers.map((a) => (a === own ? "you" : "agent" + a)).join(", ");
  return own !== null && !reachers.includes(own) ? `not yours: ${names}` : `reach: ${names}`;
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
  const key = s.room + ":" + s.locations.map((l) => l.name).join(",");
  if (board.built !== key) buildBoard(s);
  const here = new Map();
  const elsewhere = [];
  for (const a of s.agents) {
    if (board.tiles.has(a.location)) (here.get(a.location) || here.set(a.location, []).get(a.location)).push(a);
    else elsewhere.push(a);
  }
  for (const loc of s.locations) {
    const tile = board.tiles.get(loc.name);
    if (!tile) continue;
    const contents = loc.type === "storage" ? "every ingredient" :
      loc.content.length ? loc.content.map((c) => pretty(c)).join(", ") : "empty";
    tile.querySelector(".contents").textContent = contents;
    const progress = clear(tile.querySelector(".progress"));
    let busyText = "";
    if (loc.in_use) {
      const share = loc.progress !== undefined ? 1 - loc.progress : Math.min(1, loc.busy / 5);
      progress.append(ring(share, loc.progress !== undefined ? `${Math.round(loc.progress * 100)}%` : String(loc.busy)));
      busyText = loc.progress !== undefined ? `, cooking ${Math.round(loc.progress * 100)}%` : `, cooking: ${loc.busy} steps left`;
    }
    const chefs = clear(tile.querySelector(".chefs"));
    const people = here.get(loc.name) || [];
    for (const a of people) chefs.append(chefToken(a, s));
    tile.classList.toggle("busy", !!loc.in_use);
    tile.classList.toggle("has-me", people.some((a) => app.role === "player" && a.agent === app.agent));
    tile.classList.toggle("selected", board.selected === loc.name);
    const who = people.map((a) => (app.role === "player" && a.agent === app.agent) ? "you" : a.name).join(", ");
    const reachers = reachersOf(loc.name);
    const outOfReach = !!reachers && app.role === "player" && !reachers.includes(app.agent);
    tile.classList.toggle("out-of-reach", outOfReach);
    const reachSpan = tile.querySelector(".reach");
    if (reachSpan && reachers) reachSpan.textContent = reachLine(reachers);  // the seat may have changed
    const reachText = reachers ? `; reachable by ${reachers.length ? reachers.map((a) => "agent" + a).join(", ") : "nobody"}` +
      (outOfReach ? " (not by you)" : "") : "";
    tile.setAttribute("aria-label", `${tile.dataset.key ? tile.dataset.key + ": " : ""}${pretty(loc.name)}, ${contents}${busyText}` +
      `${who ? "; here: " + who : ""}${reachText}`);
    tile.setAttribute("aria-pressed", board.selected === loc.name ? "true" : "false");
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
  for (const dish of last.completed) pop(`✔ Served ${pretty(dish)}!`, "good");
  for (const dish of last.failed) pop(`✖ ${pretty(dish)} expired`, "bad");
  if (last.completed.length) {
    for (const tile of board.tiles.values()) if (tile.classList.contains("t-servingtable") || tile.classList.contains("t-chest")) {
      tile.classList.remove("flash"); void tile.offsetWidth; tile.classList.add("flash");
    }
  }
}

// --------------------------------------------------------------- controls
function legalAt(you) {
  const slots = { go: [], take: [], put: [], start: [], wait: [] };
  for (const command of you.legal || []) {
    const p = parseCommand(command);
    const slot = SLOT_OF[p.verb];
    if (!slot) continue;
    if (slot === "wait") slots.wait.push(command);
    else if (p.place === board.selected) slots[slot].push(command);
  }
  return slots;
}

function setAction(button, command, text) {
  button.dataset.command = command || "";
  button.setAttribute("aria-disabled", command ? "false" : "true");
  button.querySelector("span").textContent = text;
  button.title = text; // the label may wrap; the tooltip and the accessible name always hold all of it
  button.classList.toggle("chosen", !!command && command === (app.lastState && app.lastState.you && app.lastState.you.queued));
}

function takeButtons(slots) {
  // Storage: one button per ingredient this level needs, always in the same order; elsewhere: what is there.
  const box = $("takes");
  const storage = board.tiles.get(board.selected) && board.tiles.get(board.selected).classList.contains("t-storage");
  const wanted = storage ? board.staticTakes.map((item) => ({ item, command: slots.take.find((c) => parseCommand(c).item === item) }))
    : slots.take.map((command) => ({ item: parseCommand(command).item || board.selected, command }));
  if (!storage && !wanted.length) wanted.push({ item: null, command: null });
  const signature = board.selected + "|" + wanted.map((w) => w.item).join(",");
  if (box.dataset.signature !== signature) {
    const focused = box.contains(document.activeElement) ? [...box.children].indexOf(document.activeElement) : -1;
    clear(box);
    for (const w of wanted) {
      box.append(el("button", { type: "button", class: "act take", "data-item": w.item || "",
        onclick: (e) => act(e.currentTarget) }, w.item ? el("span", { class: "icon", "aria-hidden": "true" }, iconOf(w.item))
        : el("kbd", { text: "T", "aria-hidden": "true" }), el("span", {})));
    }
    box.dataset.signature = signature;
    if (focused >= 0 && box.children[Math.min(focused, box.children.length - 1)]) box.children[Math.min(focused, box.children.length - 1)].focus();
  }
  [...box.children].forEach((b, i) => {
    const w = wanted[i];
    b.dataset.command = w.command || "";
    b.setAttribute("aria-disabled", w.command ? "false" : "true");
    b.querySelector("span:last-child").textContent = b.title = w.item ? `Take ${pretty(w.item)}` : "Take (nothing here)";
    b.setAttribute("aria-label", w.item ? `take ${pretty(w.item)}${w.command ? "" : " (not now)"}` : "take: nothing to take here");
    b.classList.toggle("chosen", !!w.command && w.command === (app.lastState && app.lastState.you && app.lastState.you.queued));
  });
}

function renderActions(s) {
  if (app.role !== "player") return;
  const you = s.you || {};
  const mine = s.agents.find((a) => a.agent === app.agent) || {};
  if (board.selected === null || !board.tiles.has(board.selected)) board.selected = board.tiles.has(mine.location) ? mine.location : null;
  $("selected-name").textContent = board.selected ? pretty(board.selected) : "pick a place";
  $("hold-line").textContent = `You are at ${mine.location ? pretty(mine.location) : "nowhere yet"} and hold ${mine.holding ? pretty(mine.holding) : "nothing"}.`;
  const slots = legalAt(you);
  const place = board.selected ? pretty(board.selected) : "";
  setAction($("act-go"), slots.go[0], board.selected ? `Go to ${place}` : "Go");
  setAction($("act-put"), slots.put[0], mine.holding ? `Put ${pretty(mine.holding)} in ${place || "…"}` : "Put (hands empty)");
  const tools = new Set(((app.level && app.level.recipes) || []).map((r) => r.tool));
  const kind = (app.level && app.level.kitchen || []).find((k) => k.name === board.selected);
  const notTool = !slots.start.length && kind && tools.size && !tools.has(kind.type);
  setAction($("act-start"), slots.start[0], !board.selected ? "Start" : notTool ? "Start (not a tool)" : `Start ${place}`);
  setAction($("act-wait"), slots.wait[0], "Wait a step");
  takeButtons(slots);
  $("queued").textContent = you.queued ? `Next step you will: ${plainCommand(you.queued)}.` : s.status === "running" ? "Choose what to do next." : "";
  for (const tile of board.tiles.values()) {
    tile.classList.toggle("selected", tile.dataset.location === board.selected);
    tile.setAttribute("aria-pressed", tile.dataset.location === board.selected ? "true" : "false");
  }
  renderCoach(s);
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
  const slot = { g: "act-go", p: "act-put", s: "act-start", w: "act-wait" }[key];
  if (slot) { act($(slot)); $(slot).focus(); event.preventDefault(); return; }
  if (key === "t") {
    const first = takes.find((b) => b.getAttribute("aria-disabled") === "false") || takes[0];
    if (first) first.focus();
    event.preventDefault();
    return;
  }
  const index = TILE_KEYS.indexOf(key);
  if (index >= 0 && key.length === 1) {
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
  if (s.counts.completed > 0) text = "Tutorial complete: you served a dish! Leave with “Rooms”, or keep practising.";
  else if (s.status === "waiting") text = "Press Ready (or wait) to start.";
  else if (s.status === "finished") text = "The practice is over. Press Play again to try once more.";
  else if (you.hint) {
    const p = parseCommand(you.hint);
    const tile = board.tiles.get(p.place);
    const key = tile && tile.dataset.key ? ` (key ${tile.dataset.key.toUpperCase()})` : "";
    const slot = SLOT_OF[p.verb];
    const keyOf = { go: "G", take: "T", put: "P", start: "S", wait: "W" }[slot] || "";
    text = `Next: ${plainCommand(you.hint)}. ` + (slot === "wait" ? "Press W to wait while it cooks." :
      `Pick ${pretty(p.place)}${key}, then ${keyOf}${slot === "take" ? " and choose the item" : ""}.`);
    for (const t of board.tiles.values()) t.classList.toggle("hint", t.dataset.location === p.place);
  } else text = "Serve the order on the ticket: take its ingredients to a tool, start it, and bring the dish to the serving table.";
  $("coach-text").textContent = text;
}

// ---------------------------------------------------------------- results
function renderResults(msg) {
  const box = clear($("results"));
  const team = msg.team || [];
  if (!team.length) return;
  const mine = team.find((a) => a.agent === msg.agent);
  if (mine && app.role === "player") {
    box.append(el("p", { class: "yours", text: `Your part (${mine.name}): ${mine.served} dish${mine.served === 1 ? "" : "es"} served, ` +
      `${mine.made} item${mine.made === 1 ? "" : "s"} made, ${mine.worked} steps worked.` }));
  }
  const table = el("div", { class: "timeline", role: "table", "aria-label": "what each agent did, step by step" });
  for (const a of team) {
    const row = el("div", { class: "tl-row", role: "row" },
      el("span", { class: "tl-name", role: "rowheader", text: `${a.name}${a.agent === msg.agent && app.role === "player" ? " (you)" : ""}` }),
      el("span", { class: "tl-sum", role: "cell", text: `${a.served} served · ${a.made} made · ${a.worked} worked` }));
    const cells = el("span", { class: "tl-cells", role: "cell" });
    for (const t of a.timeline) {
      const kind = !t.ok ? "bad" : t.credit ? "credit" : t.idle ? "idle" : "ok";
      cells.append(el("span", { class: `tl ${kind}`, title: `step ${t.step}: ${plainCommand(t.command)}${t.ok ? "" : " (refused)"}` }));
    }
    row.append(cells);
    table.append(row);
  }
  box.append(table, el("p", { class: "muted small", text: "Each square is a step: green worked, gold served or made, grey waited, red refused." }));
}

document.addEventListener("keydown", onKey);
for (const id of ["act-go", "act-put", "act-start", "act-wait"]) {
  document.getElementById(id).addEventListener("click", (e) => act(e.currentTarget));
}
