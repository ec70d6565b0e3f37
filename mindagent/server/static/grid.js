// A sprite grid, for any game whose static view declares one (`page.grid`): the terrain drawn once
// per room, then each state's sprites and labels on top, on a <canvas> redrawn at every state. The
// sheets are the game's own images, fetched by name from /assets/<game>/<name>; their frames come
// as rectangles in the static view, so nothing here knows what a frame shows. The picture has a
// text alternative: the tables and the events list keep describing the same state in words.
"use strict";

const grid = { built: null, images: new Map(), scale: 2 };
// The widest the picture gets on screen, in CSS pixels.
const GRID_MAX_WIDTH = 640;

function gridInfo() { return pageInfo().grid || null; }

function assetUrl(name) {
  return `/assets/${encodeURIComponent(app.level.domain)}/${encodeURIComponent(name)}`;
}

function sheetImage(sheet) {
  let img = grid.images.get(sheet.image);
  if (!img) {
    img = new Image();
    img.addEventListener("load", () => { if (app.lastState) drawGrid(app.lastState); });
    img.src = assetUrl(sheet.image);
    grid.images.set(sheet.image, img);
  }
  return img.complete && img.naturalWidth ? img : null;
}

function buildGrid(info) {
  const canvas = $("grid-canvas");
  const width = Math.max(1, info.cols * info.cell);
  grid.scale = Math.max(1, Math.floor(Math.min(GRID_MAX_WIDTH, $("grid-wrap").clientWidth || GRID_MAX_WIDTH) / width));
  canvas.width = width * grid.scale;
  canvas.height = Math.max(1, info.rows * info.cell) * grid.scale;
  grid.built = `${app.room}:${app.level.level}`;
  for (const sheet of Object.values(info.sheets || {})) sheetImage(sheet);  // every sheet now: no pop-in later
}

// One frame of a sheet at cell (x, y); a frame the sheet does not have is skipped, never an error.
function blit(ctx, info, sheetId, frame, x, y) {
  const sheet = (info.sheets || {})[sheetId];
  const rect = sheet && sheet.frames ? sheet.frames[frame] : null;
  const img = sheet ? sheetImage(sheet) : null;
  if (!rect || !img) return;
  const size = info.cell * grid.scale;
  ctx.drawImage(img, rect[0], rect[1], rect[2], rect[3], x * size, y * size, rect[2] * grid.scale, rect[3] * grid.scale);
}

function drawGrid(s) {
  const info = gridInfo();
  const layer = s.grid || {};
  const canvas = $("grid-canvas");
  const ctx = canvas.getContext("2d");
  const size = info.cell * grid.scale;
  ctx.imageSmoothingEnabled = false;
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  const terrain = info.terrain || { rows: [] };
  terrain.rows.forEach((row, y) => row.forEach((frame, x) => blit(ctx, info, terrain.sheet, frame, x, y)));
  const mine = app.role === "player" ? app.agent : null;
  for (const sp of layer.sprites || []) blit(ctx, info, sp.sheet, sp.frame, sp.x, sp.y);
  for (const sp of layer.sprites || []) {  // the person's own agent: an outline that does not rely on colour alone
    if (mine === null || sp.agent !== mine) continue;
    ctx.lineWidth = Math.max(2, grid.scale);
    ctx.strokeStyle = "#ffd23f";
    ctx.strokeRect(sp.x * size + 1, sp.y * size + 1, size - 2, size - 2);
    break;
  }
  ctx.font = `bold ${Math.max(10, Math.round(size * 0.32))}px sans-serif`;
  ctx.textAlign = "center";
  ctx.lineJoin = "round";
  for (const label of layer.labels || []) {
    const cx = label.x * size + size / 2;
    const cy = label.y * size + size * 0.92;
    ctx.lineWidth = 4;
    ctx.strokeStyle = "#000";
    ctx.strokeText(String(label.text), cx, cy);
    ctx.fillStyle = "#fff";
    ctx.fillText(String(label.text), cx, cy);
  }
  canvas.setAttribute("aria-label", `${word("board")}, ${info.cols} by ${info.rows} cells` +
    (mine !== null ? `, your ${agentName(mine)} outlined in yellow` : "") + `; in words under “${word("tables")}”`);
}

// The game's always-visible figures (time left, score...); a figure in steps also shows the seconds
// it lasts at the room's pace.
function renderHud(s) {
  const box = clear($("grid-hud"));
  const every = s.step_every || s.tick || 0;
  for (const item of (s.grid || {}).hud || []) {
    const seconds = typeof item.steps === "number" && every ? ` (${Math.ceil(item.steps * every)} s)` : "";
    box.append(el("span", { class: "hud-item" }, el("small", { text: String(item.label) }),
      el("b", { text: `${item.value}${seconds}` })));
  }
}

function renderGrid(s) {
  const info = gridInfo();
  $("grid-wrap").hidden = !info;
  $("board").hidden = !!info;  // the picture takes the tiles' place; the tables stay
  if (!info) return;
  $("grid-tables-name").textContent = word("tables");
  if (grid.built !== `${app.room}:${app.level.level}`) buildGrid(info);
  drawGrid(s);
  renderHud(s);
}
