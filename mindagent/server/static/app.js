// MindAgent page: speaks protocol v1 over /ws (see the README, "Protocol (version 1)"). No framework, no CDN.
// Every text from the server goes through textContent, never innerHTML.
"use strict";

const V = 1;
const app = {
  ws: null, seq: 0, room: null, role: null, agent: null, level: null, admin: "", secrets: {},
  questionnaire: [], lastState: null, clockTimer: null, deadline: 0, tickLength: 1, surveyDone: false,
  study: null,  // `serve --study`: {name, consent, episodes, participant, index}; the page walks the participant through
};

// ---------------------------------------------------------------- helpers
const $ = (id) => document.getElementById(id);
function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("data-") || key.startsWith("aria-") || key === "role") node.setAttribute(key, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node[key] = value;
  }
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}
function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }
function items(list) { return list && list.length ? list.join(" & ") : "nothing"; }
// "How to play": the page's own lines name no game; a game sends its own (plain text, one line
// each) in the joined message's `howto`.
let defaultHowto = null;
function renderHowto(lines) {
  const list = document.querySelector("#howto ul");
  if (!list) return;
  if (defaultHowto === null) defaultHowto = [...list.childNodes].map((n) => n.cloneNode(true));
  list.replaceChildren(...(Array.isArray(lines) && lines.length
    ? lines.map((line) => el("li", { text: String(line) }))
    : defaultHowto.map((n) => n.cloneNode(true))));
}

function toast(text, kind = "error") {
  const box = $("toast");
  box.textContent = text;
  box.className = "toast " + kind;
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.hidden = true; }, 4000);
}
function logEvent(text, kind = "") {
  const list = $("events");
  list.prepend(el("li", { class: kind, text }));
  while (list.children.length > 30) list.removeChild(list.lastChild);
}
function agentName(a) {
  const names = (app.level && app.level.agent_names) || [];
  return names[a] || `agent${a}`;
}
// ------------------------------------------------------------- connection
function readFragment() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  if (params.get("admin")) app.admin = params.get("admin");
  if (params.get("room") && params.get("secret")) app.secrets[params.get("room")] = params.get("secret");
  $("admin-token").value = app.admin;
  if (app.admin) $("admin").open = true;
}

function send(message) {
  if (!app.ws || app.ws.readyState !== WebSocket.OPEN) { toast("not connected"); return; }
  app.ws.send(JSON.stringify({ v: V, id: ++app.seq, ...message }));
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const ws = new WebSocket(scheme + location.host + "/ws");
  app.ws = ws;
  ws.onopen = () => { $("conn").textContent = "connected"; $("conn").className = "pill on"; };
  ws.onclose = () => {
    $("conn").textContent = "disconnected, retrying…";
    $("conn").className = "pill off";
    setTimeout(connect, 2000);
  };
  ws.onmessage = (event) => {
    let msg;
    try { msg = JSON.parse(event.data); } catch { return; }
    const handler = handlers[msg.type];
    if (handler) handler(msg);
  };
}

const handlers = {
  welcome(msg) {
    fillLevels(msg.levels || [], msg.default_level);
    if (Number.isInteger(msg.agents)) $("create-agents").value = msg.agents;
    if (Array.isArray(msg.pace)) { $("create-tick").value = msg.pace[0]; $("create-human-tick").value = msg.pace[1]; }
    fillChoices(msg.choices);
    renderRooms(msg.rooms || []);
    if (msg.study && !app.study) {
      const back = recalledStudy(msg.study);
      if (back) resumeStudy(msg.study, back); else showConsent(msg.study);
    }
    else if (app.room) rejoin();
  },
  study(msg) {
    app.study = { ...app.study, ...msg, resumeAt: undefined };
    rememberStudy(false);
    $("study").hidden = true;
    $("survey").hidden = true;
    $("study-progress").hidden = false;
    $("study-progress").textContent = `Episode ${msg.index + 1} of ${msg.episodes}`;
  },
  rooms(msg) { renderRooms(msg.rooms || []); },
  room_created(msg) {
    if (msg.secret) app.secrets[msg.room] = msg.secret;
    const link = msg.secret ? `${location.origin}/#room=${msg.room}&secret=${msg.secret}` : `${location.origin}/`;
    $("create-result").textContent = `Room ${msg.room} created. Invite: ${link}`;
    refreshRooms();
  },
  joined(msg) {
    app.room = msg.room; app.role = msg.role; app.agent = msg.agent; app.level = msg;
    app.questionnaire = msg.questionnaire || [];
    app.surveyDone = false;
    app.played = false;
    $("survey-comment").value = "";  // a new room's questionnaire starts empty
    board.selected = null;
    board.built = null;
    board.groupsBuilt = null;
    board.labels.clear();
    grid.built = null;
    showGame(true);
    renderHowto(msg.howto);
    renderStatic(msg);
    renderState(msg.state);
  },
  left() { app.room = null; showGame(false); refreshRooms(); },
  state(msg) { if (msg.room === app.room) renderState(msg); },
  queued(msg) {
    $("queued").textContent = `Next step you will: ${labelOf(msg.command)}.`;
    if (app.lastState && app.lastState.you) app.lastState.you.queued = msg.command;
    for (const b of document.querySelectorAll("#legal button[data-command], #controls .act")) {
      b.classList.toggle("chosen", b.dataset.command === msg.command);
    }
  },
  event(msg) { logEvent(msg.text); },
  room_error(msg) { logEvent(`step ${msg.step}: ${msg.message}`, "bad"); },
  model_changed(msg) { logEvent(`dispatcher changed to ${msg.model}`); },
  episode_over(msg) { app.played = !!msg.played; showSurvey(msg); },
  room_closed(msg) {
    if (msg.room === app.room) {
      app.room = null; showGame(false);
      toast(msg.why ? `the room was closed (${msg.why})` : "the room was closed", "info");
    }
    refreshRooms();
  },
  ack(msg) {
    if (msg.of === "questionnaire") {
      $("survey-note").textContent = "Thank you! Answers saved with the recording.";
      if (app.study) { rememberStudy(true); studyAnswered(); }
    }
    if (msg.of === "restart") { $("survey").hidden = true; }
    if (msg.of === "set_model") { toast("dispatcher changed", "info"); refreshRooms(); }
    if (msg.of === "close_room") { refreshRooms(); }
  },
  error(msg) {
    toast(`${msg.code}: ${msg.message}`);
    if (app.study && (!app.study.participant || app.study.resumeAt !== undefined)) $("study-agree").disabled = false;
  },
  pong() {},
};

function rejoin() {
  const agent = app.role === "player" ? app.agent : undefined;
  send({ type: "join", room: app.room, role: app.role, agent, secret: app.secrets[app.room] || undefined });
}

// ------------------------------------------------------------------ lobby
// The server's game's levels; the form starts on the game's default level.
function fillLevels(levels, chosen) {
  const select = clear($("create-level"));
  for (const name of levels) select.append(el("option", { value: name, text: name, selected: name === chosen }));
}

function refreshRooms() { send({ type: "list_rooms", admin_token: app.admin || undefined }); }

function renderRooms(rooms) {
  const select = clear($("model-room"));
  for (const r of rooms) select.append(el("option", { value: r.room, text: `${r.room} (${r.level}, ${r.model})` }));
  const box = clear($("rooms"));
  const known = new Set(rooms.map((r) => r.room));
  for (const id of Object.keys(app.secrets)) {
    if (!known.has(id)) rooms.push({ room: id, private_link: true });
  }
  if (!rooms.length) { box.append(el("p", { class: "muted", text: "No open rooms. Play a game of your own above." })); return; }
  rooms.forEach((room, index) => box.append(roomCard(room, index === 0)));
}

function roomCard(room, first) {
  const card = el("div", { class: "card room" + (first ? " first" : ""), "data-room": room.room });
  if (room.private_link) {
    card.append(el("h3", { text: "A private room" }), el("p", { class: "muted", text: "you have its invite link" }));
  } else {
    card.append(el("h3", { text: `${room.level} · a team of ${room.agents}` }),
      el("p", { class: "muted", text: `${paceText(room)} · ${statusWords(room)} · robot team: ${room.model}` }));
  }
  const secretInput = el("input", { type: "password", placeholder: "room secret", size: 14, value: app.secrets[room.room] || "" });
  const needsSecret = room.public === false || room.private_link;
  const join = (role, agent) => {
    const secret = secretInput.value.trim();
    if (secret) app.secrets[room.room] = secret;
    send({ type: "join", room: room.room, role, agent, secret: secret || undefined });
  };
  const buttons = el("div", { class: "buttons" });
  const taken = new Set(room.players || []);
  const n = room.agents || 0;
  for (let a = 0; a < n; a++) {
    buttons.append(el("button", {
      id: first ? `join-player-${a}` : undefined, "data-join": `player-${a}`, disabled: taken.has(a),
      text: taken.has(a) ? `${(room.agent_names || [])[a] || "agent" + a} (taken)` : `Play ${(room.agent_names || [])[a] || "agent" + a}`,
      onclick: () => join("player", a),
    }));
  }
  if (!n && room.private_link) {
    buttons.append(el("button", { text: "Play agent0", onclick: () => join("player", 0) }));
  }
  buttons.append(
    el("button", { class: "alt", "data-join": "head_chef", text: capital(room.director || "director"), onclick: () => join("head_chef") }),
    el("button", { class: "ghost", "data-join": "spectator", text: "Watch", onclick: () => join("spectator") }),
  );
  card.append(buttons);
  if (needsSecret) card.append(el("form", { onsubmit: (e) => e.preventDefault() }, secretInput));
  return card;
}

// A room's pace in words: the pace a person plays at (a room steps slower while people play).
function paceText(room) {
  if (room.mode === "turns") return "a step when everyone has chosen";
  const every = room.human_tick ? Math.max(room.tick, room.human_tick) : room.tick;
  return `a step every ${every} s`;
}
function statusWords(room) {
  if (room.status === "running") return `playing, step ${room.step} of ${room.max_steps}`;
  return room.status === "finished" ? "game over" : "waiting for players";
}

// The lobby's "play a game of your own" form: every choice and its bounds come from the server.
function fillChoices(choices) {
  const form = $("play-form");
  form.hidden = !choices || !(choices.levels || []).length || !(choices.partners || []).length;
  if (form.hidden) return;
  const keep = (id) => $(id).value;
  const was = { level: keep("play-level"), agents: keep("play-agents"), partner: keep("play-partner"), pace: keep("play-pace") };
  const level = clear($("play-level"));
  for (const l of choices.levels) {
    const text = `${capital(pretty(l.level))}${l.difficulty ? " (" + l.difficulty + ")" : ""}`;
    level.append(el("option", { value: l.level, text, selected: l.level === (was.level || choices.default_level) }));
  }
  const agents = clear($("play-agents"));
  const [low, high] = choices.agents;
  for (let n = low; n <= high; n++) {
    agents.append(el("option", { value: String(n), text: n === 1 ? "just you" : `you and ${n - 1} robot${n > 2 ? "s" : ""}`,
      selected: String(n) === (was.agents || String(choices.default_agents)) }));
  }
  const partner = clear($("play-partner"));
  for (const p of choices.partners) partner.append(el("option", { value: p.id, text: p.label, selected: p.id === was.partner }));
  const pace = clear($("play-pace"));
  choices.paces.forEach((seconds, i) => pace.append(el("option", { value: String(seconds),
    text: `a step every ${seconds} s${i === 0 ? " (usual)" : ""}`, selected: was.pace ? String(seconds) === was.pace : i === 0 })));
}

function showGame(on) {
  $("lobby").hidden = on || !!app.study;
  $("game").hidden = !on;
  $("to-lobby").hidden = !on || !!app.study;
  $("dispatcher").hidden = !on;
  if (!on) { $("room-title").textContent = ""; $("survey").hidden = true; showView3d(null); }
}

// ------------------------------------------------------------------- game
// A domain with a live 3D view (Minecraft) serves it on its own port of this host; the page
// frames it, and keeps the frame across episodes (the view follows the same world).
function showView3d(view) {
  const frame = $("view3d");
  $("view3d-card").hidden = !view;
  if (!view) { frame.removeAttribute("src"); return; }
  const src = `${location.protocol}//${location.hostname}:${Number(view.port)}/`;
  if (frame.getAttribute("src") !== src) frame.setAttribute("src", src);
}

function renderStatic(info) {
  const who = app.role === "player" ? `you play ${agentName(app.agent)}` : app.role === "head_chef" ? `you are the ${word("director")}` : "watching";
  $("room-title").textContent = `${info.level} · ${who}`;
  document.title = `MindAgent ${word("title")} · ${who}`;
  renderWords();
  const recipes = clear($("recipes"));
  for (const r of info.recipes) {
    if (typeof r === "string") { recipes.append(el("li", { text: r })); continue; }  // a game's recipe in its own words
    const how = r.ingredients.length ? ` = ${r.ingredients.join(" + ")} in a ${r.tool}` : `: ${r.tool}`;
    recipes.append(el("li", {}, el("b", { text: r.product }), how.replace(/\b([A-Za-z]+[A-Z][A-Za-z]*)\b/g, (w) => pretty(w))));
  }
  if ((pageInfo().words || {}).join) recipes.append(el("li", { class: "join-world", text: word("join") }));
  recipes.closest("details").hidden = !recipes.children.length;  // a game without recipes has no such card
  showView3d(info.view3d);
  $("chef-text").placeholder = word("director_example");
  $("controls").hidden = app.role !== "player";
  $("chef").hidden = app.role !== "head_chef";
  $("my-agent").textContent = app.agent === null ? "" : agentName(app.agent);
  clear($("events"));
}

function renderState(s) {
  app.lastState = s;
  $("step").textContent = s.step;
  $("max-steps").textContent = s.max_steps;
  $("completed").textContent = s.counts.completed;
  $("failed").textContent = s.counts.failed;
  $("active").textContent = s.counts.active;
  $("score").textContent = s.score === null || s.score === undefined ? "–" : Number.isInteger(s.score) ? String(s.score) : s.score.toFixed(2);
  const d = s.dispatcher;
  $("dispatcher").textContent = `Dispatcher: ${d.model}${d.thinking ? " (thinking…)" : ""}`;
  $("dispatcher").title = d.why;
  $("status-line").textContent = statusLine(s);
  // what the team needs from a person who holds the block (the game's plain sentences)
  const needs = Array.isArray(s.needs) ? s.needs.filter((line) => typeof line === "string") : [];
  $("needs").textContent = needs.join(" ");
  $("needs").hidden = needs.length === 0;
  renderTickets(s);
  renderBoard(s);
  renderGrid(s);
  renderActions(s);
  renderPace(s);
  renderAgents(s);
  renderKitchen(s);
  renderLastStep(s.last_step);
  renderChefLines(s.head_chef);
  if (s.dispatcher && s.dispatcher.reads) $("chef-help").textContent = s.dispatcher.reads; // what this room's dispatcher does with the words
  renderControls(s);
  startClock(s);
  keepStickyClear();
  // the next episode's play began: the last one's window would only block the board
  if (!$("survey").hidden && app.lastResults && s.episode !== app.lastResults.episode && s.status === "running" && s.step > 0) {
    $("survey").hidden = true;
  }
  $("restart-inline").hidden = !(s.status === "finished" && app.role !== "spectator");
  $("survey-open").hidden = !(s.status === "finished" && $("survey").hidden);
  // while a game runs the row is empty: it folds away, so the sticky figures take less room
  $("status-buttons").hidden = s.status === "running" && $("restart-inline").hidden && $("survey-open").hidden;

}

// The game's words where the page names things (the defaults in board.js name no game).
function renderWords() {
  $("board-title").textContent = word("board");
  $("tables-title").textContent = word("tables");
  $("recipes-title").textContent = word("recipes");
  $("chef-title").textContent = capital(word("director"));
  $("chef-help").textContent = word("director_help");
  $("chef-lines-title").textContent = `Said by the ${word("director")}`;
  $("completed-label").textContent = word("completed");
  $("failed-label").textContent = word("failed");
  $("active-label").textContent = word("open");
  $("score-label").textContent = word("score");
}

// Whatever the keyboard focuses scrolls into view below the sticky figures, not under them.
function keepStickyClear() {
  const height = $("sticky").offsetHeight;
  document.documentElement.style.scrollPaddingTop = `${height + 8}px`;
}

function renderPace(s) {
  const waiting = s.status === "waiting" && s.starts_in !== null && s.starts_in !== undefined;
  $("ready").classList.toggle("slot-hidden", !(s.status === "waiting" && app.role !== "spectator"));
  $("countdown").textContent = waiting ? `Starting in ${Math.ceil(s.starts_in)} s` : "";
  app.startsAt = waiting ? performance.now() + s.starts_in * 1000 : 0;
}

function statusLine(s) {
  const people = s.people || {};
  const who = `${people.player || 0} player(s), ${people.head_chef || 0} ${word("director")}(s), ${people.spectator || 0} watching`;
  const status = s.status === "waiting" ? "waiting for a player to start" : s.status === "finished" ? "episode over" :
    s.mode === "turns" ? "turns: a step when everyone has chosen" : `real time: a step every ${s.step_every || s.tick}s`;
  return `${status} · ${who} · robot team: ${s.dispatcher.name || s.dispatcher.model} (${s.dispatcher.why})`;
}

function renderAgents(s) {
  const body = clear($("agents").tBodies[0]);
  // Agents with health (a live world: Minecraft bots) stand at x, y, z positions and act within a step.
  const live = s.agents.some((a) => a.health !== undefined);
  const heads = $("agents").tHead.rows[0].cells;
  heads[2].textContent = live ? "position" : "location";
  heads[4].textContent = live ? "status" : "busy";
  for (const a of s.agents) {
    const by = a.agent === app.agent && app.role === "player" ? "you" : s.controllers[a.agent] === "human" ? "a person" : "dispatcher";
    const health = typeof a.health === "number" ? `health ${Math.round(a.health)}` : "";
    const busy = live ? [a.status, health].filter((x) => x).join(", ") :
      a.status ? a.status : a.busy ? `${a.busy} step(s)` : "";
    body.append(el("tr", { "data-agent": a.agent, class: by === "you" ? "mine" : "" },
      el("td", { text: a.name }), el("td", { class: "by", text: by }),
      el("td", { class: "location", text: live ? pretty(a.location) || "unknown" : a.location }), el("td", { class: "holding", text: a.holding || "nothing" }),
      el("td", { class: "busy", text: busy })));
  }
}

function renderKitchen(s) {
  const body = clear($("kitchen").tBodies[0]);
  const tiles = new Map(tilesOf(s).map((t) => [t.id, t]));
  for (const loc of s.locations) {
    const tile = tiles.get(loc.name) || {};
    body.append(el("tr", { "data-location": loc.name, class: loc.in_use ? "in-use" : "" },
      el("td", { text: loc.name }), el("td", { class: "content", text: tile.stock ? "everything" : items(loc.content) }),
      el("td", { class: "in-use", text: !loc.in_use ? "no" : tile.busy ? `yes, ${tile.busy.text}` : "yes" }),
      el("td", { text: loc.gettable && loc.content.length ? "yes" : "" })));
  }
}

function renderLastStep(last) {
  const body = clear($("last-actions").tBodies[0]);
  const feedback = clear($("feedback"));
  if (!last) { body.append(el("tr", {}, el("td", { colSpan: 3, class: "muted", text: "no step yet" }))); return; }
  for (const a of last.actions) {
    const who = a.by === "human" ? (a.agent === app.agent && app.role === "player" ? "you" : "person") : "dispatcher";
    const result = a.idle ? (a.by === "human" ? "no command in time" : "dispatcher not ready: idle") :
      a.ok ? "done" : `refused: ${a.reason || ""}`;
    body.append(el("tr", { "data-agent": a.agent, class: a.ok ? (a.idle ? "idle" : "ok") : "bad" },
      el("td", { text: `${agentName(a.agent)} (${who})` }), el("td", { class: "cmd", text: a.command }),
      el("td", { class: "result", text: result })));
  }
  for (const line of last.feedback) feedback.append(el("li", { text: line }));
  for (const done of last.completed) feedback.append(el("li", { class: "good", text: fill(word("completed_line"), done) }));
  for (const lost of last.failed) feedback.append(el("li", { class: "bad", text: fill(word("failed_line"), lost) }));
}

function renderChefLines(lines) {
  const list = clear($("chef-lines"));
  if (!lines.length) list.append(el("li", { class: "muted", text: "nothing yet" }));
  for (const l of lines) list.append(el("li", { text: `step ${l.step}: ${l.text}${l.reply ? ` (${l.reply})` : ""}` }));
}

// "All commands as text": every legal command, grouped as the game groups its actions; a choice a
// tile does not usually offer (not in its `offers`) is tucked under "more".
function renderControls(s) {
  if (app.role !== "player") return;
  const you = s.you || {};
  const box = clear($("legal"));
  const actions = you.actions || (you.legal || []).map((command) => ({ command, label: command, group: "other" }));
  const offers = pageInfo().offers || {};
  const button = (a) => el("button", {
    class: a.command === you.queued ? "cmd-button chosen" : "cmd-button", "data-command": a.command,
    text: a.label, onclick: () => send({ type: "command", command: a.command }),
  });
  const groups = [...groupsOf(actions), { id: "other", label: "Other" }];
  for (const g of groups) {
    const mine = actions.filter((a) => a.group === g.id);
    if (!mine.length) continue;
    const row = el("div", { class: "verb-buttons" });
    const others = [];
    for (const a of mine) {
      const usual = offers[a.tile];
      if (a.item && usual && usual.length && !usual.includes(a.item)) others.push(a);
      else row.append(button(a));
    }
    box.append(el("div", { class: "verb" }, el("span", { class: "verb-name", text: g.label.toLowerCase() }), row));
    if (others.length) {
      const more = el("details", { class: "more" }, el("summary", { text: `more (${others.length}), not usually needed here` }));
      const inner = el("div", { class: "verb-buttons" });
      for (const a of others) inner.append(button(a));
      more.append(inner);
      row.append(more);
    }
  }
  if (!actions.length) box.append(el("p", { class: "muted", text: s.status === "running" ? "" : "not running" }));
}

function startClock(s) {
  app.deadline = s.next_step_in === null ? 0 : performance.now() + s.next_step_in * 1000;
  app.tickLength = s.mode === "turns" ? s.turn_timeout : (s.step_every || s.tick);
  if (!app.clockTimer) app.clockTimer = setInterval(drawClock, 100);
}
function drawClock() {
  if (app.startsAt) {
    const left = Math.max(0, app.startsAt - performance.now()) / 1000;
    $("countdown").textContent = left > 0 ? `Starting in ${Math.ceil(left)} s` : "Starting…";
  }
  const left = Math.max(0, app.deadline - performance.now()) / 1000;
  const share = app.deadline ? Math.min(1, left / app.tickLength) : 0;
  $("clock-bar").style.width = `${(share * 100).toFixed(1)}%`;
}

// ----------------------------------------------------------------- survey
function showSurvey(msg) {
  const box = clear($("survey-items"));
  const c = msg.counts;
  $("survey-summary").textContent = `Team: ${word("completed")} ${c.completed}, ${word("failed")} ${c.failed}, still open ${c.active}. ` +
    `Team score ${msg.score === null || msg.score === undefined ? "–" : msg.score.toFixed(2)}.`;
  renderResults(msg);
  app.lastResults = msg;
  const asked = (msg.questionnaire || []).length > 0;
  $("survey-questions").hidden = !asked;
  $("survey-submit").hidden = !asked;
  $("survey-skip").textContent = asked ? "Skip" : "Close";
  for (const q of msg.questionnaire || []) {
    const row = el("fieldset", { class: "likert", "data-item": q.id }, el("legend", { text: q.text }),
      el("span", { class: "end", text: q.low }));
    for (let v = 1; v <= 5; v++) {
      row.append(el("label", {}, el("input", { type: "radio", name: q.id, value: String(v), required: asked }), String(v)));
    }
    row.append(el("span", { class: "end", text: q.high }));
    box.append(row);
  }
  $("survey-note").textContent = "";
  $("survey-submit").disabled = false;
  $("restart").hidden = app.role === "spectator" || !!app.study;
  $("survey-skip").hidden = !!app.study && asked;  // a study asks every time; answers are its point
  $("study-next").hidden = true;
  $("survey").hidden = false;
}

// ------------------------------------------------------------------ study
// `serve --study`: consent first, then each episode in a room of the participant's own, the
// questionnaire after each, then the next episode, then a thank-you.
function showConsent(study) {
  app.study = { ...study };
  $("lobby").hidden = true;
  $("study").hidden = false;
  $("study-title").textContent = `Before you start: ${study.name}`;
  $("study-text").textContent = study.consent;
  $("study-agree").focus();
}

// A participant who reloads the page (or whose browser restarts the tab) comes back as the same
// participant at the episode they were on, not as a new one through the consent again: the id and
// the place in the study live in this tab's session storage (nothing personal: a number and random bits).
const STUDY_KEY = "mindagent.study";

function rememberStudy(answered) {
  const s = app.study;
  const kept = { name: s.name, participant: s.participant, index: s.index, episodes: s.episodes, answered };
  try { sessionStorage.setItem(STUDY_KEY, JSON.stringify(kept)); } catch (_) { /* storage off: no resume */ }
}

function recalledStudy(study) {
  let kept = null;
  try { kept = JSON.parse(sessionStorage.getItem(STUDY_KEY) || "null"); } catch (_) { return null; }
  const fits = kept && kept.name === study.name && typeof kept.participant === "string" &&
    Number.isInteger(kept.index) && kept.index >= 0 && kept.index < study.episodes;
  return fits ? kept : null;
}

function resumeStudy(study, back) {
  const next = back.answered ? back.index + 1 : back.index;
  app.study = { ...study, participant: back.participant, index: back.index, resumeAt: next };
  $("lobby").hidden = true;
  if (next >= study.episodes) { finishStudy(); return; }
  $("study").hidden = false;
  $("study-title").textContent = `Welcome back: ${study.name}`;
  $("study-text").textContent = back.answered ?
    `Episode ${next + 1} of ${study.episodes} is next.` :
    `Episode ${next + 1} of ${study.episodes} was cut off; it starts again from the beginning.`;
  $("study-agree").textContent = "Continue";
  $("study-agree").focus();
}

function studyAnswered() {
  const s = app.study;
  if (s.index + 1 < s.episodes) {
    $("study-next").hidden = false;
    $("study-next").focus();
    return;
  }
  send({ type: "leave" });
  finishStudy();
}

function finishStudy() {
  const s = app.study;
  $("study-progress").hidden = false;
  $("study-progress").textContent = `${s.episodes} of ${s.episodes} done`;
  $("study-title").textContent = "Thank you";
  $("study-text").textContent = "You have finished. Your answers and results are saved; you may close this page.";
  $("study-agree").hidden = true;
  $("study").hidden = false;
}

function submitSurvey(event) {
  event.preventDefault();
  const answers = {};
  for (const q of app.questionnaire) {
    const picked = document.querySelector(`input[name="${q.id}"]:checked`);
    if (!picked) { toast("please answer every question"); return; }
    answers[q.id] = Number(picked.value);
  }
  send({ type: "questionnaire", answers, comment: $("survey-comment").value.slice(0, 1000) });
  app.surveyDone = true;
  $("survey-submit").disabled = true;
}

// ------------------------------------------------------------------ wiring
function wire() {
  $("to-lobby").addEventListener("click", () => send({ type: "leave" }));
  $("admin-form").addEventListener("submit", (e) => e.preventDefault());
  $("admin-token").addEventListener("change", (e) => { app.admin = e.target.value.trim(); refreshRooms(); });
  $("create-form").addEventListener("submit", (event) => {
    event.preventDefault();
    app.admin = $("admin-token").value.trim();
    const model = $("create-model").value.trim();
    send({
      type: "create_room", admin_token: app.admin, level: $("create-level").value,
      agents: Number($("create-agents").value), tau: Number($("create-tau").value), mode: $("create-mode").value,
      tick: Number($("create-tick").value), human_tick: Number($("create-human-tick").value),
      countdown: Number($("create-countdown").value), public: $("create-public").checked, model: model || undefined,
    });
  });
  $("model-form").addEventListener("submit", (event) => {
    event.preventDefault();
    app.admin = $("admin-token").value.trim();
    const model = $("model-spec").value.trim();
    if (model) send({ type: "set_model", admin_token: app.admin, room: $("model-room").value, model });
  });
  $("close-room").addEventListener("click", () => {
    app.admin = $("admin-token").value.trim();
    if ($("model-room").value) send({ type: "close_room", admin_token: app.admin, room: $("model-room").value });
  });
  $("chef-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("chef-text").value.trim();
    if (!text) return;
    send({ type: "instruct", text });
    $("chef-text").value = "";
  });
  $("survey-form").addEventListener("submit", submitSurvey);
  $("survey-skip").addEventListener("click", () => { app.surveyDone = true; $("survey").hidden = true; });
  $("restart").addEventListener("click", () => { app.surveyDone = false; send({ type: "restart" }); });
  $("restart-inline").addEventListener("click", () => { app.surveyDone = false; send({ type: "restart" }); });
  $("survey-open").addEventListener("click", () => {
    const s = app.lastState;
    if (app.lastResults) showSurvey(app.lastResults);
    else if (s) showSurvey({ counts: s.counts, score: s.score, questionnaire: [] });
  });
  $("ready").addEventListener("click", () => send({ type: "start" }));
  $("study-agree").addEventListener("click", () => {
    $("study-agree").disabled = true;
    const s = app.study;
    if (s && s.resumeAt !== undefined) send({ type: "study_next", participant: s.participant, index: s.resumeAt });
    else send({ type: "study_consent", agree: true });
  });
  $("study-next").addEventListener("click", () => {
    $("study-next").hidden = true;
    send({ type: "study_next", participant: app.study.participant, index: app.study.index + 1 });
  });
  $("practice").addEventListener("click", () => send({ type: "practice" }));
  $("play-form").addEventListener("submit", (event) => {
    event.preventDefault();
    send({ type: "play", level: $("play-level").value, agents: Number($("play-agents").value),
      partner: $("play-partner").value, pace: Number($("play-pace").value) });
  });
  window.addEventListener("resize", () => { if (app.room) keepStickyClear(); });
  setInterval(() => { if (!app.room && app.ws && app.ws.readyState === WebSocket.OPEN) refreshRooms(); }, 5000);
}

readFragment();
wire();
// The page's other scripts (board.js, controls.js, grid.js) run after this one; a message that
// arrived between them would find their functions missing, so the socket opens once all have run.
if (document.readyState === "loading" || document.readyState === "interactive") {
  document.addEventListener("DOMContentLoaded", connect, { once: true });
} else {
  connect();
}
