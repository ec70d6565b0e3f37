'use strict'
// The escape rooms of VillagerBench's Escape Room Challenge, south of the kitchen: a row of 5 x 5
// rooms walled in stone bricks, each closed by an iron door, the last one the exit room. Stock
// flying-squid has no redstone for plates, levers or doors, so this plugin is the mechanism:
//   plates  a plate is pressed while a player stands in its block (its `powered` shows it); when
//           every plate of a room is pressed at the same moment the room's door opens;
//   levers  a right click switches a lever on; out of the room's order it switches them all off;
//           when all are on, in order, the door opens;
//   keys    a right click on a key door by a player carrying its key item takes one key and opens it.
// An open door is gone (air) and stays open until the next setup. With the guard on (guard.js), only
// the crew (operators: the bots) press plates and work levers and doors; a visitor's click is
// refused and noted as an incident, and so is digging any block of the rooms (walls, doors,
// mechanisms), so nobody else can open, reset or break into a room. A player's lever and door clicks
// are answered with one `mindagent {"kind":"escape","at":<name>,...}` line (the bots' confirmation).
// Driven by the `escape` admin subcommand of `/kitchen` (console, or an operator in chat):
//   escape setup <json>   build the room the Python side laid out (its mechanisms by name, room and
//                         cell) and put the named bots in the first room
//   escape state          doors, plates (who holds each), levers, chests, where things are, players

const { Vec3 } = require('vec3')
const { stateIdFor } = require('../lib/layout')
const { countItems } = require('../lib/items')

const ORIGIN = { x: -2, z: 16 }
const SIZE = 5
const PITCH = SIZE + 1
const WALL = 3
const MAX_ROOMS = 6
const START_CELLS = [[1, 2], [3, 2], [2, 3], [1, 3]]
const EXIT_CELL = [2, 2]

module.exports.server = function (serv) {
  const kitchen = serv.kitchen
  let room = null
  let work = Promise.resolve()
  // Plate, lever and door changes one at a time, in the order they arrived.
  const serial = (fn) => {
    const p = work.then(fn)
    work = p.catch(err => serv.err('escape: ' + (err && err.stack)))
    return p
  }

  const cellPos = (r, cell, dy = 0) => kitchen.at(ORIGIN.x + cell[0], ORIGIN.z + PITCH * r + cell[1], dy)
  const key = (p) => `${p.x},${p.y},${p.z}`
  const block = (name, props = {}) => stateIdFor(serv.registry, name, props)
  const set = (pos, id) => serv.setBlock(serv.overworld, pos, id)

  async function clear () {
    for (let x = ORIGIN.x - 1; x <= ORIGIN.x + SIZE; x++) {
      for (let z = ORIGIN.z - 1; z <= ORIGIN.z + PITCH * MAX_ROOMS; z++) {
        for (let dy = 0; dy <= WALL; dy++) {
          const p = kitchen.at(x, z, dy)
          if ((await serv.overworld.getBlockType(p)) !== 0) await set(p, 0)
        }
      }
    }
  }

  async function walls (rooms) {
    const wall = block('stone_bricks')
    const last = ORIGIN.z + PITCH * (rooms + 1) - 1
    for (let dy = 0; dy < WALL; dy++) {
      for (let z = ORIGIN.z - 1; z <= last; z++) {
        await set(kitchen.at(ORIGIN.x - 1, z, dy), wall)
        await set(kitchen.at(ORIGIN.x + SIZE, z, dy), wall)
      }
      for (let r = 0; r <= rooms + 1; r++) {
        for (let x = ORIGIN.x; x < ORIGIN.x + SIZE; x++) await set(kitchen.at(x, ORIGIN.z - 1 + PITCH * r, dy), wall)
      }
    }
  }

  function fill (pos, items) {
    const Item = require('prismarine-item')(serv.registry)
    const store = kitchen.getContainer(pos, 'chest')
    store.slots.fill(null)
    Object.entries(items || {}).forEach(([name, count], slot) => {
      const info = serv.registry.itemsByName[name]
      if (!info) throw new Error('unknown_item: no item called ' + name)
      store.slots[slot] = new Item(info.id, Math.min(Number(count), info.stackSize))
    })
    kitchen.syncViewers(store, store.slots.map((_, i) => i))
  }

  async function setup (spec, bots) {
    const rooms = Number(spec.rooms)
    if (!(rooms >= 1 && rooms < MAX_ROOMS)) throw new Error('bad_room: 1 to ' + (MAX_ROOMS - 1) + ' rooms')
    room = null
    await clear()
    await walls(rooms)
    const next = { spec, rooms, doors: new Array(rooms).fill(false), levers: new Map(), plates: new Map(), at: new Map(), byPos: new Map() }
    for (const m of spec.mechs) {
      const pos = cellPos(m.room, m.cell)
      next.at.set(m.name, pos)
      next.byPos.set(key(pos), m)
      if (m.kind === 'door') {
        const door = { facing: 'south', hinge: 'left', open: false, powered: false }
        await set(pos, block('iron_door', { ...door, half: 'lower' }))
        await set(pos.offset(0, 1, 0), block('iron_door', { ...door, half: 'upper' }))
        next.byPos.set(key(pos.offset(0, 1, 0)), m)
      } else if (m.kind === 'plate') {
        next.plates.set(m.name, null)
        await set(pos, block('stone_pressure_plate', { powered: false }))
      } else if (m.kind === 'lever') {
        next.levers.set(m.name, false)
        await set(pos, block('lever', { face: 'floor', facing: 'north', powered: false }))
      } else if (m.kind === 'chest') {
        await set(pos, block('chest', { facing: 'north', type: 'single' }))
        fill(pos, m.items)
      }
    }
    next.bots = bots
    room = next
    await gather()
    return state()
  }

  // Each bot to its start cell in the first room. Also a command of its own (`escape gather`): a
  // teleport can lose a race with the kitchen reset's own (the bot left at the kitchen spawn,
  // outside the room's wall), so the session checks where its bots stand and asks again.
  async function gather () {
    if (!room) throw new Error('bad_state: no room set up')
    const players = serv.players.filter(p => room.bots.includes(p.username)).sort((a, b) => a.username.localeCompare(b.username))
    for (const player of players) await player.teleport(startOf(player.username).offset(0.5, 0, 0.5))
  }

  const startOf = (name) => cellPos(0, START_CELLS[room.bots.indexOf(name) % START_CELLS.length])

  const guarded = () => kitchen.config.guard !== false && kitchen.isCrew
  const mayWork = (player) => !guarded() || kitchen.isCrew(player)

  const mechsOf = (kind, r) => room.spec.mechs.filter(m => m.kind === kind && m.room === r)

  async function openDoor (r) {
    if (room.doors[r]) return
    room.doors[r] = true
    const pos = room.at.get(`door${r + 1}`)
    await set(pos.offset(0, 1, 0), 0)
    await set(pos, 0)
  }

  // Who stands on each plate now; a changed plate shows it, and a room whose plates are all held opens.
  async function pressPlates () {
    if (!room) return
    const players = serv.players.filter(mayWork).sort((a, b) => a.username.localeCompare(b.username))
    for (const [name, was] of room.plates) {
      const pos = room.at.get(name)
      const on = players.find(p => Math.floor(p.position.x) === pos.x && Math.floor(p.position.z) === pos.z &&
        Math.floor(p.position.y) === pos.y)
      const now = on ? on.username : null
      if (now === was) continue
      room.plates.set(name, now)
      if (Boolean(now) !== Boolean(was)) await set(pos, block('stone_pressure_plate', { powered: Boolean(now) }))
    }
    for (const [r, stage] of room.spec.stages.entries()) {
      if (stage.kind === 'plates' && !room.doors[r] && mechsOf('plate', r).every(m => room.plates.get(m.name))) await openDoor(r)
    }
  }
  // Is `pos` part of the rooms as built now (walls included)?
  kitchen.escapeHas = (pos) => Boolean(room) && pos.x >= ORIGIN.x - 1 && pos.x <= ORIGIN.x + SIZE &&
    pos.z >= ORIGIN.z - 1 && pos.z < ORIGIN.z + PITCH * (room.rooms + 1) && pos.y >= kitchen.ground && pos.y < kitchen.ground + WALL
  kitchen.escapeGuarded = (player) => !mayWork(player)
  kitchen.escapeMoved = () => { serial(pressPlates).catch(() => {}) }

  async function flip (m) {
    const r = m.room
    if (room.doors[r]) return { lever: m.name, on: room.levers.get(m.name), door: true }
    if (room.levers.get(m.name)) throw new Error('lever_on: ' + m.name + ' is on already')
    const order = room.spec.stages[r].order
    const levers = mechsOf('lever', r)
    const done = levers.filter(l => room.levers.get(l.name)).length
    if (m.index === order[done]) {
      room.levers.set(m.name, true)
      await set(room.at.get(m.name), block('lever', { face: 'floor', facing: 'north', powered: true }))
      if (done + 1 === order.length) await openDoor(r)
      return { lever: m.name, on: true, reset: false, door: room.doors[r] }
    }
    for (const l of levers) {
      room.levers.set(l.name, false)
      await set(room.at.get(l.name), block('lever', { face: 'floor', facing: 'north', powered: false }))
    }
    return { lever: m.name, on: false, reset: true, door: false }
  }

  async function unlock (m, player) {
    const r = m.room
    const stage = room.spec.stages[r]
    if (room.doors[r]) return { door: m.name, open: true }
    if (stage.kind !== 'key') throw new Error('no_lock: ' + m.name + ' has no keyhole')
    const slot = player.inventory.slots.findIndex((it, i) => i >= 9 && i < 45 && it && it.name === stage.key)
    if (slot < 0) throw new Error('missing_item: ' + player.username + ' carries no ' + stage.key)
    const it = player.inventory.slots[slot]
    const Item = require('prismarine-item')(serv.registry)
    player.inventory.updateSlot(slot, it.count > 1 ? new Item(it.type, it.count - 1) : null)
    await openDoor(r)
    return { door: m.name, open: true, used: stage.key }
  }

  // A right click on one of our levers or doors: act, then answer the clicker.
  const interaction = (act) => async ({ block: clicked, player }) => {
    const m = room && room.byPos.get(key(clicked.position))
    if (!m) return false
    if (!mayWork(player)) {
      kitchen.incident(player, `click ${m.name}`, 'refused')
      kitchen.reply({ player }, { kind: 'escape', ok: false, at: m.name, error: 'no_permission: only the crew works the room' })
      return true
    }
    let reply
    try {
      reply = { kind: 'escape', ok: true, at: m.name, result: await serial(() => act(m, player)) }
    } catch (err) {
      reply = { kind: 'escape', ok: false, at: m.name, error: String(err.message || err) }
    }
    kitchen.reply({ player }, reply)
    return true
  }

  function state () {
    if (!room) throw new Error('no_room: no escape room is set up')
    const exit = cellPos(room.rooms, EXIT_CELL)
    const inExit = (p) => Math.floor(p.position.z) >= exit.z - EXIT_CELL[1] && Math.floor(p.position.z) < exit.z - EXIT_CELL[1] + SIZE &&
      Math.floor(p.position.x) >= ORIGIN.x && Math.floor(p.position.x) < ORIGIN.x + SIZE
    const chests = {}
    const where = {}
    for (const m of room.spec.mechs) {
      const pos = room.at.get(m.name)
      where[m.name] = [pos.x, pos.y, pos.z]
      if (m.kind === 'chest') chests[m.name] = countItems(kitchen.getContainer(pos, 'chest').slots)
    }
    const players = {}
    for (const p of serv.players) players[p.username] = { items: countItems(p.inventory.slots.slice(9, 45)), out: inExit(p), cell: [Math.floor(p.position.x), Math.floor(p.position.z)] }
    return {
      rooms: room.rooms,
      doors: room.doors.slice(),
      plates: Object.fromEntries(room.plates),
      levers: Object.fromEntries(room.levers),
      chests,
      where,
      exit: [exit.x, exit.y, exit.z],
      starts: Object.fromEntries(room.bots.map(name => { const c = startOf(name); return [name, [c.x, c.y, c.z]] })),
      players
    }
  }

  async function escape (rest) {
    const [sub, ...more] = rest
    if (sub === 'state') return state()
    if (sub === 'gather') { await gather(); return state() }
    if (sub === 'setup') {
      let spec
      try { spec = JSON.parse(more.join(' ')) } catch (err) { throw new Error('bad_room: not JSON') }
      return setup(spec, Array.isArray(spec.bots) ? spec.bots.map(String) : [])
    }
    throw new Error('unknown escape command ' + sub)
  }

  kitchen.adminCommands = kitchen.adminCommands || new Map()
  kitchen.adminCommands.set('escape', escape)
  kitchen.resetHooks.push(() => { room = null })
  serv.once('asap', () => {
    serv.onBlockInteraction('lever', interaction(flip))
    serv.onBlockInteraction('iron_door', interaction(unlock))
  })
}

module.exports.player = function (player, serv) {
  const kitchen = serv.kitchen
  player.on('dug_cancel', ({ block, position }, cancel) => {
    if (!kitchen.escapeHas || !kitchen.escapeHas(position) || !kitchen.escapeGuarded(player)) return
    cancel(false)
    player.sendBlock(position, block.stateId)
    kitchen.incident(player, `dig the escape room's ${block.name} at ${position.x} ${position.y} ${position.z}`, 'refused')
  })
  player.on('move_done', () => { if (serv.kitchen.escapeMoved) serv.kitchen.escapeMoved() })
  player.once('disconnected', () => { if (serv.kitchen.escapeMoved) serv.kitchen.escapeMoved() })
}
