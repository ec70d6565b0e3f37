'use strict'
// Walking: to a named place, a player, a block or a mob; to a position; following a player;
// stopping. A walk answers when the pathfinder reached its goal and the bot's position (the
// server's position updates) is checked to be there.

const { goals } = require('mineflayer-pathfinder')
const { ActionError, waitFor } = require('../task')
const { firstEvent, position, walkTo, posJson, playerEntity } = require('./common')

const SEARCH_RADIUS = 64
const ARRIVE_SLACK = 1.5
// waits bounded only by the task's own timeout (the catalogue's)
const FOREVER_MS = 3600000

function nearestEntityNamed (bot, name) {
  const mine = bot.entity.position
  return Object.values(bot.entities)
    .filter(e => e !== bot.entity && e.isValid && e.name === name && e.position.distanceTo(mine) <= SEARCH_RADIUS)
    .sort((a, b) => a.position.distanceTo(mine) - b.position.distanceTo(mine) || a.id - b.id)[0] || null
}

// Where `target` is: a named place of the task first, then a player, a block, a mob.
function locate (bot, target, places) {
  const lower = String(target).toLowerCase()
  const place = Object.entries(places || {}).find(([k]) => k.toLowerCase() === lower)
  if (place && Array.isArray(place[1]) && place[1].length === 3) return { kind: 'place', pos: position({ x: place[1][0], y: place[1][1], z: place[1][2] }) }
  const player = playerEntity(bot, target)
  if (player) return { kind: 'player', pos: player.position.clone() }
  const info = bot.registry.blocksByName[lower]
  const block = info ? bot.findBlock({ matching: info.id, maxDistance: SEARCH_RADIUS }) : null
  if (block) return { kind: 'block', pos: block.position }
  const mob = nearestEntityNamed(bot, lower)
  if (mob) return { kind: 'mob', pos: mob.position.clone() }
  return null
}

async function arrive (bot, pos, range, task) {
  await walkTo(bot, new goals.GoalNear(pos.x, pos.y, pos.z, range), task)
  const d = bot.entity.position.distanceTo(pos)
  if (d > range + ARRIVE_SLACK) throw new ActionError('path_failed', `stopped ${d.toFixed(1)} blocks short`)
  return Math.round(d * 10) / 10
}

async function goTo (bot, { target }, task, ctx) {
  const found = locate(bot, target, ctx.places)
  if (!found) throw new ActionError('not_found', `found no place, player, block or mob called ${target}`)
  const distance = await arrive(bot, found.pos, found.kind === 'place' ? 1 : 2, task)
  return { target, kind: found.kind, position: posJson(bot.entity.position), distance }
}

async function goToPosition (bot, args, task) {
  const pos = position(args)
  const distance = await arrive(bot, pos.offset(0.5, 0, 0.5), 1, task)
  return { position: posJson(bot.entity.position), distance }
}

// Started here, kept after the answer: the next library action stops it (index.js).
async function follow (bot, { player, range }, task) {
  const entity = playerEntity(bot, player)
  if (!entity) throw new ActionError('not_found', `${player} is not in sight`)
  const keep = Math.max(1, Number(range) || 2)
  const near = () => entity.isValid && bot.entity.position.distanceTo(entity.position) <= keep + ARRIVE_SLACK
  bot.pathfinder.setGoal(new goals.GoalFollow(entity, keep), true)
  bot.libraryFollowing = entity.username || player
  const undo = task.onAbort(() => { bot.pathfinder.setGoal(null); bot.libraryFollowing = null })
  if (!near()) {
    // either side moving can close the gap: the bot's own move or the player's entityMoved; the
    // task's timeout bounds the wait
    await firstEvent([[bot, 'move', near, 'moved'], [bot, 'entityMoved', near, 'they moved']],
      { timeoutMs: FOREVER_MS, task, what: `${player} within ${keep}` })
  }
  undo()
  return { following: bot.libraryFollowing, distance: Math.round(bot.entity.position.distanceTo(entity.position) * 10) / 10 }
}

async function stop (bot, args, task) {
  bot.pathfinder.setGoal(null)
  bot.clearControlStates()
  bot.libraryFollowing = null
  const still = () => Math.hypot(bot.entity.velocity.x, bot.entity.velocity.z) < 0.01
  if (!still()) await waitFor(bot, 'physicsTick', { filter: still, timeoutMs: 3000, task, what: 'the bot at rest' })
  return { position: posJson(bot.entity.position) }
}

module.exports = { goTo, goToPosition, follow, stop }
