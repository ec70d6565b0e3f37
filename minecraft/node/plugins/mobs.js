'use strict'
// Kitchen animals. Stock flying-squid 1.12.0 only spawns entities typed `mob`, but on 1.18+
// minecraft-data types cows `animal`; all mobs get 20 HP, huge knockback, no loot and no
// entity_destroy. Here: the living types are registered as mobs, each pen animal gets vanilla
// health, hits do weapon damage without knockback, a death drops loot from
// registry.entityLoot, the body is destroyed, and a new animal appears in the same pen after
// `mobRespawnMs` of kitchen time, at a spot drawn from the seeded kitchen generator.
//
// The pen keeper: animals and dropped items have no gravity and no velocity (flying-squid's
// physics integrates over the real time since the last tick, so a paused or slow server let
// them tunnel through the floor), one tick's movement is capped, and on every server tick an
// animal off its spot is put back and a dropped item below the floor is lifted onto it. An
// animal whose entity vanished is respawned in its pen rather than left listed.

const { Vec3 } = require('vec3')
const { MOB_HEALTH, WEAPON_DAMAGE } = require('../lib/constants')

const { makeRng } = require('../lib/rng')

const LIVING_TYPES = new Set(['mob', 'animal', 'passive', 'hostile', 'ambient', 'water_creature'])
const DEATH_ANIMATION_TICKS = 10
const MAX_TICK_DELTA_S = 0.1
const OFF_SPOT = 0.05
const ZERO = new Vec3(0, 0, 0)

// No gravity, no drift, and never a physics step longer than MAX_TICK_DELTA_S.
function pin (entity) {
  entity.gravity = ZERO.clone()
  entity.velocity = ZERO.clone()
  const physics = entity.calculatePhysics
  entity.calculatePhysics = (delta) => physics(Math.min(delta, MAX_TICK_DELTA_S))
}

module.exports.server = function (serv) {
  const kitchen = serv.kitchen
  const live = new Set()
  let serial = 0
  const later = (ticks, fn) => kitchen.afterTicks(ticks, fn)

  kitchen.spawnPenMob = (name, penName) => {
    const info = serv.registry.entitiesByName[name]
    if (!info || !serv.registry.mobs[info.id]) throw new Error('no mob named ' + name)
    const pen = kitchen.layout.pens[penName] || kitchen.layout.spawn
    const pos = kitchen.at(pen.x + 0.5 + kitchen.rng.range(-1.5, 1.5), pen.z + 0.5 + kitchen.rng.range(-1.5, 1.5))
    const mob = serv.spawnMob(info.id, serv.overworld, pos, {})
    pin(mob)
    mob.home = pos.clone()
    mob.serial = serial++
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
    const at = new Vec3(pos.x, Math.max(pos.y, kitchen.ground), pos.z)
    const item = serv.spawnObject(serv.registry.entitiesByName.item.id, serv.overworld, at, {
      velocity: new Vec3(0, 0, 0), itemId: info.id, itemCount: 1, pickupTime: 300, deathTime: 5 * 60 * 1000
    })
    pin(item)
    return item
  }

  // Put strays back: an animal off its spot, an item below the floor; respawn a vanished animal.
  function keepPens () {
    for (const mob of [...live]) {
      if (!serv.entities[mob.id]) {
        live.delete(mob)
        kitchen.spawnPenMob(mob.kitchenName, mob.pen)
        continue
      }
      if (mob.position.distanceTo(mob.home) > OFF_SPOT) {
        mob.velocity = ZERO.clone()
        mob.sendPosition(mob.home.clone(), true)
      }
    }
    for (const item of Object.values(serv.entities)) {
      if (item.type !== 'object' || !item.position) continue
      if (item.position.y < kitchen.ground - 0.01) {
        const back = new Vec3(item.position.x, kitchen.ground, item.position.z)
        item.velocity = ZERO.clone()
        item.sendPosition(back, true)
      }
    }
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
    later(DEATH_ANIMATION_TICKS, () => { if (serv.entities[mob.id]) serv.destroyEntity(mob) })
    later(kitchen.msToTicks(kitchen.config.mobRespawnMs), () => kitchen.spawnPenMob(mob.kitchenName, mob.pen))
    kitchen.emit('mobKilled', mob)
  }

  function dropLoot (mob) {
    const loot = serv.registry.entityLoot?.[mob.kitchenName]
    if (!loot) return
    // Each animal's loot has its own generator (seed, serial): kills that happen in a different
    // order (two bots at once) still drop the same things.
    const rng = makeRng((kitchen.config.seed * 1000003 + mob.serial * 7919 + 1) >>> 0)
    for (const drop of loot.drops) {
      if (rng.next() > (drop.dropChance ?? 1)) continue
      const [lo = 1, hi = lo] = drop.stackSizeRange || []
      const n = rng.int(lo, hi)
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
  kitchen.once('built', () => {
    spawnAll()
    serv.on('tick', keepPens)
  })

  kitchen.resetHooks.push(() => {
    for (const mob of live) if (serv.entities[mob.id]) serv.destroyEntity(mob)
    live.clear()
    for (const e of Object.values(serv.entities)) {
      if (e.type === 'object' || (e.type === 'mob' && e.kitchenName)) serv.destroyEntity(e)
    }
    serial = 0
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
