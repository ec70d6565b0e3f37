'use strict'
// Helpers the library's groups share: argument checks that answer with an ActionError code, the
// walk (lib/actions.js's, so aborting a task stops the pathfinder the same way everywhere) and
// each bot's memory of the containers it has looked into.

const { Vec3 } = require('vec3')
const { goals } = require('mineflayer-pathfinder')
const { ActionError } = require('../task')
const { counts, walkTo, posJson } = require('../actions')

// Furthest a bot acts from (vanilla survival reach is 4.5 blocks to the block's centre).
const REACH = 4
const WINDOW_TIMEOUT_MS = 5000

function position ({ x, y, z }) {
  const v = [x, y, z].map(Number)
  if (!v.every(Number.isInteger)) throw new ActionError('bad_request', 'x, y and z must be whole numbers')
  return new Vec3(v[0], v[1], v[2])
}

function itemNamed (bot, name) {
  const info = bot.registry.itemsByName[String(name)]
  if (!info) throw new ActionError('unknown_target', `there is no item called ${name}`)
  return info
}

function carried (bot, info) {
  return bot.inventory.items().filter(it => it.type === info.id).reduce((n, it) => n + it.count, 0)
}

// The loaded block at `pos`, or a not_loaded error (the bot's world does not reach that far).
function loadedBlock (bot, pos) {
  const block = bot.blockAt(pos)
  if (!block) throw new ActionError('not_loaded', `the bot cannot see ${pos.x}, ${pos.y}, ${pos.z} (too far)`)
  return block
}

const solid = (block) => Boolean(block && block.boundingBox === 'block')

// Walk until the bot is within REACH of the block at `pos`.
const walkNear = (bot, pos, task, range = REACH - 1) => walkTo(bot, new goals.GoalNear(pos.x, pos.y, pos.z, range), task)

// container contents each bot saw, by position: filled when one of its windows closes
const seen = new WeakMap()
function remember (bot, pos, window) {
  if (!seen.has(bot)) seen.set(bot, new Map())
  seen.get(bot).set(pos.toString(), { items: counts(window.containerItems()), kind: window.type, at: bot.time ? bot.time.age : null })
}
const recall = (bot, pos) => (seen.get(bot) || new Map()).get(pos.toString()) || null

// The first of several world events: `sources` are [emitter, event, filter, label] lists; resolves
// with { label, args } of the first accepted one, or rejects with `code` after `timeoutMs` or when
// the task is aborted. Every listener and the timer are removed either way (a waitFor per source
// would leave the losers listening until their own timeouts).
function firstEvent (sources, { timeoutMs, task, code = 'timeout', what = 'a world event' }) {
  const attached = []
  let timer = null
  const promise = new Promise((resolve, reject) => {
    for (const [emitter, event, filter, label] of sources) {
      const listener = (...args) => {
        let ok = false
        try { ok = filter(...args) } catch (err) { ok = false }
        if (ok) resolve({ label, args })
      }
      emitter.on(event, listener)
      attached.push([emitter, event, listener])
    }
    timer = setTimeout(() => reject(new ActionError(code, `no ${what} within ${timeoutMs} ms`)), timeoutMs)
  })
  const cleanup = () => {
    clearTimeout(timer)
    for (const [emitter, event, listener] of attached) emitter.removeListener(event, listener)
  }
  const raced = task ? task.race(promise) : promise
  return raced.finally(cleanup)
}

// A player entity's name: mineflayer links it through the player list, which flying-squid may send
// after the entity itself, so the uuid is tried too.
function playerName (bot, e) {
  if (e.username) return e.username
  const info = Object.values(bot.players).find(p => p.uuid && p.uuid === e.uuid)
  return info ? info.username : null
}

// The entity of the player called `name` (any case) in the bot's world, not the bot itself.
function playerEntity (bot, name) {
  const lower = String(name).toLowerCase()
  const key = Object.keys(bot.players).find(n => n.toLowerCase() === lower)
  if (key && bot.players[key].entity && bot.players[key].entity !== bot.entity) return bot.players[key].entity
  return Object.values(bot.entities).find(e => e !== bot.entity && e.type === 'player' && e.isValid &&
    String(playerName(bot, e) || '').toLowerCase() === lower) || null
}

module.exports = { firstEvent, playerName, playerEntity, REACH, WINDOW_TIMEOUT_MS, position, itemNamed, carried, loadedBlock, solid, walkNear, remember, recall, counts, posJson, walkTo }
