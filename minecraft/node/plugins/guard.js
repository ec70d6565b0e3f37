'use strict'
// Worlds people cannot break. Anyone may join the kitchen (offline mode); only operators (the
// console, the bots that presented the admin token, players `/op`ed from the console) may change
// it. Three guards, each refusing rather than repairing, and each refusal written down as an
// incident (kitchen.incidents, in `/kitchen state`) so the recording says who tried what:
//
//   commands  an allow-list for non-operators, not a deny-list: stock flying-squid marks some
//             commands operator-only and forgets others (`/effect` has no flag, so a visitor could
//             float a bot away); whatever flying-squid or a plugin adds later stays closed unless
//             it is listed here;
//   fixtures  the furnace, the chest and the crafting table cannot be dug by anyone (the kitchen
//             state lists them, so a broken one would fail every later step that needs it);
//   animals   and players cannot be hit by a non-operator (an animal killed by a visitor would
//             leave the bots a pen to wait on);
//   furnace   a kitchen furnace opens for operators only (`kitchen.mayOpenFurnace`, asked by
//             furnace.js): a visitor's hand in it would take a cooking dish or its fuel, and a
//             dish taken out of the furnace is one the bots cannot deliver.
//
// Started with `--guard off` (kitchen.config.guard false) the server leaves all of this to stock
// flying-squid: tests use that to stand in for somebody else's server.

const OPEN_COMMANDS = new Set(['help', 'ping', 'version', 'me'])
const OPEN_KITCHEN = new Set(['state', 'craft', 'sync', 'auth'])
const FIXTURES = new Set(['furnace', 'chest', 'crafting_table'])
const MAX_INCIDENTS = 200

// May a non-operator run `line` (without its slash)?
function allowed (line) {
  const [base, sub] = String(line).trim().split(/\s+/)
  if (base === 'kitchen') return OPEN_KITCHEN.has(sub)
  return OPEN_COMMANDS.has(base)
}

module.exports.server = function (serv) {
  const kitchen = serv.kitchen
  let serial = 0
  kitchen.incidents = []

  // Note what a player did to the kitchen (refused or not) with the kitchen tick it happened at.
  // `scores`: whether it can change the score (a dish taken from the furnace can; one taken from the
  // chest cannot, deliveries being counted from the ledger); refusals change nothing.
  kitchen.incident = (player, what, outcome, scores = false) => {
    serial++
    kitchen.incidents.push({ n: serial, tick: kitchen.clock ? kitchen.clock.ticks : 0, player: player.username, what, outcome, scores })
    if (kitchen.incidents.length > MAX_INCIDENTS) kitchen.incidents.shift()
  }
  kitchen.isCrew = (player) => Boolean(player && player.op)
  // May `player` open the kitchen furnace at `pos`? A refusal is told to the player and noted.
  kitchen.mayOpenFurnace = (player, pos) => {
    if (kitchen.config.guard === false || kitchen.isCrew(player)) return true
    kitchen.incident(player, `open the furnace at ${pos.x} ${pos.y} ${pos.z}`, 'refused')
    if (typeof player.chat === 'function') player.chat('The kitchen furnace is for the crew (operators) only.')
    return false
  }
  kitchen.stateParts.push(() => ({ incidents: kitchen.incidents.slice(), guard: kitchen.config.guard !== false }))
  if (kitchen.config.guard === false) return

  serv.once('asap', () => {
    const use = serv.commands.use.bind(serv.commands)
    serv.commands.use = async (str, ctx = {}, op = true) => {
      const player = ctx && ctx.player
      if (player && !op && !allowed(str)) {
        kitchen.incident(player, '/' + String(str).trim().slice(0, 120), 'refused')
        const [base, sub] = String(str).trim().split(/\s+/)
        return `no permission: /${base}${base === 'kitchen' && sub ? ' ' + sub : ''} needs an operator here`
      }
      return use(str, ctx, op)
    }
  })
}

module.exports.player = function (player, serv) {
  const kitchen = serv.kitchen
  if (kitchen.config.guard === false) return
  player.on('dug_cancel', ({ block, position }, cancel) => {
    if (!block || !FIXTURES.has(block.name)) return
    // Not the stock cancel: it resends the block's type id as a state id, which a 1.19 client
    // draws as some other block (the digger then no longer sees a chest there).
    cancel(false)
    player.sendBlock(position, block.stateId)
    kitchen.incident(player, `dig the ${block.name} at ${position.x} ${position.y} ${position.z}`, 'refused')
  })
  player.on('attack_cancel', ({ attackedEntity }, cancel) => {
    if (kitchen.isCrew(player) || !attackedEntity) return
    const target = attackedEntity.type === 'player' ? attackedEntity.username : (attackedEntity.kitchenName || attackedEntity.name)
    if (attackedEntity.type !== 'player' && !attackedEntity.kitchenName) return
    cancel(false)
    kitchen.incident(player, `hit ${target}`, 'refused')
  })
}
