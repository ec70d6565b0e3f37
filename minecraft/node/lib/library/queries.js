'use strict'
// Queries: read the bot's own copy of the world and change nothing, so they answer at once and do
// not interrupt the bot's running action.

const { ActionError } = require('../task')
const { counts, posJson, playerName } = require('./common')

// plain terrain left out of nearbyBlocks (it would drown what matters)
const GROUND = new Set(['air', 'cave_air', 'void_air', 'grass_block', 'dirt', 'bedrock', 'stone', 'deepslate', 'grass', 'water'])
const MAX_KINDS = 30
const MAX_ENTITIES = 30
const round1 = (v) => Math.round(v * 10) / 10

function spawned (bot) {
  if (!bot.entity || !bot.entity.position) throw new ActionError('not_spawned', 'the bot is not in the world right now')
}

function inventory (bot) {
  spawned(bot)
  const armour = {}
  for (const dest of ['head', 'torso', 'legs', 'feet', 'off-hand']) {
    const it = bot.inventory.slots[bot.getEquipmentDestSlot(dest)]
    if (it) armour[dest] = it.name
  }
  return { items: counts(bot.inventory.items()), hand: bot.heldItem ? bot.heldItem.name : null, worn: armour }
}

function nearbyBlocks (bot, { radius }) {
  spawned(bot)
  const r = Math.min(24, Math.max(1, Number(radius) || 8))
  const from = bot.entity.position
  // block ids, not a function: findBlocks then skips every chunk section whose palette has none
  const ids = bot.registry.blocksArray.filter(b => !GROUND.has(b.name)).map(b => b.id)
  const found = bot.findBlocks({ matching: ids, maxDistance: r, count: 4096 })
  const kinds = new Map()
  for (const pos of found) {
    const name = bot.blockAt(pos).name
    const d = pos.offset(0.5, 0.5, 0.5).distanceTo(from)
    const k = kinds.get(name)
    if (!k) kinds.set(name, { name, count: 1, nearest: [pos.x, pos.y, pos.z], distance: d })
    else {
      k.count++
      if (d < k.distance) Object.assign(k, { nearest: [pos.x, pos.y, pos.z], distance: d })
    }
  }
  const blocks = [...kinds.values()].sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name))
    .slice(0, MAX_KINDS).map(k => ({ ...k, distance: round1(k.distance) }))
  return { radius: r, blocks }
}

function entities (bot, { radius }) {
  spawned(bot)
  const r = Math.min(64, Math.max(1, Number(radius) || 16))
  const from = bot.entity.position
  const list = Object.values(bot.entities)
    .filter(e => e !== bot.entity && e.isValid && e.position && e.position.distanceTo(from) <= r)
    .sort((a, b) => a.position.distanceTo(from) - b.position.distanceTo(from) || a.id - b.id)
    .slice(0, MAX_ENTITIES)
    .map(e => ({
      name: (e.type === 'player' ? playerName(bot, e) : e.name) || 'unknown',
      kind: e.type,
      position: posJson(e.position),
      distance: round1(e.position.distanceTo(from))
    }))
  return { radius: r, entities: list }
}

module.exports = { inventory, nearbyBlocks, entities }
