'use strict'
// Placing and digging at a world position. Both answer only once the bot's world shows the
// change at that position (a blockUpdate), so a refused click never reads as success.

const { Vec3 } = require('vec3')
const { goals } = require('mineflayer-pathfinder')
const { ActionError, waitFor } = require('../task')
const { REACH, position, itemNamed, loadedBlock, solid, walkTo, walkNear } = require('./common')

const UPDATE_TIMEOUT_MS = 5000
// Where a placed block may lean: below first (the usual case), then the four sides, then above.
const FACES = [[0, -1, 0], [0, 0, -1], [0, 0, 1], [-1, 0, 0], [1, 0, 0], [0, 1, 0]].map(([x, y, z]) => new Vec3(x, y, z))

// A block at `target` changed to something `accept` likes, or the task's code after a timeout.
function blockChange (bot, target, accept, task, code, what) {
  const p = waitFor(bot, 'blockUpdate', {
    filter: (oldBlock, newBlock) => Boolean(newBlock && newBlock.position.equals(target) && accept(newBlock)),
    timeoutMs: UPDATE_TIMEOUT_MS,
    task,
    code,
    what
  })
  p.catch(() => {})
  return p
}

async function placeBlock (bot, args, task) {
  const info = itemNamed(bot, args.item)
  const have = bot.inventory.items().find(it => it.type === info.id)
  if (!have) throw new ActionError('missing_item', `has no ${args.item}`)
  const target = position(args)
  const here = loadedBlock(bot, target)
  if (here.boundingBox !== 'empty') throw new ActionError('occupied', `a ${here.name} is already at ${target}`)
  const ref = FACES.map(f => bot.blockAt(target.plus(f))).find(solid)
  if (!ref) throw new ActionError('no_support', `no solid block touches ${target} to place against`)
  // stand within reach, with neither the feet nor the head in the target cell
  await walkTo(bot, new goals.GoalCompositeAll([
    new goals.GoalNear(target.x, target.y, target.z, REACH - 1),
    new goals.GoalInvert(new goals.GoalBlock(target.x, target.y, target.z)),
    new goals.GoalInvert(new goals.GoalBlock(target.x, target.y - 1, target.z))
  ]), task)
  await task.race(bot.equip(have, 'hand'))
  const placed = blockChange(bot, target, b => b.boundingBox !== 'empty' || b.name !== 'air', task, 'place_failed', `a block at ${target}`)
  try {
    await task.race(bot.placeBlock(ref, target.minus(ref.position)))
  } catch (err) {
    task.check()
    throw new ActionError('place_failed', `the server did not place the ${args.item}: ${err.message}`)
  }
  await placed.catch(err => { if (loadedBlock(bot, target).name === 'air') throw err })
  const now = loadedBlock(bot, target)
  return { placed: now.name, position: [target.x, target.y, target.z] }
}

async function digBlock (bot, args, task) {
  const target = position(args)
  const block = loadedBlock(bot, target)
  if (block.name === 'air' || block.boundingBox === 'empty') throw new ActionError('not_found', `there is no block at ${target}`)
  if (block.hardness === null || block.hardness < 0) throw new ActionError('unbreakable', `the ${block.name} cannot be dug`)
  await walkNear(bot, target, task)
  const tool = bot.pathfinder.bestHarvestTool(block)
  if (tool) await task.race(bot.equip(tool, 'hand'))
  const gone = blockChange(bot, target, b => b.name === 'air' || b.boundingBox === 'empty', task, 'dig_failed', `air at ${target}`)
  const undo = task.onAbort(() => bot.stopDigging())
  try {
    await task.race(bot.dig(block, true))
  } catch (err) {
    task.check()
    throw new ActionError('dig_failed', `could not dig the ${block.name}: ${err.message}`)
  } finally {
    undo()
  }
  if (loadedBlock(bot, target).boundingBox !== 'empty') await gone
  return { dug: block.name, position: [target.x, target.y, target.z] }
}

module.exports = { placeBlock, digBlock }
