// Direct control of the person's agent, for any game: one fixed button per action group the game
// declares (with its key) and a row of choices for the groups with `many`, built once per room so
// nothing moves between steps; each button carries the exact command of an action the game described
// (`you.actions`), so the page never parses or builds one. Keyboard: a tile's key picks it, a group's
// key acts (or focuses its row), arrow keys move along the row. A group's key may also be a named key
// (`ArrowUp`, " " for space) shown as its `key_label`: a real-time game binds its moves that way, and a
// key held down queues its command once per step. Also the practice room's coach.
"use strict";

// --------------------------------------------------------------- controls
// The buttons are built once per room from the game's groups, so they never move: one button per
// single group (it acts on the chosen tile), and one row of item buttons for the groups with `many`.
function keyText(g) { return g.key_label || (g.key || "").toUpperCase(); }

// The declared group a key press means: a letter or digit in any case, a named key exactly.
function groupForKey(event) {
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  return groupsOf(actionsOf(app.lastState)).find((g) => g.key && (g.key.length === 1 ? g.key.toLowerCase() === key : g.key === key));
}

function buildControls(groups) {
  const signature = groups.map((g) => `${g.id}:${g.key}:${g.many ? 1 : 0}`).join(",");
  if (board.groupsBuilt === signature) return;
  board.groupsBuilt = signature;
  const box = clear($("actions"));
  for (const g of groups.filter((x) => !x.many)) {
    const button = el("button", { type: "button", class: "act", id: `act-${g.id}`, "data-slot": g.id,
      onclick: (e) => act(e.currentTarget) });
    if (g.key) button.setAttribute("aria-keyshortcuts", g.key === " " ? "Space" : g.key);
    button.append(el("kbd", { text: keyText(g), "aria-hidden": "true" }), " ", el("span", { text: g.label }));
    box.append(button);
  }
  const many = groups.filter((x) => x.many);
  $("takes").setAttribute("aria-label", many.length ?
    `${many.map((g) => g.label.toLowerCase()).join(" or ")}: choose one (${many.map((g) => keyText(g)).join(", ")}, then arrow keys)` :
    "choices at the chosen place");
  $("takes").hidden = !many.length;
  const keys = groups.filter((g) => g.key).map((g) => `${keyText(g)} ${g.label.toLowerCase()}`).join(", ");
  $("keys-help").textContent = gridInfo() ? `Keys: ${keys || "none"}.` :
    `Keys: a place's number or letter picks it${keys ? ", then " + keys : ""}.`;
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
  $("selected-name").textContent = tile ? tile.label : gridInfo() ? "use the keys" : "pick a place";
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
  const group = groupForKey(event);
  if (group && !group.many) {
    const button = $(`act-${group.id}`);
    const queued = app.lastState && app.lastState.you ? app.lastState.you.queued : null;
    // a held key repeats many times a second: its command is queued once per step
    if (button && !(event.repeat && button.dataset.command && button.dataset.command === queued)) { act(button); button.focus(); }
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

document.addEventListener("keydown", onKey);
