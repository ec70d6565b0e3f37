'use strict'
// Chests and furnaces at a position: open (look inside), take, put. Each opens the container's
// window (confirmed by the server's open_window), and take/put return once the window's slot
// updates show the move; the window is closed again before the answer, and what the bot saw is
// kept for the containerContents query.

const { ActionError, withTimeout } = require('../task')
const { WINDOW_TIMEOUT_MS, position, itemNamed, carried, loadedBlock, walkNear, remember, recall, counts } = require('./common')

const CONTAINERS = new Set(['chest', 'trapped_chest', 'barrel', 'furnace', 'smoker', 'blast_furnace'])

// Walk to the container at args' x, y, z and run `fn(window, pos)` with its window open.
async function withContainer (bot, args, task, fn) {
  const pos = position(args)
  const block = loadedBlock(bot, pos)
  if (!CONTAINERS.has(block.name)) throw new ActionError('not_found', `there is no chest or furnace at ${pos} (a ${block.name})`)
  await walkNear(bot, pos, task)
  const window = await task.race(withTimeout(bot.openContainer(block), WINDOW_TIMEOUT_MS, 'container_failed', `the ${block.name} did not open`))
  const undo = task.onAbort(() => window.close())
  try {
    return await fn(window, pos, block.name)
  } finally {
    undo()
    remember(bot, pos, window)
    window.close()
  }
}

const openContainer = (bot, args, task) => withContainer(bot, args, task, async (window, pos, name) => (
  { container: name, position: [pos.x, pos.y, pos.z], items: counts(window.containerItems()) }
))

const takeFromContainer = (bot, args, task) => withContainer(bot, args, task, async (window, pos, name) => {
  const info = itemNamed(bot, args.item)
  const inside = counts(window.containerItems())[info.name] || 0
  if (inside === 0) throw new ActionError('missing_item', `the ${name} has no ${info.name}`)
  const n = Math.min(Math.max(1, Number(args.count) || 1), inside)
  // withdraw resolves on the window's slot updates from the server: the container's loss is the take
  await task.race(window.withdraw(info.id, null, n))
  const left = counts(window.containerItems())
  return { took: info.name, count: inside - (left[info.name] || 0), items: left }
})

const putInContainer = (bot, args, task) => withContainer(bot, args, task, async (window, pos, name) => {
  const info = itemNamed(bot, args.item)
  const have = carried(bot, info)
  if (have === 0) throw new ActionError('missing_item', `has no ${info.name}`)
  const n = Math.min(Math.max(1, Number(args.count) || 1), have)
  const room = window.containerItems().some(it => it.type === info.id && it.count < it.stackSize) || window.firstEmptyContainerSlot() !== null
  if (!room) throw new ActionError('slot_full', `the ${name} is full`)
  const inside = counts(window.containerItems())[info.name] || 0
  await task.race(window.deposit(info.id, null, n))
  const now = counts(window.containerItems())
  return { put: info.name, count: (now[info.name] || 0) - inside, items: now }
})

// The query: no walking, no window; only what this bot saw last time.
function containerContents (bot, args) {
  const pos = position(args)
  const memory = recall(bot, pos)
  if (!memory) throw new ActionError('not_seen', `this bot has not looked into ${pos} yet (openContainer first)`)
  return { position: [pos.x, pos.y, pos.z], items: memory.items, seen_at_world_age: memory.at }
}

module.exports = { openContainer, takeFromContainer, putInContainer, containerContents }
