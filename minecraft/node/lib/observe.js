'use strict'
// Observation computed on the Node side and returned as one JSON object (building it in Python
// would cost a round trip per property). Per bot: position, health, inventory, nearby blocks
// of interest (lib/spots.js: from the kitchen state, no world scan) and nearby entities with
// distances. Kitchen state (furnace, chest, mobs, every
// player's inventory, so the human's too) comes from our server's `/kitchen state` command;
// on a server without it, the containers are the last ones a bot saw through a window.

const { counts, posJson } = require('./actions')
const { waitForReply } = require('./replies')
const { BLOCKS_OF_INTEREST, blocksNear } = require('./spots')

const RADIUS = 16
// The first query is a probe (a server without our plugin never answers); once our plugin has
// answered, a slow reply is a slow server (paused, loaded) and is waited for.
const KITCHEN_PROBE_MS = 1500
const KITCHEN_QUERY_MS = 15000

const round1 = (v) => Math.round(v * 10) / 10

function nearbyEntities (bot, radius, from) {
  const out = []
  for (const e of Object.values(bot.entities)) {
    // Entities known only from stray packets (no spawn seen) have no type: skip them.
    if (e === bot.entity || !e.isValid || !e.position || !e.type) continue
    const d = e.position.distanceTo(from)
    if (!(d <= radius)) continue // also drops NaN distances
    const name = e.type === 'player' ? (e.username || 'player') : (e.name || 'unknown')
    out.push({ name, kind: e.type === 'player' ? 'player' : (name === 'item' ? 'item' : 'mob'), distance: round1(d) })
  }
  return out.sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name))
}

// A bot is observed at the centre of the block it stands in. Its own movement runs on the
// client's physics clock, not on the server's lockstep ticks, so where inside that block a walk
// ends depends on timing (5.3 or 5.5 for the same commands); the block does not.
function standing (bot) {
  return bot.entity.position.floored().offset(0.5, 0, 0.5)
}

function botJson (bot, busy) {
  const at = standing(bot)
  const position = posJson(at)
  return {
    connected: true,
    position,
    health: round1(bot.health ?? 20),
    inventory: counts(bot.inventory.items()),
    blocks: position ? blocksNear(bot, RADIUS, at) : {},
    entities: position ? nearbyEntities(bot, RADIUS, at) : [],
    busy
  }
}

// Ask our server plugin for the kitchen state through one bot's chat; null when unsupported.
function makeKitchenQuery () {
  let chain = Promise.resolve()
  let failures = 0
  let answered = false // once our plugin answered, a slow reply (a paused server) is no reason to stop asking
  return function query (bot, command = 'state') {
    const run = async () => {
      if (!answered && failures >= 2 && command === 'state') return null
      const reply = waitForReply(bot, command.split(' ')[0], {
        timeoutMs: answered ? KITCHEN_QUERY_MS : KITCHEN_PROBE_MS,
        what: 'kitchen reply'
      })
      bot.chat('/kitchen ' + command)
      try {
        const parsed = await reply
        failures = 0
        answered = true
        if (!parsed.ok) throw new Error(parsed.error)
        return parsed.result
      } catch (err) {
        console.error(`kitchen ${command.split(' ')[0]} query failed: ${err.message}`)
        failures++
        if (command !== 'state') throw err
        return null
      }
    }
    const result = chain.then(run, run)
    chain = result.catch(() => null)
    return result
  }
}

module.exports = { botJson, makeKitchenQuery, BLOCKS_OF_INTEREST }
