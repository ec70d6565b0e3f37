'use strict'
// Attacking, using an item on a block, equipping, dropping and saying. Each waits for the world
// event that shows it happened: the mob's death, a change next to the block, the slot update,
// the server's echo of the chat line.

const { ActionError, waitFor } = require('../task')
const { sync } = require('../sync')
const { firstEvent, REACH, position, itemNamed, carried, loadedBlock, walkNear, walkTo, posJson } = require('./common')
const { Vec3 } = require('vec3')
const { goals } = require('mineflayer-pathfinder')

const SEARCH_RADIUS = 32
const MAX_HITS = 40
const HIT_ANSWER_MS = 5000
const EFFECT_TIMEOUT_MS = 5000
const ECHO_TIMEOUT_MS = 4000
const DESTINATIONS = { hand: 'hand', 'off-hand': 'off-hand', head: 'head', torso: 'torso', legs: 'legs', feet: 'feet' }

async function attack (bot, { mob }, task) {
  if (!bot.registry.entitiesByName[mob]) throw new ActionError('unknown_target', `there is no mob called ${mob}`)
  const mine = bot.entity.position
  const target = Object.values(bot.entities)
    .filter(e => e !== bot.entity && e.isValid && e.name === mob && e.position.distanceTo(mine) <= SEARCH_RADIUS)
    .sort((a, b) => a.position.distanceTo(mine) - b.position.distanceTo(mine) || a.id - b.id)[0]
  if (!target) throw new ActionError('not_found', `found no ${mob} nearby`)
  const over = () => !target.isValid || bot.entities[target.id] !== target
  let hits = 0
  while (!over()) {
    if (hits >= MAX_HITS) throw new ActionError('attack_failed', `the ${mob} still lives after ${MAX_HITS} hits`)
    if (bot.entity.position.distanceTo(target.position) > REACH - 1) {
      await walkTo(bot, new goals.GoalFollow(target, 2), task)
      if (over()) break
    }
    await bot.lookAt(target.position.offset(0, (target.height || 1) / 2, 0), true)
    const isTarget = (e) => e.id === target.id
    const answer = firstEvent([[bot, 'entityHurt', isTarget, 'hurt'], [bot, 'entityDead', isTarget, 'dead'], [bot, 'entityGone', isTarget, 'gone']],
      { timeoutMs: HIT_ANSWER_MS, task, what: 'answer to the hit' })
    bot.attack(target)
    hits++
    const got = await answer.catch(err => { task.check(); return { label: err.code } })
    if (got.label === 'dead' || got.label === 'gone') break
  }
  return { killed: mob, hits, position: posJson(target.position) }
}

async function useItem (bot, args, task) {
  const info = itemNamed(bot, args.item)
  const item = bot.inventory.items().find(it => it.type === info.id)
  if (!item) throw new ActionError('missing_item', `has no ${info.name}`)
  const target = position(args)
  const block = loadedBlock(bot, target)
  await walkNear(bot, target, task)
  await task.race(bot.equip(item, 'hand'))
  const before = carried(bot, info)
  const near = (p, r) => p && p.distanceTo(target.offset(0.5, 0.5, 0.5)) <= r
  const effect = firstEvent([
    [bot, 'blockUpdate', (o, n) => Boolean(n && near(n.position, 2) && (!o || o.stateId !== n.stateId)), 'block'],
    [bot, 'entitySpawn', e => near(e.position, 4), 'spawned'],
    [bot.inventory, 'updateSlot', () => carried(bot, info) < before, 'used_up']
  ], { timeoutMs: EFFECT_TIMEOUT_MS, task, code: 'no_effect', what: `change from using ${info.name} on the ${block.name}` })
  effect.catch(() => {})
  await task.race(bot.activateBlock(block, new Vec3(0, 1, 0), new Vec3(0.5, 1, 0.5)))
  const { label, args: happened } = await effect
  const detail = label === 'block' ? { block: happened[1].name, at: [happened[1].position.x, happened[1].position.y, happened[1].position.z] }
    : label === 'spawned' ? { spawned: happened[0].name } : { used_up: before - carried(bot, info) }
  return { used: info.name, on: block.name, effect: detail }
}

async function equip (bot, { item, slot }, task) {
  const info = itemNamed(bot, item)
  const dest = DESTINATIONS[slot || 'hand']
  if (!dest) throw new ActionError('bad_request', `no equipment slot ${slot}`)
  const it = bot.inventory.items().find(i => i.type === info.id)
  if (!it) throw new ActionError('missing_item', `has no ${info.name}`)
  await task.race(bot.equip(it, dest))
  // the client moves the item at once; a round trip brings the server's own slot updates
  await sync(bot, task)
  const worn = bot.inventory.slots[bot.getEquipmentDestSlot(dest)]
  const held = dest === 'hand' ? bot.heldItem : worn
  if (!held || held.type !== info.id) throw new ActionError('equip_failed', `the ${info.name} did not reach the ${dest}`)
  return { equipped: info.name, slot: dest }
}

async function drop (bot, { item, count }, task) {
  const info = itemNamed(bot, item)
  const have = carried(bot, info)
  if (have === 0) throw new ActionError('missing_item', `has no ${info.name}`)
  const n = Math.min(Math.max(1, Number(count) || 1), have)
  await task.race(bot.toss(info.id, null, n))
  // the client predicts the toss; after a round trip the slots are the server's (a refused click is resent)
  await sync(bot, task)
  if (carried(bot, info) > have - n) {
    await waitFor(bot.inventory, 'updateSlot', { filter: () => carried(bot, info) <= have - n, timeoutMs: EFFECT_TIMEOUT_MS, task, code: 'drop_failed', what: 'the items leaving the inventory' })
  }
  return { dropped: info.name, count: have - carried(bot, info) }
}

async function say (bot, { text }, task) {
  const line = String(text || '')
  if (!line.trim() || line.trim().startsWith('/')) throw new ActionError('bad_request', 'say needs a line that is not a command')
  // the server's line as every player sees it (vanilla and flying-squid both write `<name> text`)
  const heard = `<${bot.username}> ${line}`
  const echo = waitFor(bot, 'messagestr', { filter: (msg) => typeof msg === 'string' && msg.includes(heard), timeoutMs: ECHO_TIMEOUT_MS, task, code: 'not_heard', what: 'the server\'s echo' })
  echo.catch(() => {})
  bot.chat(line)
  await echo
  return { said: line }
}

module.exports = { attack, useItem, equip, drop, say }
