'use strict'
// Mined blocks come back. The kitchen's fuel blocks (coal ore, logs) and mushrooms are placed at start; when a
// player digs one, its drops fall straight down (no random scatter, so a bot standing next to
// the block picks them up) and the same block state is set again after `blockRespawnMs` of
// kitchen time, postponed while someone stands in the spot.

const { Vec3 } = require('vec3')
const { stateIdFor } = require('../lib/layout')

const RESPAWNING = new Set(['coal_ore', 'oak_log', 'red_mushroom', 'brown_mushroom'])
const OCCUPIED_RETRY_TICKS = 20

module.exports.server = function (serv) {
  const kitchen = serv.kitchen
  const pending = new Map()
  const known = new Map()
  const keyOf = (pos) => `${pos.x},${pos.y},${pos.z}`

  function occupied (pos) {
    return serv.players.some(p => {
      const feet = p.position.floored()
      return feet.equals(pos) || feet.offset(0, 1, 0).equals(pos)
    })
  }

  async function restore (pos, stateId) {
    await serv.setBlock(serv.overworld, pos, stateId)
    kitchen.emit('blockRespawned', pos)
  }

  kitchen.scheduleBlockRespawn = (pos, stateId, ticks) => {
    const key = keyOf(pos)
    if (pending.has(key)) return
    const timer = kitchen.afterTicks(ticks, async () => {
      pending.delete(key)
      if (occupied(pos)) return kitchen.scheduleBlockRespawn(pos, stateId, OCCUPIED_RETRY_TICKS)
      if ((await serv.overworld.getBlockStateId(pos)) !== 0) return
      await restore(pos, stateId)
    })
    pending.set(key, { pos, stateId, timer })
  }

  kitchen.once('built', async () => {
    for (const b of kitchen.layout.blocks) {
      const pos = kitchen.at(b.x, b.z)
      const stateId = stateIdFor(serv.registry, b.name)
      known.set(keyOf(pos), { name: b.name, pos, stateId })
      await serv.setBlock(serv.overworld, pos, stateId)
    }
  })

  kitchen.resetHooks.push(async () => {
    pending.clear() // the clock dropped their timers
    for (const b of known.values()) await serv.setBlock(serv.overworld, b.pos, b.stateId)
  })

  kitchen.stateParts.push(() => ({
    blocks: [...known.entries()].map(([key, b]) => ({ name: b.name, pos: [b.pos.x, b.pos.y, b.pos.z], present: !pending.has(key) }))
  }))
}

module.exports.player = function (player, serv) {
  player.on('dug', (data, cancelled) => {
    if (cancelled) return
    for (const drop of data.drops || []) drop.blockDropVelocity = new Vec3(0, 0, 0)
    if (RESPAWNING.has(data.block.name)) {
      const kitchen = serv.kitchen
      kitchen.scheduleBlockRespawn(data.position.clone(), data.block.stateId, kitchen.msToTicks(kitchen.config.blockRespawnMs))
    }
  })
}
