'use strict'
// Core of the kitchen: shared state (`serv.kitchen`) the capability plugins hang off, the fixed
// layout built at start, a deterministic spawn point, the tool kit, inventories kept across
// reconnects, and the `kitchen` admin command (console stdin or `/kitchen` in chat).
//
// Rights: the console is an operator; a player is one after `/kitchen auth <token>` with the
// admin token the server was started with (the bridge's bots do this), or by `/op`. Anyone may
// read `/kitchen state` and use `/kitchen craft` and `/kitchen sync` (a round trip, lib/sync.js); every
// other subcommand needs an operator, and so does every stock command outside guard.js's allow-list.
//
// Plugins load in the middle of flying-squid's own plugin list, so everything that needs the
// world, spawnMob or onBlockInteraction waits for the server's `asap` event.

const { EventEmitter } = require('events')
const { Vec3 } = require('vec3')
const { LAYOUT, stateIdFor } = require('../lib/layout')
const { makeRng } = require('../lib/rng')
const { KIT, VANILLA_COOK_TICKS, CRAFTING } = require('../lib/constants')
const { countItems } = require('../lib/items')

function readConfig (settings) {
  const given = settings.kitchen || {}
  return {
    seed: Number(given.seed ?? 0),
    cookTicks: Number(given.cookTicks ?? VANILLA_COOK_TICKS),
    mobRespawnMs: Number(given.mobRespawnMs ?? 3000),
    blockRespawnMs: Number(given.blockRespawnMs ?? 5000),
    clock: given.clock === 'realtime' ? 'realtime' : 'lockstep',
    guard: given.guard !== false
  }
}

module.exports.server = function (serv, settings) {
  const kitchen = new EventEmitter()
  kitchen.config = readConfig(settings)
  kitchen.layout = LAYOUT
  kitchen.rng = makeRng(kitchen.config.seed)
  kitchen.savedInventories = new Map()
  kitchen.resetHooks = []
  kitchen.stateParts = []
  kitchen.ready = false
  serv.kitchen = kitchen

  // One JSON line back to whoever asked: the console (stdout) or a player (system chat).
  kitchen.reply = (ctx, obj) => {
    const line = 'mindagent ' + JSON.stringify(obj)
    if (ctx && ctx.player) ctx.player.system({ text: line })
    else process.stdout.write(line + '\n')
  }

  kitchen.at = (x, z, dy = 0) => new Vec3(x, kitchen.ground + dy, z)

  kitchen.state = () => {
    const out = { tick: kitchen.clock ? kitchen.clock.ticks : serv.tickCount, config: kitchen.config, players: [] }
    for (const part of kitchen.stateParts) Object.assign(out, part())
    for (const player of serv.players) {
      out.players.push({
        name: player.username,
        pos: [round1(player.position.x), round1(player.position.y), round1(player.position.z)],
        health: player.health,
        inventory: countItems(player.inventory.slots.slice(9, 46))
      })
    }
    out.players.sort((a, b) => a.name.localeCompare(b.name))
    return out
  }

  kitchen.reset = async (seed) => {
    if (seed !== undefined && !Number.isNaN(seed)) kitchen.config.seed = seed
    kitchen.rng = makeRng(kitchen.config.seed)
    kitchen.savedInventories.clear()
    for (const hook of kitchen.resetHooks) await hook()
    for (const player of serv.players) {
      for (let slot = 0; slot < player.inventory.slots.length; slot++) {
        if (player.inventory.slots[slot]) player.inventory.updateSlot(slot, null)
      }
      giveKit(player)
      await player.teleport(spawnFor(player))
    }
  }

  const spawnFor = (player) => kitchen.at(LAYOUT.spawn.x + 0.5, LAYOUT.spawn.z + 0.5)

  function giveKit (player) {
    const Item = require('prismarine-item')(serv.registry)
    KIT.forEach((name, i) => {
      const have = player.inventory.slots.some(it => it && it.name === name)
      if (!have) player.inventory.updateSlot(36 + i, new Item(serv.registry.itemsByName[name].id, 1))
    })
  }
  kitchen.giveKit = giveKit

  serv.once('asap', async () => {
    // Stock /kill is open to every player; only operators may kill here.
    const kill = serv.commands.hash && serv.commands.hash.kill
    if (kill) kill.params.op = true
    const world = serv.overworld
    let y = 120
    while (y > 0 && (await world.getBlockType(new Vec3(LAYOUT.spawn.x, y, LAYOUT.spawn.z))) === 0) y--
    kitchen.ground = y + 1
    serv.getSpawnPoint = async () => kitchen.at(LAYOUT.spawn.x + 0.5, LAYOUT.spawn.z + 0.5)
    const reg = serv.registry
    await serv.setBlock(world, kitchen.at(LAYOUT.furnace.x, LAYOUT.furnace.z),
      stateIdFor(reg, 'furnace', { facing: LAYOUT.furnace.facing, lit: false }))
    await serv.setBlock(world, kitchen.at(LAYOUT.chest.x, LAYOUT.chest.z),
      stateIdFor(reg, 'chest', { facing: LAYOUT.chest.facing }))
    await serv.setBlock(world, kitchen.at(LAYOUT.craftingTable.x, LAYOUT.craftingTable.z), stateIdFor(reg, 'crafting_table'))
    const table = kitchen.at(LAYOUT.craftingTable.x, LAYOUT.craftingTable.z)
    kitchen.stateParts.push(() => ({ crafting_tables: [{ pos: [table.x, table.y, table.z] }] }))
    kitchen.ready = true
    kitchen.emit('built')
  })

  serv.commands.add({
    base: 'kitchen',
    info: 'MindAgent kitchen admin: state | craft <item> | sync <n> | reset [seed] | spawn <mob> | give <player> <item> [n] | config <key> <n> | advance <ticks> | clock lockstep|realtime | auth <token>',
    usage: '/kitchen state|craft|sync|reset|spawn|give|config|advance|clock|auth',
    parse: (str) => str.trim().split(/\s+/),
    async action (args, ctx) {
      const [sub, ...rest] = args
      try {
        if (sub === 'auth') return kitchen.reply(ctx, { kind: sub, ok: true, result: { op: authorize(ctx, rest[0]) } })
        if (sub === 'craft') return kitchen.reply(ctx, { kind: sub, ok: true, result: craft(ctx, rest[0]) })
        if (sub === 'sync') return kitchen.reply(ctx, { kind: sub, ok: true, result: { n: Number(rest[0]), tick: kitchen.clock.ticks } })
        if (sub !== 'state' && ctx && ctx.player && !ctx.player.op) {
          throw new Error('no permission: /kitchen ' + sub + ' needs an operator')
        }
        const result = await runAdmin(sub, rest)
        kitchen.reply(ctx, { kind: sub, ok: true, result })
      } catch (err) {
        kitchen.reply(ctx, { kind: sub, ok: false, error: String(err.message || err) })
      }
    }
  })

  function authorize (ctx, token) {
    const wanted = settings.kitchen && settings.kitchen.adminToken
    if (!ctx || !ctx.player) return true
    if (!wanted || token !== wanted) throw new Error('no permission: wrong admin token')
    ctx.player.op = true
    return true
  }

  async function runAdmin (sub, rest) {
    if (sub === 'state') return kitchen.state()
    // subcommands other plugins add (construction.js: `site`), operator-only like the rest
    if (kitchen.adminCommands && kitchen.adminCommands.has(sub)) return kitchen.adminCommands.get(sub)(rest)
    if (sub === 'advance') return kitchen.advance(Math.max(0, Math.floor(Number(rest[0] ?? 1))))
    if (sub === 'clock') return kitchen.setClock(rest[0])
    if (sub === 'reset') {
      await kitchen.reset(rest[0] === undefined ? undefined : Number(rest[0]))
      return kitchen.state()
    }
    if (sub === 'spawn') {
      const mob = kitchen.spawnPenMob(rest[0], rest[0])
      return { id: mob.id, name: rest[0] }
    }
    if (sub === 'give') return giveItem(rest[0], rest[1], Number(rest[2] ?? 1))
    if (sub === 'config') {
      const key = rest[0]
      if (!(key in kitchen.config) || ['seed', 'clock', 'guard', 'adminToken'].includes(key)) throw new Error('unknown config key ' + key)
      kitchen.config[key] = Number(rest[1])
      return kitchen.config
    }
    throw new Error('unknown kitchen command ' + sub)
  }

  // Crafting at the table, done here because stock flying-squid opens no crafting window: the
  // player must stand within reach of the crafting table and carry every ingredient; they are
  // taken from the inventory and the product added in one go (all or nothing). Any player may
  // craft for themself; a failure is an error reply with a reason code first (`code: message`).
  function craft (ctx, itemName) {
    const player = ctx && ctx.player
    if (!player) throw new Error('not_a_player: only a player at the crafting table can craft')
    const recipe = CRAFTING[itemName]
    if (!recipe) throw new Error(`not_craftable: there is no kitchen recipe for ${itemName}`)
    const table = kitchen.at(LAYOUT.craftingTable.x + 0.5, LAYOUT.craftingTable.z + 0.5)
    if (player.position.distanceTo(table) > CRAFT_REACH) throw new Error('too_far: not at the crafting table')
    const Item = require('prismarine-item')(serv.registry)
    const slots = player.inventory.slots.map(it => it ? { type: it.type, name: it.name, count: it.count } : null)
    for (const [name, n] of Object.entries(recipe.needs)) {
      let left = n
      for (let slot = 9; slot < 45 && left > 0; slot++) {
        const it = slots[slot]
        if (!it || it.name !== name) continue
        const take = Math.min(left, it.count)
        it.count -= take
        left -= take
        if (it.count === 0) slots[slot] = null
      }
      if (left > 0) throw new Error(`missing_item: has no ${name}`)
    }
    const info = serv.registry.itemsByName[itemName]
    let left = recipe.makes
    for (let slot = 9; slot < 45 && left > 0; slot++) {
      const it = slots[slot]
      if (it && it.type === info.id && it.count < info.stackSize) {
        const add = Math.min(left, info.stackSize - it.count)
        it.count += add
        left -= add
      }
    }
    for (let slot = 9; slot < 45 && left > 0; slot++) {
      if (slots[slot]) continue
      const add = Math.min(left, info.stackSize)
      slots[slot] = { type: info.id, name: itemName, count: add }
      left -= add
    }
    if (left > 0) throw new Error('slot_full: the inventory has no room')
    for (let slot = 9; slot < 45; slot++) {
      const was = player.inventory.slots[slot]
      const now = slots[slot]
      if ((was ? was.type + ':' + was.count : '') === (now ? now.type + ':' + now.count : '')) continue
      player.inventory.updateSlot(slot, now ? new Item(now.type, now.count) : null)
    }
    kitchen.emit('crafted', player, itemName)
    return { crafted: itemName, count: recipe.makes, used: recipe.needs }
  }

  function giveItem (username, itemName, count) {
    const player = serv.players.find(p => p.username === username)
    if (!player) throw new Error('no player ' + username)
    const info = serv.registry.itemsByName[itemName]
    if (!info) throw new Error('no item ' + itemName)
    const Item = require('prismarine-item')(serv.registry)
    let left = count
    for (let slot = 9; slot < 45 && left > 0; slot++) {
      const cur = player.inventory.slots[slot]
      if (cur && cur.type === info.id && cur.count < cur.stackSize) {
        const add = Math.min(left, cur.stackSize - cur.count)
        player.inventory.updateSlot(slot, new Item(info.id, cur.count + add))
        left -= add
      } else if (!cur) {
        const add = Math.min(left, info.stackSize)
        player.inventory.updateSlot(slot, new Item(info.id, add))
        left -= add
      }
    }
    return { given: count - left }
  }
}

module.exports.player = function (player, serv) {
  const kitchen = serv.kitchen
  // Respawn. On 1.19.x the client_command action arrives mapped to 'perform_respawn', which the
  // stock handler (comparing with 0) ignores, so a dead player stays dead with health 0.
  player._client.on('client_command', (data) => {
    const action = data.actionId ?? data.payload
    if (action !== 'perform_respawn' || player.health > 0) return
    if (serv.registry.version['>=']('1.19')) {
      // The stock _sendRespawn writes a numeric dimension, which 1.19 cannot encode.
      player._client.write('respawn', {
        dimension: 'minecraft:overworld',
        worldName: 'minecraft:overworld',
        hashedSeed: serv.hashedSeed,
        gamemode: player.gameMode,
        previousGamemode: 255,
        isDebug: false,
        isFlat: true,
        copyMetadata: true,
        portalCooldown: 0
      })
    } else {
      player._sendRespawn()
    }
    player.updateHealth(20)
    player.nearbyEntities = []
    player.loadedChunks = {} // resend the world: a client may drop its chunks on respawn
    // An explicit position packet: mineflayer stops its physics on respawn until it gets one.
    player.sendSelfPosition(kitchen.at(kitchen.layout.spawn.x + 0.5, kitchen.layout.spawn.z + 0.5))
    player.worldSendRestOfChunks()
      .then(() => player.updateAndSpawn())
      .catch(err => serv.err('respawn: ' + err.message))
  })
  player.once('spawned', () => {
    const saved = kitchen.savedInventories.get(player.username)
    if (saved) {
      saved.forEach((item, slot) => { if (item) player.inventory.updateSlot(slot, item) })
    }
    kitchen.giveKit(player)
  })
  player.once('disconnected', () => {
    kitchen.savedInventories.set(player.username, player.inventory.slots.slice())
  })
}

const CRAFT_REACH = 4.5

function round1 (v) { return Math.round(v * 10) / 10 }
