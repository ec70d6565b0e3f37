'use strict'
// The escape family's bot actions (plugins/escape.js is the room's mechanism). Each returns only
// once the world confirmed it, or fails with an ActionError code:
//   escapeStand   walk onto a pressure plate: its block update to powered
//   escapeFlip    right-click a lever: the plugin's `escape` answer for that lever
//   escapeUnlock  right-click a key door (the key in hand): the plugin's answer for that door
//   escapeTake    take all a chest holds: the chest window's slots
//   escapeExit    walk to the exit cell: the pathfinder reaching it
// Positions arrive as world coordinates from the Python side (the plugin's `escape state`).

const { goals } = require('mineflayer-pathfinder')
const { Vec3 } = require('vec3')
const { ActionError, waitFor, withTimeout } = require('./task')
const { counts, walkTo: walk, posJson } = require('./actions')
const { waitForReply } = require('./replies')

const CONFIRM_MS = 8000
const WINDOW_TIMEOUT_MS = 5000

const vec = (xyz) => new Vec3(Number(xyz[0]), Number(xyz[1]), Number(xyz[2]))
const powered = (block) => Boolean(block && block.getProperties && block.getProperties().powered)

async function escapeStand (bot, { at, plate }, task) {
  const target = vec(at)
  const onIt = () => bot.entity.position.floored().equals(target)
  const pressed = waitFor(bot, 'blockUpdate', {
    filter: (oldBlock, newBlock) => Boolean(newBlock && newBlock.position.equals(target) && powered(newBlock)),
    timeoutMs: CONFIRM_MS,
    task,
    code: 'plate_failed',
    what: `${plate} pressed`
  })
  pressed.catch(() => {})
  await standOn(bot, target, onIt, plate, task)
  if (!powered(bot.blockAt(target))) await pressed
  return { plate, position: posJson(bot.entity.position) }
}

// Walk onto the exact cell `target` and stay there. A sprinting bot can slide a block past a
// one-cell goal after the pathfinder calls it reached, and a path search can give up while the
// server is still sending the room's blocks; so the bot waits until it has stopped (two of its own
// physics ticks at rest; the time limit only bounds a bot that never settles) and walks again if it
// ended off the cell, a few times at most.
const STAND_TRIES = 3
const SETTLE_TICKS = 40

async function settle (bot, task) {
  let still = 0
  await waitFor(bot, 'physicsTick', {
    filter: () => {
      const v = bot.entity.velocity
      still = bot.entity.onGround && Math.abs(v.x) < 0.01 && Math.abs(v.z) < 0.01 ? still + 1 : 0
      return still >= 2
    },
    timeoutMs: SETTLE_TICKS * 50 * 4,
    task,
    code: 'path_failed',
    what: 'the bot standing still'
  }).catch(() => {})
}

async function standOn (bot, target, onIt, name, task) {
  let failure = null
  // No sprinting onto a one-cell goal: a sprinting bot slid up to two blocks past a plate.
  const moves = bot.pathfinder.movements
  const sprinting = moves ? moves.allowSprinting : false
  if (moves) moves.allowSprinting = false
  try {
    for (let tries = 0; tries < STAND_TRIES && !onIt(); tries++) {
      try {
        await walk(bot, new goals.GoalBlock(target.x, target.y, target.z), task)
        failure = null
      } catch (err) {
        task.check()
        failure = err
      }
      await settle(bot, task)
    }
  } finally {
    if (moves) moves.allowSprinting = sprinting
  }
  if (onIt()) return
  throw failure || new ActionError('path_failed', `stopped off ${name} at ${posJson(bot.entity.position)}, not ${posJson(target)}`)
}

// Right-click `target` (walking within reach first) and wait for the plugin's answer about `name`.
async function click (bot, target, name, task) {
  await walk(bot, new goals.GoalNear(target.x, target.y, target.z, 2), task)
  const block = bot.blockAt(target)
  if (!block || block.name === 'air') throw new ActionError('not_found', `${name} is not there`)
  const answer = waitForReply(bot, 'escape', { timeoutMs: CONFIRM_MS, task, what: `the answer for ${name}`, match: r => r.at === name })
  answer.catch(() => {})
  await task.race(bot.activateBlock(block))
  const reply = await answer
  if (!reply.ok) {
    const [code, ...rest] = String(reply.error).split(': ')
    throw new ActionError(rest.length ? code : 'escape_failed', rest.length ? rest.join(': ') : String(reply.error))
  }
  return reply.result
}

async function escapeFlip (bot, { at, lever }, task) {
  return click(bot, vec(at), lever, task)
}

async function escapeUnlock (bot, { at, door, key }, task) {
  const info = bot.registry.itemsByName[key]
  const have = info && bot.inventory.items().find(it => it.type === info.id)
  if (!have) throw new ActionError('missing_item', `carries no ${key}`)
  await bot.equip(have, 'hand')
  return click(bot, vec(at), door, task)
}

async function escapeTake (bot, { at, chest }, task) {
  const pos = vec(at)
  await walk(bot, new goals.GoalNear(pos.x, pos.y, pos.z, 2), task)
  const block = bot.blockAt(pos)
  if (!block || block.name !== 'chest') throw new ActionError('not_found', `${chest} is not there`)
  const window = await task.race(withTimeout(bot.openContainer(block), WINDOW_TIMEOUT_MS, 'container_failed', `${chest} did not open`))
  try {
    const before = counts(window.containerItems())
    for (const [name, n] of Object.entries(before)) {
      await task.race(window.withdraw(bot.registry.itemsByName[name].id, null, n))
    }
    // withdraw resolved on the window's slot updates: what left the chest is what the bot took
    const left = counts(window.containerItems())
    const took = {}
    for (const [name, n] of Object.entries(before)) if (n - (left[name] || 0) > 0) took[name] = n - (left[name] || 0)
    return { chest, took }
  } finally {
    window.close()
  }
}

async function escapeExit (bot, { at }, task) {
  const target = vec(at)
  await standOn(bot, target, () => bot.entity.position.floored().equals(target), 'the exit', task)
  return { position: posJson(bot.entity.position) }
}

module.exports = { escapeStand, escapeFlip, escapeUnlock, escapeTake, escapeExit }
