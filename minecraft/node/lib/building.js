'use strict'
// The construction family's bot actions: take a material from the site chest, place a block at
// a world position (with a facing), dig one out. Each returns only after the world confirmed it
// (the chest window's slots changed, a blockUpdate at the spot) or fails with an ActionError code.
// Positions arrive as world coordinates; the Python side maps the blueprint's site coordinates.

const { goals } = require('mineflayer-pathfinder')
const { Vec3 } = require('vec3')
const { ActionError, waitFor, withTimeout } = require('./task')
const { counts, walkTo: walk } = require('./actions')
const { sync } = require('./sync')

const WINDOW_TIMEOUT_MS = 5000
const BLOCK_TIMEOUT_MS = 5000
// facing -> the unit step the block's front points along; the placer stands behind it
const FACING_STEP = { north: [0, -1], south: [0, 1], west: [-1, 0], east: [1, 0] }

const vec = ({ x, y, z }) => new Vec3(Number(x), Number(y), Number(z))

async function takeFromChest (bot, { item, count, chest }, task) {
  const info = bot.registry.itemsByName[item]
  if (!info) throw new ActionError('unknown_target', `there is no item called ${item}`)
  const pos = vec({ x: chest[0], y: chest[1], z: chest[2] })
  await walk(bot, new goals.GoalNear(pos.x, pos.y, pos.z, 2), task)
  const block = bot.blockAt(pos)
  if (!block || block.name !== 'chest') throw new ActionError('not_found', 'the materials chest is not there')
  const window = await task.race(withTimeout(bot.openContainer(block), WINDOW_TIMEOUT_MS, 'container_failed', 'the chest did not open'))
  try {
    const inChest = counts(window.containerItems())[item] || 0
    if (inChest === 0) throw new ActionError('missing_item', `the chest has no ${item}`)
    const n = Math.min(Number(count) || 1, inChest)
    await task.race(window.withdraw(info.id, null, n))
    // withdraw resolved on the window's slot updates: the chest's loss is what the bot gained
    const left = counts(window.containerItems())
    return { took: item, count: inChest - (left[item] || 0), chest: left }
  } finally {
    window.close()
  }
}

// Eyes to block centre, in blocks, within which a placement or a dig is made: the vanilla
// survival reach, so a foreign server that checks reach accepts what the embedded one does.
const REACH = 4.5
const EYE = 1.62

// Where a bot stands to place (or dig) at `target`: not in the block's column nor next to it
// (an adjacent bot can end up inside the new block), eyes within REACH, at any height: the
// ground below a tall structure is as good as a ledge on it. For a block with a facing, in the
// quarter behind it: the server faces a block by the placer's bearing alone, so the bot need
// not stand at the block's height (an earlier goal asked for that, which a bot on the ground
// beside the upper layers of the hard band could never reach).
class GoalWorkFrom extends goals.Goal {
  constructor (target, facing) {
    super()
    this.target = target
    this.step = facing ? FACING_STEP[facing] : null
  }

  fits (x, y, z) {
    const dx = x - this.target.x
    const dz = z - this.target.z
    const flat = dx * dx + dz * dz
    if (flat < 2) return false
    const dy = this.target.y + 0.5 - (y + EYE)
    if (flat + dy * dy > REACH * REACH) return false
    if (!this.step) return true
    const behind = -(dx * this.step[0] + dz * this.step[1])
    const across = Math.abs(dx * this.step[1] - dz * this.step[0])
    return behind >= 1 && behind > across
  }

  heuristic (node) {
    const ideal = this.step ? [-2 * this.step[0], -2 * this.step[1]] : null
    const dx = node.x - this.target.x
    const dz = node.z - this.target.z
    if (ideal) return Math.hypot(dx - ideal[0], dz - ideal[1])
    return Math.abs(Math.hypot(dx, dz) - 2)
  }

  isEnd (node) {
    return this.fits(node.x, node.y, node.z)
  }
}

async function placeAt (bot, { item, x, y, z, facing }, task) {
  const info = bot.registry.itemsByName[item]
  if (!info) throw new ActionError('unknown_target', `there is no item called ${item}`)
  if (facing && !FACING_STEP[facing]) throw new ActionError('bad_request', `no facing ${facing}`)
  const have = bot.inventory.items().find(it => it.type === info.id)
  if (!have) throw new ActionError('missing_item', `has no ${item}`)
  const target = vec({ x, y, z })
  const below = bot.blockAt(target.offset(0, -1, 0))
  if (!below || below.boundingBox === 'empty') throw new ActionError('no_support', 'nothing under the spot to place against')
  const here = bot.blockAt(target)
  if (here && here.name !== 'air') throw new ActionError('occupied', `a ${here.name} is already there`)
  await walk(bot, new GoalWorkFrom(target, facing), task)
  await bot.equip(have, 'hand')
  const placed = waitFor(bot, 'blockUpdate', {
    filter: (oldBlock, newBlock) => Boolean(newBlock && newBlock.position.equals(target) && newBlock.name === item),
    timeoutMs: BLOCK_TIMEOUT_MS,
    task,
    code: 'place_failed',
    what: `${item} at the spot`
  })
  placed.catch(() => {})
  await bot.lookAt(target.offset(0.5, 0, 0.5), true)
  // the click on the block below's top face; the blockUpdate above is the confirmation
  await task.race(bot._genericPlace(below, new Vec3(0, 1, 0), { swingArm: 'right' }))
  await placed
  const now = bot.blockAt(target)
  const props = now && now.getProperties ? now.getProperties() : {}
  if (facing && props.facing !== facing) {
    throw new ActionError('wrong_facing', `the ${item} faces ${props.facing}, not ${facing} (dig it out and place it again)`)
  }
  return { placed: item, position: [target.x, target.y, target.z], facing: props.facing || null }
}

async function digAt (bot, { x, y, z }, task) {
  const target = vec({ x, y, z })
  const block = bot.blockAt(target)
  if (!block || block.name === 'air') throw new ActionError('not_found', 'there is no block there')
  await walk(bot, new GoalWorkFrom(target, null), task)
  const undo = task.onAbort(() => bot.stopDigging())
  try {
    await task.race(bot.dig(block, true))
  } catch (err) {
    task.check()
    throw new ActionError('dig_failed', `could not dig the ${block.name}: ${err.message}`)
  } finally {
    undo()
  }
  return { dug: block.name, position: [target.x, target.y, target.z] }
}

// What a server of someone else's holds on the site, as this bot sees it: on such a server there is
// no `/kitchen site state` to ask, so the session reads the site through a bot after every step
// (after a round trip where the server answers one, so other bots' placements have arrived).
async function surveySite (bot, { origin, size, height }, task) {
  const o = vec({ x: origin[0], y: origin[1], z: origin[2] })
  await sync(bot, task)
  const blocks = []
  for (let dx = 0; dx < Number(size); dx++) {
    for (let dy = 0; dy < Number(height); dy++) {
      for (let dz = 0; dz < Number(size); dz++) {
        const block = bot.blockAt(o.offset(dx, dy, dz))
        if (!block) throw new ActionError('not_loaded', `the site at ${o.x} ${o.y} ${o.z} is beyond what ${bot.username} sees`)
        if (block.name === 'air' || block.name === 'cave_air') continue
        const props = block.getProperties ? block.getProperties() : {}
        blocks.push([dx, dy, dz, block.name, props.facing || null])
      }
    }
  }
  return { blocks }
}

// The materials chest's contents, by opening it (a foreign server's chest cannot be read otherwise).
async function readChest (bot, { chest }, task) {
  const pos = vec({ x: chest[0], y: chest[1], z: chest[2] })
  await walk(bot, new goals.GoalNear(pos.x, pos.y, pos.z, 2), task)
  const block = bot.blockAt(pos)
  if (!block || block.name !== 'chest') throw new ActionError('not_found', `no chest at ${pos.x} ${pos.y} ${pos.z}`)
  const window = await task.race(withTimeout(bot.openContainer(block), WINDOW_TIMEOUT_MS, 'container_failed', 'the chest did not open'))
  try {
    return { chest: counts(window.containerItems()) }
  } finally {
    window.close()
  }
}

// What the bot carries, after a round trip to the server (where it answers one), so every slot
// update sent before is here: a placement confirmed too late for its action (a loaded server) still
// took its block out of the bot's hands, and the session's count must say so.
async function carrying (bot, args, task) {
  await sync(bot, task)
  return { items: counts(bot.inventory.items()) }
}

module.exports = { takeFromChest, placeAt, digAt, surveySite, readChest, carrying, GoalWorkFrom }
