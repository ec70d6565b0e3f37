'use strict'
// Kitchen animals. Stock flying-squid 1.12.0 only spawns entities typed `mob`, but on 1.18+
// minecraft-data types cows `animal`; all mobs get 20 HP, huge knockback, no loot and no
// entity_destroy. Here: the living types are registered as mobs, each pen animal gets vanilla
// health, hits do weapon damage without knockback, a death drops loot from
// registry.entityLoot, the body is destroyed, and a new animal appears in the same pen after
// `mobRespawnMs`, at a spot drawn from the seeded kitchen generator.

const { Vec3 } = require('vec3')
const { MOB_HEALTH, WEAPON_DAMAGE } = require('../lib/constants')

const LIVING_TYPES = new Set(['mob', 'animal', 'passive', 'hostile', 'ambient', 'water_creature'])
const DEATH_ANIMATION_MS = 500

module.exports.server = function (serv) {
  const kitchen = serv.kitchen
  const live = new Set()
  const timers = new Set()

  const later = (ms, fn) => {
    const timer = setTimeout(() => { timers.delete(timer); fn() }, ms)
    timers.add(timer)
  }

  kitchen.spawnPenMob = (name, penName) => {
    const info = serv.registry.entitiesByName[name]
    if (!info || !serv.registry.mobs[info.id]) throw new Error('no mob named ' + name)
    const pen = kitchen.layout.pens[penName] || kitchen.layout.spawn
    const pos = kitchen.at(pen.x + 0.5 + kitchen.rng.range(-1.5, 1.5), pen.z + 0.5 + kitchen.rng.range(-1.5, 1.5))
    const mob = serv.spawnMob(info.id, serv.overworld, pos, {})
    mob.kitchenName = name
    mob.pen = penName
    mob.health = MOB_HEALTH[name] ?? 10
    mob.takeDamage = (opts) => hurt(mob, opts || {})
    live.add(mob)
    return mob
  }

  kitchen.dropItem = (name, pos) => {
    const info = serv.registry.itemsByName[name]
    if (!info) return null
    return serv.spawnObject(serv.registry.entitiesByName.item.id, serv.overworld, pos.clone(), {
      velocity: new Vec3(0, 0, 0), itemId: info.id, itemCount: 1, pickupTime: 300, deathTime: 5 * 60 * 1000
    })
  }

  function hurt (mob, { damage = 1 }) {
    if (mob.dead) return
    mob.health -= damage
    if (mob.health > 0) {
      mob._writeOthers('entity_status', { entityId: mob.id, entityStatus: 2 })
      return
    }
    mob.dead = true
    live.delete(mob)
    mob._writeOthers('entity_status', { entityId: mob.id, entityStatus: 3 })
    dropLoot(mob)
    later(DEATH_ANIMATION_MS, () => { if (serv.entities[mob.id]) serv.destroyEntity(mob) })
    later(kitchen.config.mobRespawnMs, () => kitchen.spawnPenMob(mob.kitchenName, mob.pen))
    kitchen.emit('mobKilled', mob)
  }

  function dropLoot (mob) {
    const loot = serv.registry.entityLoot?.[mob.kitchenName]
    if (!loot) return
    for (const drop of loot.drops) {
      if (kitchen.rng.next() > (drop.dropChance ?? 1)) continue
      const [lo = 1, hi = lo] = drop.stackSizeRange || []
      const n = kitchen.rng.int(lo, hi)
      for (let i = 0; i < n; i++) kitchen.dropItem(drop.item, mob.position.offset(0, 0.2, 0))
    }
  }

  function spawnAll () {
    for (const [name, pen] of Object.entries(kitchen.layout.pens)) {
      for (let i = 0; i < pen.count; i++) kitchen.spawnPenMob(name, name)
    }
  }

  serv.once('asap', () => {
    const reg = serv.registry
    for (const e of Object.values(reg.entities)) {
      if (LIVING_TYPES.has(e.type) && !reg.mobs[e.id]) reg.mobs[e.id] = e
    }
  })
  kitchen.once('built', spawnAll)

  kitchen.resetHooks.push(() => {
    for (const timer of timers) clearTimeout(timer)
    timers.clear()
    for (const mob of live) if (serv.entities[mob.id]) serv.destroyEntity(mob)
    live.clear()
    for (const e of Object.values(serv.entities)) {
      if (e.type === 'object' || (e.type === 'mob' && e.kitchenName)) serv.destroyEntity(e)
    }
    spawnAll()
  })

  kitchen.stateParts.push(() => ({
    mobs: [...live].map(m => ({
      id: m.id,
      name: m.kitchenName,
      pos: [m.position.x, m.position.y, m.position.z].map(v => Math.round(v * 10) / 10),
      health: m.health
    })).sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id)
  }))
}

module.exports.player = function (player, serv) {
  // Weapon damage: the stock attack handler passes no damage, so every hit would do 1.
  player.on('attack', (data) => {
    const held = player.inventory && player.inventory.slots[36 + player.heldItemSlot]
    data.damage = (held && WEAPON_DAMAGE[held.name]) || 1
    data.velocity = new Vec3(0, 0, 0)
  })
}
