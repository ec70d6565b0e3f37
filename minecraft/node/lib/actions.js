'use strict'
// The seven dispatcher actions, as functions of one bot. Each walks where it must, acts, and
// returns only after a world event confirmed the effect (goal reached, entity dead and loot
// picked up, block gone, window slots changed). Failures are ActionErrors with a short code the
// Python side turns into one English feedback line.

const { goals } = require('mineflayer-pathfinder')
const { ActionError, waitFor, withTimeout } = require('./task')
const { findNamed, kitchenLists } = require('./spots')
const { sync } = require('./sync')
const { waitForReply } = require('./replies')

const SEARCH_RADIUS = 64
const REACH = 3
const MAX_HITS = 40
const WINDOW_TIMEOUT_MS = 5000
const PICKUP_RADIUS = 4
// Every wait below is for a world event or a server round trip (lib/sync.js), never for wall time;
// these limits only bound how long a failure takes to be reported.
// How long a bot waits for its copy of the world to show what the kitchen state listed (an animal
// or block respawned at the last clock advance whose packet is still on its way on a busy machine).
const CATCH_UP_MS = 8000
// How long a hit may go without the server saying the animal was hurt or died (then it hits again).
const HIT_ANSWER_MS = 5000
// How long the drops of a kill or a dig may take to appear, and one drop to be picked up.
const DROP_APPEAR_MS = 10000
const PICKUP_MS = 10000

const round1 = (v) => Math.round(v * 10) / 10
// null while a position is not a number (a dead bot's client briefly has NaN coordinates)
const posJson = (p) => [p.x, p.y, p.z].every(Number.isFinite) ? [round1(p.x), round1(p.y), round1(p.z)] : null

function counts (items) {
  const out = {}
  for (const it of items) if (it) out[it.name] = (out[it.name] || 0) + it.count
  return out
}

function gained (before, after) {
  const out = {}
  for (const [name, n] of Object.entries(after)) if (n > (before[name] || 0)) out[name] = n - (before[name] || 0)
  return out
}

function itemInfo (bot, name) {
  const info = bot.registry.itemsByName[name]
  if (!info) throw new ActionError('unknown_target', `there is no item called ${name}`)
  return info
}

const findBlockNamed = (bot, name) => findNamed(bot, name, SEARCH_RADIUS)

// `find()`, or, when the kitchen lists such a thing but the bot does not see it yet, `find()` again
// after the bot's world showed one (or CATCH_UP_MS passed).
async function caughtUp (bot, name, find, event, filter, task) {
  const found = find()
  if (found || !kitchenLists(name)) return found
  if (await sync(bot, task)) {
    const now = find()
    if (now) return now
  }
  try {
    await waitFor(bot, event, { filter, timeoutMs: CATCH_UP_MS, task, what: `${name} in the bot's world` })
  } catch (err) {
    task.check()
  }
  return find()
}

const seeBlock = (bot, name, task) => caughtUp(bot, name, () => findBlockNamed(bot, name), 'blockUpdate',
  (oldBlock, newBlock) => newBlock && newBlock.name === name, task)
const seeEntity = (bot, name, task) => caughtUp(bot, name, () => nearestEntity(bot, name), 'entitySpawn',
  (e) => e.name === name, task)

function nearestEntity (bot, name) {
  let best = null
  for (const e of Object.values(bot.entities)) {
    if (e === bot.entity || !e.isValid || e.name !== name) continue
    const d = e.position.distanceTo(bot.entity.position)
    if (d <= SEARCH_RADIUS && (!best || d < best.d)) best = { e, d }
  }
  return best && best.e
}

async function moveNear (bot, pos, range, task) {
  await walkTo(bot, new goals.GoalNear(pos.x, pos.y, pos.z, range), task)
}

// One walk for every action that moves (the kitchen's and the construction family's): aborted with
// its task, a path failure reported as `path_failed`.
async function walkTo (bot, goal, task) {
  if (goal.isEnd(bot.entity.position.floored())) return
  const undo = task.onAbort(() => bot.pathfinder.stop())
  try {
    await task.race(bot.pathfinder.goto(goal))
  } catch (err) {
    task.check()
    throw new ActionError('path_failed', `cannot walk there: ${err.message}`)
  } finally {
    undo()
  }
}

async function goto (bot, { target }, task) {
  let pos = null
  const block = bot.registry.blocksByName[target] ? await seeBlock(bot, target, task) : null
  const entity = block ? null : await seeEntity(bot, target, task)
  if (block) pos = block.position
  else if (entity) pos = entity.position
  else if (bot.players[target] && bot.players[target].entity) pos = bot.players[target].entity.position
  if (!pos) throw new ActionError('not_found', `found no ${target} nearby`)
  await moveNear(bot, pos, 2, task)
  return { target, position: posJson(bot.entity.position), distance: round1(bot.entity.position.distanceTo(pos)) }
}

const dropsNear = (bot, center, tried) => Object.values(bot.entities)
  .filter(e => e.name === 'item' && e.isValid && !tried.has(e.id) && e.position && e.position.distanceTo(center) <= PICKUP_RADIUS)
  .sort((a, b) => a.position.distanceTo(bot.entity.position) - b.position.distanceTo(bot.entity.position) || a.id - b.id)

// Walk onto each dropped item near `center` until it is gone (picked up by the server). The drops
// of one kill or dig are spawned together, so once the first is seen a round trip to the server
// brings the rest; at the end another round trip brings the last inventory slots.
async function collectDrops (bot, center, task) {
  const tried = new Set()
  if (dropsNear(bot, center, tried).length === 0) {
    try {
      await waitFor(bot, 'entitySpawn', {
        filter: e => e.name === 'item' && e.position && e.position.distanceTo(center) <= PICKUP_RADIUS,
        timeoutMs: DROP_APPEAR_MS,
        task,
        what: 'drop'
      })
    } catch (err) {
      task.check()
      return
    }
  }
  await sync(bot, task)
  for (;;) {
    const drops = dropsNear(bot, center, tried)
    if (drops.length === 0) break
    const drop = drops[0]
    tried.add(drop.id)
    const gone = waitFor(bot, 'entityGone', { filter: e => e.id === drop.id, timeoutMs: PICKUP_MS, task, what: 'pickup' })
    gone.catch(() => {})
    try {
      await moveNear(bot, drop.position, 1, task)
      await gone
    } catch (err) {
      task.check()
    }
  }
  await sync(bot, task)
}

async function killMob (bot, { mob }, task) {
  if (!bot.registry.entitiesByName[mob]) throw new ActionError('unknown_target', `there is no mob called ${mob}`)
  const target = await seeEntity(bot, mob, task)
  if (!target) throw new ActionError('not_found', `found no ${mob} nearby`)
  const weapon = bot.inventory.items().find(it => it.name.endsWith('_sword'))
  if (weapon) await bot.equip(weapon, 'hand')
  const before = counts(bot.inventory.items())
  let dead = false
  const onDead = (e) => { if (e.id === target.id) dead = true }
  bot.on('entityDead', onDead)
  bot.on('entityGone', onDead)
  let deathPos = target.position.clone()
  try {
    for (let hits = 0; !dead; hits++) {
      if (hits >= MAX_HITS) throw new ActionError('kill_failed', `the ${mob} did not die after ${MAX_HITS} hits`)
      deathPos = target.position.clone()
      if (bot.entity.position.distanceTo(target.position) > REACH) await moveNear(bot, target.position, 2, task)
      if (dead) break
      await bot.lookAt(target.position.offset(0, (target.height || 1) / 2, 0), true)
      const answered = waitFor(bot, 'entityHurt', { filter: e => e.id === target.id, timeoutMs: HIT_ANSWER_MS, task, what: 'hit' })
      const died = waitFor(bot, 'entityDead', { filter: e => e.id === target.id, timeoutMs: HIT_ANSWER_MS, task, what: 'death' })
      answered.catch(() => {})
      died.catch(() => {})
      bot.attack(target)
      try {
        await Promise.any([answered, died])
      } catch (err) {
        task.check()
      }
    }
  } finally {
    bot.removeListener('entityDead', onDead)
    bot.removeListener('entityGone', onDead)
  }
  await collectDrops(bot, deathPos, task)
  return { killed: mob, collected: gained(before, counts(bot.inventory.items())) }
}

async function mineBlock (bot, { block }, task) {
  if (!bot.registry.blocksByName[block]) throw new ActionError('unknown_target', `there is no block called ${block}`)
  const target = await seeBlock(bot, block, task)
  if (!target) throw new ActionError('not_found', `found no ${block} nearby`)
  await moveNear(bot, target.position, 2, task)
  const tool = bot.pathfinder.bestHarvestTool(target)
  if (tool) await bot.equip(tool, 'hand')
  const before = counts(bot.inventory.items())
  const undo = task.onAbort(() => bot.stopDigging())
  try {
    await task.race(bot.dig(target, true))
  } catch (err) {
    task.check()
    throw new ActionError('dig_failed', `could not mine the ${block}: ${err.message}`)
  } finally {
    undo()
  }
  await collectDrops(bot, target.position.offset(0.5, 0, 0.5), task)
  // Step out of the hole, or the block cannot grow back (the server waits for a free spot).
  if (bot.entity.position.floored().equals(target.position)) {
    const undoStop = task.onAbort(() => bot.pathfinder.stop())
    try {
      await task.race(bot.pathfinder.goto(new goals.GoalInvert(new goals.GoalNear(target.position.x, target.position.y, target.position.z, 1))))
    } catch (err) {
      task.check()
    } finally {
      undoStop()
    }
  }
  return { mined: block, collected: gained(before, counts(bot.inventory.items())) }
}

async function openNamed (bot, blockName, task) {
  const block = await seeBlock(bot, blockName, task)
  if (!block) throw new ActionError('not_found', `found no ${blockName} nearby`)
  await moveNear(bot, block.position, 2, task)
  const open = blockName === 'furnace' ? bot.openFurnace(block) : bot.openContainer(block)
  const window = await task.race(withTimeout(open, WINDOW_TIMEOUT_MS, 'container_failed', `the ${blockName} did not open`))
  task.onAbort(() => window.close())
  return window
}

function furnaceJson (f) {
  const j = (it) => it ? { name: it.name, count: it.count } : null
  return { input: j(f.inputItem()), fuel: j(f.fuelItem()), output: j(f.outputItem()) }
}

async function putIntoFurnace (bot, name, slot, task) {
  const info = itemInfo(bot, name)
  const have = bot.inventory.count(info.id, null)
  if (have === 0) throw new ActionError('missing_item', `has no ${name}`)
  const furnace = await openNamed(bot, 'furnace', task)
  try {
    const current = slot === 'fuel' ? furnace.fuelItem() : furnace.inputItem()
    if (current && current.type !== info.id) throw new ActionError('slot_busy', `the furnace ${slot} slot already holds ${current.name}`)
    const n = Math.min(have, current ? current.stackSize - current.count : info.stackSize)
    if (n <= 0) throw new ActionError('slot_full', `the furnace ${slot} slot is full`)
    if (slot === 'fuel') await task.race(furnace.putFuel(info.id, null, n))
    else await task.race(furnace.putInput(info.id, null, n))
    return { put: name, count: n, slot, furnace: furnaceJson(furnace) }
  } finally {
    furnace.close()
  }
}

async function takeOutFurnace (bot, args, task) {
  const furnace = await openNamed(bot, 'furnace', task)
  try {
    const out = furnace.outputItem()
    if (!out) throw new ActionError('empty_output', 'the furnace has nothing cooked yet')
    const taken = { took: out.name, count: out.count }
    await task.race(furnace.takeOutput())
    return { ...taken, furnace: furnaceJson(furnace) }
  } finally {
    furnace.close()
  }
}

async function putInChest (bot, { item }, task) {
  const info = itemInfo(bot, item)
  const have = bot.inventory.count(info.id, null)
  if (have === 0) throw new ActionError('missing_item', `has no ${item}`)
  const chest = await openNamed(bot, 'chest', task)
  try {
    if (chest.firstEmptyContainerSlot() === null && !chest.containerItems().some(it => it.type === info.id)) throw new ActionError('slot_full', 'the chest is full')
    await task.race(chest.deposit(info.id, null, have))
    return { put: item, count: have, chest: counts(chest.containerItems()) }
  } finally {
    chest.close()
  }
}

// Crafting at the kitchen's crafting table. Stock flying-squid opens no crafting window (so
// mineflayer's bot.craft cannot work there): the bot walks to the table and asks the kitchen
// plugin (`/kitchen craft <item>`), which checks reach and ingredients and swaps the inventory.
// The action returns once the plugin's reply arrived and the bot's own inventory shows the
// product (a set_slot world event), or fails on the plugin's reason or a timeout.
async function craft (bot, { item }, task) {
  itemInfo(bot, item)
  const table = await seeBlock(bot, 'crafting_table', task)
  if (!table) throw new ActionError('not_found', 'found no crafting_table nearby')
  await moveNear(bot, table.position, 2, task)
  const before = counts(bot.inventory.items())
  const replied = waitForReply(bot, 'craft', {
    timeoutMs: WINDOW_TIMEOUT_MS,
    task,
    what: 'the crafting reply'
  })
  bot.chat('/kitchen craft ' + item)
  const reply = await task.race(replied)
  if (!reply.ok) {
    const [code, ...rest] = String(reply.error).split(': ')
    throw new ActionError(rest.length ? code : 'craft_failed', rest.length ? rest.join(': ') : String(reply.error))
  }
  if (!((counts(bot.inventory.items())[item] || 0) > (before[item] || 0))) {
    await task.race(waitFor(bot.inventory, 'updateSlot', {
      filter: (slot, oldItem, newItem) => Boolean(newItem && newItem.name === item),
      timeoutMs: WINDOW_TIMEOUT_MS,
      task,
      what: `the ${item} in the inventory`
    }))
  }
  return { crafted: item, count: reply.result.count, used: reply.result.used }
}

module.exports = {
  walkTo,
  craft,
  goto,
  killMob,
  mineBlock,
  putFuelFurnace: (bot, { item }, task) => putIntoFurnace(bot, item, 'fuel', task),
  putItemFurnace: (bot, { item }, task) => putIntoFurnace(bot, item, 'input', task),
  takeOutFurnace,
  putInChest,
  counts,
  posJson
}
