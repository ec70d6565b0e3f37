'use strict'
// Crafting and smelting. Each answers once the bot's own inventory shows the product (the
// server's slot update), whichever way the product was made.
//
// Crafting: on a server with a crafting-table window (vanilla, Paper...) mineflayer's recipesFor
// picks a recipe the carried ingredients satisfy and bot.craft clicks it through the 2x2 grid or
// the nearest table's window. Stock flying-squid opens no crafting windows; there the kitchen
// plugin crafts on request (`/kitchen craft`, its recipes only) and lib/actions.js's kitchen verb
// already does exactly that, so this file calls it instead of repeating it.
//
// Smelting: through furnace windows (on flying-squid the kitchen's furnace plugin does the
// cooking), waiting on the window's output slot, which fills as the world clock runs.

const { ActionError, waitFor, withTimeout } = require('../task')
const { sync } = require('../sync')
const kitchen = require('../actions')
const { WINDOW_TIMEOUT_MS, itemNamed, carried, walkNear, remember, counts } = require('./common')

const TABLE_RADIUS = 32
const SLOT_TIMEOUT_MS = 5000
const MAX_BATCHES = 64
// fuels a bot may choose by itself, best first (vanilla burn times: 80, 80, 15, 15 and 1.5 items)
const FUELS = ['coal_block', 'coal', 'charcoal', 'oak_log', 'birch_log', 'spruce_log', 'oak_planks', 'birch_planks', 'spruce_planks', 'stick']

// The inventory count of `info` has reached `want` (an updateSlot world event), or a timeout.
async function inventoryReaches (bot, info, want, task) {
  if (carried(bot, info) >= want) return
  await waitFor(bot.inventory, 'updateSlot', {
    filter: () => carried(bot, info) >= want, timeoutMs: SLOT_TIMEOUT_MS, task, what: `${info.name} in the inventory`
  })
}

async function craftThroughWindows (bot, info, count, task) {
  const table = bot.findBlock({ matching: bot.registry.blocksByName.crafting_table.id, maxDistance: TABLE_RADIUS })
  const recipe = bot.recipesFor(info.id, null, 1, table || null)[0] || (table ? null : bot.recipesFor(info.id, null, 1, true)[0])
  if (!recipe) {
    const known = bot.recipesAll(info.id, null, true).length > 0
    throw new ActionError(known ? 'missing_item' : 'not_craftable', known ? `lacks the ingredients for ${info.name}` : `there is no recipe for ${info.name}`)
  }
  if (recipe.requiresTable && !table) throw new ActionError('not_found', `${info.name} needs a crafting_table and none is near`)
  if (recipe.requiresTable) await walkNear(bot, table.position, task)
  const times = Math.ceil(count / recipe.result.count)
  const undo = task.onAbort(() => { if (bot.currentWindow) bot.closeWindow(bot.currentWindow) })
  try {
    await task.race(withTimeout(bot.craft(recipe, times, recipe.requiresTable ? table : null), WINDOW_TIMEOUT_MS * times + WINDOW_TIMEOUT_MS, 'craft_failed', 'the crafting window did not answer'))
  } catch (err) {
    task.check()
    throw err instanceof ActionError ? err : new ActionError('craft_failed', err.message)
  } finally {
    undo()
  }
}

async function craft (bot, args, task) {
  const info = itemNamed(bot, args.item)
  const count = Math.max(1, Number(args.count) || 1)
  const before = carried(bot, info)
  if (await sync(bot, task)) {
    // our server: the kitchen plugin's recipes, one batch per call, until `count` are made
    for (let batch = 0; carried(bot, info) - before < count && batch < MAX_BATCHES; batch++) await kitchen.craft(bot, { item: info.name }, task)
  } else {
    await craftThroughWindows(bot, info, count, task)
  }
  await inventoryReaches(bot, info, before + count, task)
  return { crafted: info.name, count: carried(bot, info) - before }
}

function pickFuel (bot) {
  for (const name of FUELS) {
    const it = bot.inventory.items().find(i => i.name === name)
    if (it) return it
  }
  return null
}

async function smelt (bot, args, task) {
  const info = itemNamed(bot, args.item)
  const count = Math.max(1, Number(args.count) || 1)
  if (carried(bot, info) < count) throw new ActionError('missing_item', `has fewer than ${count} ${info.name}`)
  const block = bot.findBlock({ matching: bot.registry.blocksByName.furnace.id, maxDistance: TABLE_RADIUS })
  if (!block) throw new ActionError('not_found', 'found no furnace nearby')
  await walkNear(bot, block.position, task)
  const furnace = await task.race(withTimeout(bot.openFurnace(block), WINDOW_TIMEOUT_MS, 'container_failed', 'the furnace did not open'))
  task.onAbort(() => furnace.close())
  try {
    const input = furnace.inputItem()
    if (input && input.type !== info.id) throw new ActionError('slot_busy', `the furnace is already cooking ${input.name}`)
    if (!furnace.fuelItem()) {
      // a furnace still burning (its fuel window property) may finish without more
      const fuel = pickFuel(bot)
      if (fuel) await task.race(furnace.putFuel(fuel.type, null, Math.min(fuel.count, Math.ceil(count / 1.5))))
      else if (!(furnace.fuel > 0)) throw new ActionError('missing_item', 'has no fuel (coal, logs or planks)')
    }
    await task.race(furnace.putInput(info.id, null, count))
    const have = () => (furnace.outputItem() ? furnace.outputItem().count : 0)
    // the output slot fills one item per cook as the server's clock runs; the task's timeout bounds it
    if (have() < count) {
      await waitFor(furnace, 'updateSlot', { filter: () => have() >= count, timeoutMs: 3600000, task, what: 'the cooked items' })
    }
    const out = furnace.outputItem()
    const product = bot.registry.items[out.type]
    // while the window is open the bot's slots are the window's inventory part (window.count)
    const before = furnace.count(product.id, null)
    await task.race(furnace.takeOutput())
    return { smelted: info.name, made: product.name, count: furnace.count(product.id, null) - before, furnace: counts(furnace.containerItems()) }
  } finally {
    remember(bot, block.position, furnace)
    furnace.close()
  }
}

module.exports = { craft, smelt }
