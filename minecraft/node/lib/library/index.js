'use strict'
// The action library behind the bridge's one `act` request:
//   {"op":"act","args":{"bot":"Alex","action":"digBlock","args":{"x":1,"y":5,"z":2},"timeout_ms":20000,"places":{...}}}
// The catalogue (names, arguments, timeouts, descriptions) lives in Python (minecraft/actions/);
// this table maps each name to its implementation. Actions run as the bot's one task (a newer
// action supersedes it; death, leaving and the timeout abort it); queries answer at once.

const { ActionError } = require('../task')
const kitchen = require('../actions')
const blocks = require('./blocks')
const crafting = require('./crafting')
const containers = require('./containers')
const movement = require('./movement')
const interaction = require('./interaction')
const queries = require('./queries')

const DEFAULT_TIMEOUT_MS = 15000

const ACTIONS = {
  ...blocks,
  ...crafting,
  openContainer: containers.openContainer,
  takeFromContainer: containers.takeFromContainer,
  putInContainer: containers.putInContainer,
  ...movement,
  ...interaction,
  // the kitchen's verbs (lib/actions.js), unchanged, under the same names
  killMob: kitchen.killMob,
  mineBlock: kitchen.mineBlock,
  putFuelFurnace: kitchen.putFuelFurnace,
  putItemFurnace: kitchen.putItemFurnace,
  takeOutFurnace: kitchen.takeOutFurnace,
  putInChest: kitchen.putInChest
}

const QUERIES = { ...queries, containerContents: containers.containerContents }

function args (req) {
  const given = req.args
  return given && typeof given === 'object' && !Array.isArray(given) ? given : {}
}

async function act (host, req) {
  const name = String(req.action || '')
  if (Object.prototype.hasOwnProperty.call(QUERIES, name)) return QUERIES[name](host.get(req.bot).bot, args(req))
  if (!Object.prototype.hasOwnProperty.call(ACTIONS, name)) throw new ActionError('bad_request', `no action called ${name}`)
  const ctx = { places: req.places && typeof req.places === 'object' ? req.places : {} }
  const timeoutMs = Number(req.timeout_ms) > 0 ? Number(req.timeout_ms) : DEFAULT_TIMEOUT_MS
  return host.run(req.bot, name, args(req), timeoutMs, (bot, params, task) => {
    // a follow lasts until the bot's next action
    if (bot.libraryFollowing && name !== 'follow') {
      bot.pathfinder.setGoal(null)
      bot.libraryFollowing = null
    }
    return ACTIONS[name](bot, params, task, ctx)
  })
}

module.exports = { act, ACTIONS: Object.keys(ACTIONS).sort(), QUERIES: Object.keys(QUERIES).sort() }
