'use strict'
// Furnace ticking. Stock flying-squid has no smelting at all. On every kitchen tick each furnace
// store burns fuel and cooks its input following the vanilla rules (a fuel item is used only
// when something can cook; progress decays when the fire goes out), with the cook time taken
// from the kitchen config (vanilla 200 ticks; tests use 20-40). Fuel burn times are scaled by
// the same factor, so coal always cooks 8 items. Viewers get slot updates and progress bars.
// A kitchen furnace's window opens only for whom the guard allows (`kitchen.mayOpenFurnace`,
// guard.js): this plugin loads after containers.js, so its check runs before the window opens.

const { SMELTING, FUEL_TICKS, VANILLA_COOK_TICKS } = require('../lib/constants')
const { stateIdFor } = require('../lib/layout')

module.exports.server = function (serv) {
  const kitchen = serv.kitchen
  let Item = null

  const burnTicksOf = (item) => {
    const vanilla = FUEL_TICKS[item.name]
    return vanilla ? Math.max(1, Math.round(vanilla * kitchen.config.cookTicks / VANILLA_COOK_TICKS)) : 0
  }
  const make = (type, count, slot) => {
    if (count <= 0) return null
    const item = new Item(type, count)
    item.slot = slot
    return item
  }

  function step (store) {
    const [input, fuel, output] = store.slots
    const changed = []
    const wasLit = store.burn > 0
    if (store.burn > 0) store.burn--
    const product = input ? SMELTING[input.name] : undefined
    const info = product ? serv.registry.itemsByName[product] : undefined
    const canSmelt = !!info && (!output || (output.type === info.id && output.count < output.stackSize))
    if (store.burn === 0 && canSmelt && fuel && burnTicksOf(fuel) > 0) {
      store.burn = store.burnTotal = burnTicksOf(fuel)
      store.slots[1] = make(fuel.type, fuel.count - 1, 1)
      changed.push(1)
    }
    if (store.burn > 0 && canSmelt) {
      store.cook++
      if (store.cook >= kitchen.config.cookTicks) {
        store.cook = 0
        store.slots[0] = make(input.type, input.count - 1, 0)
        store.slots[2] = make(info.id, (output ? output.count : 0) + 1, 2)
        changed.push(0, 2)
        kitchen.emit('smelted', store, product)
      }
    } else if (store.burn === 0) {
      store.cook = Math.max(0, store.cook - 2)
    } else {
      store.cook = 0
    }
    if (changed.length) {
      kitchen.syncViewers(store, changed)
      kitchen.emit('containerChanged', store)
    }
    sendProps(store, false)
    if (wasLit !== store.burn > 0) setLit(store, store.burn > 0)
  }

  // Window properties of a furnace: 0 fuel left, 1 fuel total, 2 cook progress, 3 cook total.
  function sendProps (store, force) {
    const values = [store.burn, store.burnTotal, store.cook, kitchen.config.cookTicks]
    for (const player of store.viewers) {
      const view = player.kitchenView
      if (!view || view.store !== store) continue
      values.forEach((value, property) => {
        if (!force && view.props && view.props[property] === value) return
        player._client.write('craft_progress_bar', { windowId: view.id, property, value })
      })
      view.props = values
    }
  }

  async function setLit (store, lit) {
    try {
      const block = await serv.overworld.getBlock(store.pos)
      if (block.name !== 'furnace') return
      const facing = block.getProperties().facing
      await serv.setBlock(serv.overworld, store.pos, stateIdFor(serv.registry, 'furnace', { facing, lit }))
    } catch (err) {
      serv.err('furnace lit state: ' + err.message)
    }
  }

  serv.once('asap', () => {
    Item = require('prismarine-item')(serv.registry)
    const interact = serv.interactWithBlock
    serv.interactWithBlock = async (data) => {
      const { block, player } = data
      const pos = block.position
      const ours = block.name === 'furnace' && kitchen.containers && kitchen.containers.has(`${pos.x},${pos.y},${pos.z}`)
      if (ours && !player.crouching && kitchen.mayOpenFurnace && !kitchen.mayOpenFurnace(player, pos)) return true
      return interact(data)
    }
    kitchen.onTick(() => {
      if (!kitchen.containers) return
      for (const store of kitchen.containers.values()) if (store.kind === 'furnace') step(store)
    })
  })
  kitchen.on('viewOpened', (player, view) => {
    if (view.store.kind === 'furnace') sendProps(view.store, true)
  })
}
