'use strict'
// The farm of the farm-to-table family (VillagerBench's Farm-to-Table Cooking), west of the
// kitchen: a row of plots per crop on farmland, a pantry chest, a hen house nest (a chest the hens
// lay into) and a serving chest; the kitchen's furnace smelts and its crafting table crafts.
// Stock flying-squid grows nothing, milks no cow, lays no egg and crafts nothing, so this plugin
// does it, on the kitchen clock only (lockstep-friendly: a crop planted at tick t is ripe at tick
// t + growTicks; a hen lays every eggTicks), never on wall time. The rules (crops, yields, recipes,
// smelting) come from the same book the Python side reads (families/farm_recipes.json).
//
// `/kitchen farm ...`, operator-only like every other admin subcommand (the bots are operators;
// the acting player is named, and must stand within reach of the spot):
//   farm setup fields=wheat:3:2,.. pantry=bucket:3,.. eggs=N egg_ticks=N grow_ticks=N
//   farm state
//   farm harvest|plant <player> <crop> <plot>    farm milk <player>
//   farm craft <player> <item>                   farm serve <player> <dish>
// Dishes served are counted here, by the serve event, not from the serving chest's contents.

const path = require('path')
const { stateIdFor } = require('../lib/layout')
const { SMELTING } = require('../lib/constants')
const { countItems } = require('../lib/items')

const BOOK = require(path.join(__dirname, '..', '..', 'families', 'farm_recipes.json'))
const FARM = { x: -10, z: -2, rowStep: -2 }
const SPOTS = { pantry: { x: -8, z: 5 }, nest: { x: -8, z: -5 }, serving: { x: -8, z: 1 } }
const AREA = { x0: -21, x1: -9, z0: -4, z1: 4 }
const REACH = 4.5
const EGG_CAP = 16

module.exports.server = function (serv) {
  const kitchen = serv.kitchen
  // the furnace (furnace.js) smelts what the book says
  for (const [raw, product] of Object.entries(BOOK.smelting)) SMELTING[raw] = SMELTING[raw] || product
  let plots = []
  let served = {}
  let deliveries = []
  let setup = null
  let Item = null

  const spot = (name) => kitchen.at(SPOTS[name].x, SPOTS[name].z)
  const store = (name) => kitchen.getContainer(spot(name), 'chest')
  const posJson = (p) => [p.x, p.y, p.z]

  function player (name) {
    const p = serv.players.find(pl => pl.username === name)
    if (!p) throw new Error(`not_found: no player ${name}`)
    return p
  }
  function near (p, pos, what) {
    if (p.position.distanceTo(pos.offset(0.5, 0, 0.5)) > REACH) throw new Error(`too_far: not at the ${what}`)
  }

  // All-or-nothing inventory change: `take` counts out of slots 9..44, then `give` into them.
  function swap (p, take, give) {
    const slots = p.inventory.slots.map(it => it ? { type: it.type, name: it.name, count: it.count } : null)
    for (const [name, n] of Object.entries(take)) {
      let left = n
      for (let s = 9; s < 45 && left > 0; s++) {
        const it = slots[s]
        if (!it || it.name !== name) continue
        const k = Math.min(left, it.count)
        it.count -= k
        left -= k
        if (it.count === 0) slots[s] = null
      }
      if (left > 0) throw new Error(`missing_item: has no ${name}`)
    }
    for (const [name, n] of Object.entries(give)) {
      const info = serv.registry.itemsByName[name]
      let left = n
      for (let s = 9; s < 45 && left > 0; s++) {
        const it = slots[s]
        const k = !it ? Math.min(left, info.stackSize) : (it.type === info.id ? Math.min(left, info.stackSize - it.count) : 0)
        if (k <= 0) continue
        slots[s] = { type: info.id, name, count: (it ? it.count : 0) + k }
        left -= k
      }
      if (left > 0) throw new Error('slot_full: the inventory has no room')
    }
    for (let s = 9; s < 45; s++) {
      const was = p.inventory.slots[s]
      const now = slots[s]
      if ((was ? was.type + ':' + was.count : '') !== (now ? now.type + ':' + now.count : '')) {
        p.inventory.updateSlot(s, now ? new Item(now.type, now.count) : null)
      }
    }
  }

  function putInStore (name, item, n) {
    const box = store(name)
    const info = serv.registry.itemsByName[item]
    if (!info) throw new Error('unknown_item: no item called ' + item)
    let left = n
    for (let s = 0; s < box.slots.length && left > 0; s++) {
      const it = box.slots[s]
      const k = !it ? Math.min(left, info.stackSize) : (it.type === info.id ? Math.min(left, info.stackSize - it.count) : 0)
      if (k <= 0) continue
      box.slots[s] = new Item(info.id, (it ? it.count : 0) + k)
      left -= k
    }
    kitchen.syncViewers(box, box.slots.map((_, i) => i))
    return n - left
  }

  const cropState = (crop, ripe) => ripe && crop.ripe_block
    ? stateIdFor(serv.registry, crop.ripe_block)
    : stateIdFor(serv.registry, crop.block, { age: ripe ? crop.ripe_age : 0 })

  async function setPlot (plot, state) {
    plot.state = state
    const crop = BOOK.crops[plot.crop]
    await serv.setBlock(serv.overworld, plot.pos, state === 'empty' ? 0 : cropState(crop, state === 'ripe'))
  }

  function parseList (text, width) {
    if (!text) return []
    return String(text).split(',').map(part => {
      const bits = part.split(':')
      if (bits.length !== width || !/^[a-z_]{1,40}$/.test(bits[0]) || bits.slice(1).some(b => !/^\d{1,4}$/.test(b))) {
        throw new Error('bad_setup: expected name' + ':N'.repeat(width - 1) + ',... not ' + part)
      }
      return [bits[0], ...bits.slice(1).map(Number)]
    })
  }

  async function clearArea () {
    for (let x = AREA.x0; x <= AREA.x1; x++) {
      for (let z = AREA.z0; z <= AREA.z1; z++) {
        for (let dy = 0; dy < 3; dy++) {
          const p = kitchen.at(x, z, dy)
          if ((await serv.overworld.getBlockType(p)) !== 0) await serv.setBlock(serv.overworld, p, 0)
        }
      }
    }
  }

  async function doSetup (opts) {
    const fields = parseList(opts.fields, 3)
    const grow = Math.max(1, Number(opts.grow_ticks || 160))
    const eggTicks = Math.max(1, Number(opts.egg_ticks || 200))
    await clearArea()
    plots = []
    for (const [i, [crop, n, ripe]] of fields.entries()) {
      if (!BOOK.crops[crop]) throw new Error('bad_setup: no crop ' + crop)
      for (let k = 0; k < n; k++) {
        const pos = kitchen.at(FARM.x + FARM.rowStep * i, FARM.z + k)
        await serv.setBlock(serv.overworld, pos.offset(0, -1, 0), stateIdFor(serv.registry, 'farmland', { moisture: 7 }))
        const plot = { crop, index: k, pos, state: 'empty', readyAt: null, timer: null }
        plots.push(plot)
        if (k < ripe) { plot.readyAt = 0; await setPlot(plot, 'ripe') }
      }
    }
    for (const name of Object.keys(SPOTS)) {
      await serv.setBlock(serv.overworld, spot(name), stateIdFor(serv.registry, 'chest', { facing: 'east' }))
      store(name).slots.fill(null)
    }
    for (const [item, n] of parseList(opts.pantry, 2)) putInStore('pantry', item, n)
    if (Number(opts.eggs) > 0) putInStore('nest', 'egg', Number(opts.eggs))
    served = {}
    deliveries = []
    setup = { grow, eggTicks }
    const lay = () => {
      if ((countItems(store('nest').slots).egg || 0) < EGG_CAP) putInStore('nest', 'egg', 1)
      kitchen.afterTicks(eggTicks, lay)
    }
    kitchen.afterTicks(eggTicks, lay)
    return state()
  }

  function plotOf (crop, index) {
    const plot = plots.find(p => p.crop === crop && p.index === Number(index))
    if (!plot) throw new Error(`no_field: no ${crop} plot ${index}`)
    return plot
  }

  async function harvest (p, crop, index) {
    const plot = plotOf(crop, index)
    near(p, plot.pos, `${crop} plot`)
    if (plot.state !== 'ripe') throw new Error(`not_ripe: the ${crop} plot is ${plot.state}`)
    const got = BOOK.crops[crop].yield
    swap(p, {}, got)
    plot.readyAt = null
    await setPlot(plot, 'empty')
    return { harvested: crop, got, pos: posJson(plot.pos) }
  }

  async function plant (p, crop, index) {
    const plot = plotOf(crop, index)
    near(p, plot.pos, `${crop} plot`)
    if (plot.state !== 'empty') throw new Error(`no_plot: the ${crop} plot is ${plot.state}`)
    swap(p, { [BOOK.crops[crop].seed]: 1 }, {})
    plot.readyAt = kitchen.clock.ticks + setup.grow
    await setPlot(plot, 'growing')
    plot.timer = kitchen.afterTicks(setup.grow, () => setPlot(plot, 'ripe'))
    return { planted: crop, ready_at: plot.readyAt, pos: posJson(plot.pos) }
  }

  function milk (p) {
    const cow = Object.values(serv.entities).find(e => (e.kitchenName || e.name) === 'cow' && !e.dead &&
      e.position && e.position.distanceTo(p.position) <= REACH)
    if (!cow) throw new Error('too_far: no cow within reach')
    swap(p, { bucket: 1 }, { milk_bucket: 1 })
    return { milked: 'cow', got: { milk_bucket: 1 } }
  }

  function craft (p, item) {
    const recipe = BOOK.recipes[item]
    if (!recipe) throw new Error(`not_craftable: no farm recipe for ${item}`)
    const table = kitchen.layout.craftingTable
    near(p, kitchen.at(table.x, table.z), 'crafting table')
    swap(p, recipe.needs, { [item]: recipe.makes, ...(recipe.returns || {}) })
    return { crafted: item, count: recipe.makes, used: recipe.needs }
  }

  function serve (p, dish) {
    if (!BOOK.dishes.includes(dish)) throw new Error(`not_ordered: ${dish} is not a dish`)
    near(p, spot('serving'), 'serving chest')
    swap(p, { [dish]: 1 }, {})
    putInStore('serving', dish, 1)
    served[dish] = (served[dish] || 0) + 1
    deliveries.push({ tick: kitchen.clock.ticks, player: p.username, dish })
    return { served: dish, count: served[dish] }
  }

  function state () {
    const furnace = kitchen.layout.furnace
    const f = kitchen.getContainer(kitchen.at(furnace.x, furnace.z), 'furnace')
    const slot = (it) => it ? { name: it.name, count: it.count } : null
    const inventories = {}
    for (const p of serv.players) inventories[p.username] = countItems(p.inventory.slots.slice(9, 45))
    const table = kitchen.layout.craftingTable
    return {
      tick: kitchen.clock.ticks,
      cook_ticks: kitchen.config.cookTicks,
      plots: plots.map(p => ({ crop: p.crop, index: p.index, pos: posJson(p.pos), state: p.state, ready_at: p.readyAt })),
      pantry: countItems(store('pantry').slots),
      nest: countItems(store('nest').slots).egg || 0,
      served: { ...served },
      deliveries: deliveries.slice(),
      furnace: { input: slot(f.slots[0]), fuel: slot(f.slots[1]), output: slot(f.slots[2]), burn: f.burn, cook: f.cook },
      inventories,
      spots: {
        pantry: posJson(spot('pantry')), nest: posJson(spot('nest')), serving: posJson(spot('serving')),
        table: posJson(kitchen.at(table.x, table.z)), furnace: posJson(kitchen.at(furnace.x, furnace.z))
      }
    }
  }

  async function farm (rest) {
    const [sub, ...args] = rest
    if (sub === 'setup') return doSetup(Object.fromEntries(args.map(a => a.split('=', 2))))
    if (sub === 'state') return state()
    if (!setup) throw new Error('no_farm: run farm setup first')
    const p = player(args[0])
    if (sub === 'harvest') return harvest(p, args[1], args[2])
    if (sub === 'plant') return plant(p, args[1], args[2])
    if (sub === 'milk') return milk(p)
    if (sub === 'craft') return craft(p, args[1])
    if (sub === 'serve') return serve(p, args[1])
    throw new Error('unknown farm command ' + sub)
  }

  serv.once('asap', () => { Item = require('prismarine-item')(serv.registry) })
  kitchen.resetHooks.push(() => { setup = null; plots = []; served = {}; deliveries = [] })
  kitchen.adminCommands = kitchen.adminCommands || new Map()
  kitchen.adminCommands.set('farm', farm)
}
