'use strict'
// The farm family's bot action: walk to the spot (a plot, the crafting table, the serving chest)
// or to the nearest cow, ask the farm plugin to do what stock flying-squid cannot (harvest,
// plant, milk, craft, serve: `/kitchen farm <verb> <bot> ...`), and return only once the bot's
// own world shows the effect: the plot's block changed (a blockUpdate) or the item arrived in or
// left its inventory (an updateSlot). Taking from the pantry or the nest is building.js's
// takeFromChest; smelting is the kitchen's furnace verbs (actions.js).

const { goals } = require('mineflayer-pathfinder')
const { Vec3 } = require('vec3')
const { ActionError, waitFor } = require('./task')
const { counts, walkTo } = require('./actions')
const { waitForReply } = require('./replies')

const REPLY_TIMEOUT_MS = 8000
const EVENT_TIMEOUT_MS = 8000
const VERBS = new Set(['harvest', 'plant', 'milk', 'craft', 'serve'])
const WORD = /^[a-z0-9_]{1,40}$/

function nearestCow (bot) {
  let best = null
  for (const e of Object.values(bot.entities)) {
    if (e === bot.entity || !e.isValid || e.name !== 'cow') continue
    const d = e.position.distanceTo(bot.entity.position)
    if (!best || d < best.d) best = { e, d }
  }
  return best && best.e.position
}

// Resolves once the bot's copy of the world shows `expect` (or at once if it already does).
function confirmed (bot, expect, before, task) {
  if (expect.block) {
    const [x, y, z, name] = expect.block
    const pos = new Vec3(x, y, z)
    const shows = (b) => Boolean(b && b.name === name)
    if (shows(bot.blockAt(pos))) return Promise.resolve()
    return waitFor(bot, 'blockUpdate', {
      filter: (oldBlock, newBlock) => Boolean(newBlock && newBlock.position.equals(pos) && shows(newBlock)),
      timeoutMs: EVENT_TIMEOUT_MS, task, code: 'not_confirmed', what: `${name} at the plot`
    })
  }
  const item = expect.item
  const done = () => {
    const now = counts(bot.inventory.items())[item] || 0
    return expect.less ? now < (before[item] || 0) : now > (before[item] || 0)
  }
  if (done()) return Promise.resolve()
  return waitFor(bot.inventory, 'updateSlot', {
    filter: () => done(), timeoutMs: EVENT_TIMEOUT_MS, task, code: 'not_confirmed', what: `${item} in the inventory`
  })
}

async function farmAct (bot, { verb, args = [], at = null, entity = null, expect }, task) {
  if (!VERBS.has(verb)) throw new ActionError('bad_request', `no farm verb ${verb}`)
  const words = args.map(String)
  if (!words.every(w => WORD.test(w))) throw new ActionError('bad_request', 'farm arguments are ids and numbers')
  const target = entity === 'cow' ? nearestCow(bot) : (at ? new Vec3(at[0], at[1], at[2]) : null)
  if (entity && !target) throw new ActionError('not_found', `found no ${entity} nearby`)
  if (target) await walkTo(bot, new goals.GoalNear(target.x, target.y, target.z, 2), task)
  const before = counts(bot.inventory.items())
  // seen from the moment the command goes out, so an update racing the reply is not missed
  const shown = confirmed(bot, expect, before, task)
  shown.catch(() => {})
  const replied = waitForReply(bot, 'farm', { timeoutMs: REPLY_TIMEOUT_MS, task, what: `the ${verb} reply` })
  bot.chat(['/kitchen farm', verb, bot.username, ...words].join(' '))
  const reply = await replied
  if (!reply.ok) {
    const [code, ...rest] = String(reply.error).split(': ')
    throw new ActionError(rest.length ? code : 'farm_failed', rest.length ? rest.join(': ') : String(reply.error))
  }
  await shown
  return { verb, ...reply.result }
}

module.exports = { farmAct }
