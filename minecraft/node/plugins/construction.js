'use strict'
// The building site of the construction family (VillagerBench's Construction Cooperation):
// a square of ground east of the kitchen and a materials chest beside it, driven by the `site`
// admin subcommand of `/kitchen` (console, or an operator in chat):
//   site setup <material:count,...>   clear the site, place the chest, fill it (replaces contents)
//   site state                        the site's blocks (relative x, y, z, name, facing) and the chest
// Coordinates in replies are relative to the site origin; y = 0 is the first layer above ground.

const { Vec3 } = require('vec3')
const { stateIdFor } = require('../lib/layout')

const SITE = { x: 10, z: -8, size: 16, height: 16 }
const CHEST = { x: 10, z: -10 }

module.exports.server = function (serv) {
  const kitchen = serv.kitchen
  const origin = () => new Vec3(SITE.x, kitchen.ground, SITE.z)
  const chestPos = () => kitchen.at(CHEST.x, CHEST.z)

  async function clearSite () {
    const o = origin()
    for (let dx = 0; dx < SITE.size; dx++) {
      for (let dy = 0; dy < SITE.height; dy++) {
        for (let dz = 0; dz < SITE.size; dz++) {
          const p = o.offset(dx, dy, dz)
          if ((await serv.overworld.getBlockType(p)) !== 0) await serv.setBlock(serv.overworld, p, 0)
        }
      }
    }
  }

  function fillChest (wanted) {
    const Item = require('prismarine-item')(serv.registry)
    const pos = chestPos()
    const store = kitchen.getContainer(pos, 'chest')
    store.slots.fill(null)
    let slot = 0
    for (const [name, count] of wanted) {
      const info = serv.registry.itemsByName[name]
      if (!info) throw new Error('unknown_item: no item called ' + name)
      for (let left = count; left > 0; left -= info.stackSize) {
        if (slot >= store.slots.length) throw new Error('chest_full: the materials do not fit one chest')
        store.slots[slot++] = new Item(info.id, Math.min(left, info.stackSize))
      }
    }
    kitchen.syncViewers(store, store.slots.map((_, i) => i))
    return store
  }

  function parseMaterials (text) {
    if (!text) return []
    return String(text).split(',').map(part => {
      const m = /^([a-z_]{1,40}):(\d{1,4})$/.exec(part)
      if (!m) throw new Error('bad_materials: expected name:count,... not ' + part)
      return [m[1], Number(m[2])]
    })
  }

  async function state () {
    const o = origin()
    const blocks = []
    for (let dx = 0; dx < SITE.size; dx++) {
      for (let dy = 0; dy < SITE.height; dy++) {
        for (let dz = 0; dz < SITE.size; dz++) {
          const p = o.offset(dx, dy, dz)
          if ((await serv.overworld.getBlockType(p)) === 0) continue
          const block = await serv.overworld.getBlock(p)
          const facing = block.getProperties ? (block.getProperties().facing || null) : null
          blocks.push([dx, dy, dz, block.name, facing])
        }
      }
    }
    const store = kitchen.getContainer(chestPos(), 'chest')
    const chest = {}
    for (const it of store.slots) if (it) chest[it.name] = (chest[it.name] || 0) + it.count
    return { blocks, chest, origin: [o.x, o.y, o.z], chestPos: [chestPos().x, chestPos().y, chestPos().z] }
  }

  async function site (rest) {
    const [sub, arg] = rest
    if (sub === 'state') return state()
    if (sub === 'setup') {
      const wanted = parseMaterials(arg)
      await clearSite()
      await serv.setBlock(serv.overworld, chestPos(), stateIdFor(serv.registry, 'chest', { facing: 'south' }))
      fillChest(wanted)
      return state()
    }
    throw new Error('unknown site command ' + sub)
  }

  kitchen.adminCommands = kitchen.adminCommands || new Map()
  kitchen.adminCommands.set('site', site)
}
