'use strict'
// Where the blocks of interest are, without scanning the world.
//
// Scanning for blocks (mineflayer's findBlocks walks every block of every chunk section that
// holds one of them) cost about 180 ms of CPU per bot per observation, most of a step. The
// kitchen layout is static: only the fuel blocks come and go (mined, then respawned). So on our
// server the spots come from the kitchen state the plugin already reports (`blocks` with
// `present`, plus the furnace and chest positions), and a bot only checks that the block it is
// about to use is really there (one `blockAt`). On another server there is no kitchen state: the
// scan result is cached per bot and reused until the bot moves or a block of interest changes in
// its world (a block update or a chunk load).

const { Vec3 } = require('vec3')

const BLOCKS_OF_INTEREST = ['furnace', 'chest', 'crafting_table', 'coal_ore', 'oak_log', 'red_mushroom', 'brown_mushroom']
const round1 = (v) => Math.round(v * 10) / 10

let known = null // [{ name, pos: Vec3 }] from the latest kitchen state, or null without our plugin
let mobs = null // names of the animals the latest kitchen state lists

// Remember the spots of the latest kitchen state (null: the server has no kitchen plugin).
function setKitchen (kitchen) {
  if (!kitchen || !Array.isArray(kitchen.blocks)) {
    known = null
    mobs = null
    return
  }
  mobs = new Set((kitchen.mobs || []).map(m => m.name))
  const spots = []
  const add = (name, pos) => { if (Array.isArray(pos) && pos.length === 3) spots.push({ name, pos: new Vec3(pos[0], pos[1], pos[2]) }) }
  for (const f of kitchen.furnaces || []) add('furnace', f.pos)
  for (const c of kitchen.chests || []) add('chest', c.pos)
  for (const t of kitchen.crafting_tables || []) add('crafting_table', t.pos)
  for (const b of kitchen.blocks) if (b.present) add(b.name, b.pos)
  known = spots
}

const centreDistance = (pos, from) => pos.offset(0.5, 0.5, 0.5).distanceTo(from)

function summarise (positions, from) {
  const out = {}
  for (const { name, pos } of positions) {
    const d = round1(centreDistance(pos, from))
    const seen = out[name] || (out[name] = { count: 0, nearest: d })
    seen.count++
    seen.nearest = Math.min(seen.nearest, d)
  }
  return out
}

function interestIds (bot) {
  const ids = new Map()
  for (const name of BLOCKS_OF_INTEREST) {
    const info = bot.registry.blocksByName[name]
    if (info) ids.set(info.id, name)
  }
  return ids
}

const scans = new WeakMap() // bot -> { key, result, dirty }

function watch (bot) {
  let entry = scans.get(bot)
  if (entry) return entry
  entry = { key: null, result: null }
  scans.set(bot, entry)
  const ids = interestIds(bot)
  bot.on('blockUpdate', (oldBlock, newBlock) => {
    if ((oldBlock && ids.has(oldBlock.type)) || (newBlock && ids.has(newBlock.type))) entry.key = null
  })
  bot.on('chunkColumnLoad', () => { entry.key = null })
  return entry
}

function scan (bot, radius) {
  const ids = interestIds(bot)
  const found = bot.findBlocks({ matching: [...ids.keys()], maxDistance: radius, count: 128 })
  return found.map(pos => ({ name: ids.get(bot.blockAt(pos).type), pos }))
}

// {name: {count, nearest}} for the blocks of interest within `radius` of `from` (where the bot
// is observed: observe.js's block centre).
function blocksNear (bot, radius, from = bot.entity.position) {
  // the same cut as findBlocks: the block's corner within `radius` of the bot's block
  if (known) return summarise(known.filter(s => s.pos.distanceTo(from.floored()) <= radius), from)
  const entry = watch(bot)
  const key = `${radius}:${from.x},${from.y},${from.z}`
  if (entry.key !== key) {
    entry.result = summarise(scan(bot, radius), from)
    entry.key = key
  }
  return entry.result
}

// The nearest block called `name` within `maxDistance`: a known spot the bot's own world
// confirms, else a scan.
function findNamed (bot, name, maxDistance) {
  const info = bot.registry.blocksByName[name]
  if (!info) return null
  if (known) {
    const from = bot.entity.position
    const spots = known.filter(s => s.name === name && s.pos.distanceTo(from) <= maxDistance)
      .sort((a, b) => a.pos.distanceTo(from) - b.pos.distanceTo(from))
    for (const s of spots) {
      const block = bot.blockAt(s.pos)
      if (block && block.type === info.id) return block
    }
  }
  return bot.findBlock({ matching: info.id, maxDistance })
}

// Whether the latest kitchen state lists a block or an animal called `name` (false without one).
function kitchenLists (name) {
  return Boolean((known && known.some(s => s.name === name)) || (mobs && mobs.has(name)))
}

// The kitchen's centre (above its spawn spot, on the floor): from the furnace when the kitchen
// state named it, else where the bot stands.
function kitchenCentre (bot) {
  const furnace = known && known.find(s => s.name === 'furnace')
  const y = furnace ? furnace.pos.y : Math.floor(bot.entity.position.y)
  return new Vec3(0.5, y, 0.5)
}

module.exports = { BLOCKS_OF_INTEREST, setKitchen, blocksNear, findNamed, kitchenCentre, kitchenLists }
