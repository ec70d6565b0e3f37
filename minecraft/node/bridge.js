'use strict'
// One Node process hosting every bot, speaking JSON lines on stdio.
//   request  {"id":N,"op":"killMob","args":{"bot":"Alex","mob":"cow"},"timeout_ms":30000}
//   reply    {"id":N,"ok":true,"result":{...}} | {"id":N,"ok":false,"code":"not_found","error":"..."}
//   events   {"event":"spawn"|"death"|"kicked"|"end"|"chat",...}
// stdout carries nothing else (console.log goes to stderr); the process exits when stdin closes.

console.log = console.error
console.info = console.error
console.warn = console.error

const readline = require('readline')
const { BotHost } = require('./lib/bots')
const actions = { ...require('./lib/actions'), ...require('./lib/building'), ...require('./lib/escape'), ...require('./lib/farm') }
const { botJson, makeKitchenQuery } = require('./lib/observe')
const spots = require('./lib/spots')
const { ActionError, waitFor } = require('./lib/task')
const { sync } = require('./lib/sync')
const { DEFAULT_VERSION } = require('./lib/constants')
const library = require('./lib/library')

const write = (obj) => process.stdout.write(JSON.stringify(obj) + '\n')
const host = new BotHost(write)
const kitchenQuery = makeKitchenQuery()

const DEFAULT_TIMEOUT_MS = {
  connect: 30000, goto: 20000, killMob: 30000, mineBlock: 20000, putFuelFurnace: 15000,
  putItemFurnace: 15000, takeOutFurnace: 15000, putInChest: 15000, craft: 15000, takeFromChest: 15000, placeAt: 15000, digAt: 15000, surveySite: 20000, readChest: 15000, carrying: 10000, farmAct: 20000, observe: 30000, reset: 10000, viewer: 10000
}
const ACTIONS = ['goto', 'killMob', 'mineBlock', 'putFuelFurnace', 'putItemFurnace', 'takeOutFurnace', 'putInChest', 'craft', 'takeFromChest', 'placeAt', 'digAt', 'escapeStand', 'escapeFlip', 'escapeUnlock', 'escapeTake', 'escapeExit', 'surveySite', 'readChest', 'carrying', 'farmAct']

function needBot () {
  const bot = host.anyConnected()
  if (!bot) throw new ActionError('not_connected', 'no bot is connected')
  return bot
}

// The kitchen state first: its block spots spare every bot a scan of the world.
async function observe () {
  const bot = host.anyConnected()
  const kitchen = bot ? await kitchenQuery(bot, 'state') : null
  if (bot) spots.setKitchen(kitchen)
  // every bot's copy of the world caught up with the server (what the last clock advance spawned)
  const live = host.names().map(n => host.bots.get(n)).filter(e => e.connected && e.bot.entity)
  await Promise.all(live.map(e => sync(e.bot)))
  const bots = {}
  for (const name of host.names()) {
    const entry = host.bots.get(name)
    bots[name] = entry.connected && entry.bot.entity ? botJson(entry.bot, entry.action) : { connected: false }
  }
  return { bots, kitchen, cache: host.cache, world: worldTime(bot) }
}

// The server's own clock as the bots hear it (its time updates); null before the first one.
function worldTime (bot) {
  const t = bot && bot.time
  if (!t || !Number.isFinite(t.age) || t.age === null) return null
  return { age: t.age, time_of_day: Number.isFinite(t.timeOfDay) ? t.timeOfDay : 0 }
}

// Until the server's world age (its time updates, every 20 ticks on vanilla) reaches `age`: how a
// session on a server of someone else's paces its steps by that server's clock, not by wall time.
async function waitWorld (args) {
  const bot = needBot()
  const want = Number(args.age)
  if (!(Number.isFinite(bot.time.age) && bot.time.age >= want)) {
    await waitFor(bot, 'time', { filter: () => Number.isFinite(bot.time.age) && bot.time.age >= want, timeoutMs: 3600000, what: 'world time' })
  }
  return worldTime(bot)
}

// The 3D view server (lib/viewer.js), started on the first `viewer` request and kept across
// requests; a bridge that restarts starts it again when asked (same port).
let viewer = null
async function startView (args) {
  if (!viewer) {
    const { startViewer } = require('./lib/viewer')
    viewer = await startViewer({
      pickBot: () => host.anyConnected(),
      allBots: () => host.names().map(n => host.bots.get(n)).filter(e => e.connected).map(e => e.bot),
      centreFor: spots.kitchenCentre,
      bind: String(args.bind || '127.0.0.1'),
      port: Number(args.port || 0),
      allowed: Array.isArray(args.allowed) ? args.allowed.map(h => String(h).toLowerCase()) : []
    })
  }
  return { port: viewer.port }
}

const OPS = {
  ping: async () => ({ pong: true }),
  connect: (args) => host.connect({ version: DEFAULT_VERSION, ...args }),
  disconnect: async (args) => host.disconnect(args.bot),
  cancel: async (args) => host.cancel(args.bot),
  observe,
  chat: async (args) => { host.get(args.bot).bot.chat(String(args.text)); return { sent: true } },
  reset: async (args) => kitchenQuery(needBot(), `reset ${Number(args.seed ?? 0)}`),
  kitchen: async (args) => kitchenQuery(needBot(), String(args.command)),
  viewer: startView,
  waitWorld,
  act: (args) => library.act(host, args)
}

async function handle (line) {
  let req
  try {
    req = JSON.parse(line)
  } catch (err) {
    write({ id: null, ok: false, code: 'bad_request', error: 'not JSON: ' + err.message })
    return
  }
  const { id = null, op, args = {} } = req || {}
  const timeoutMs = Number(req.timeout_ms || DEFAULT_TIMEOUT_MS[op] || 10000)
  try {
    let result
    if (ACTIONS.includes(op)) {
      result = await host.run(args.bot, op, args, timeoutMs, actions[op])
    } else if (OPS[op]) {
      let timer = null
      const limit = new Promise((resolve, reject) => {
        timer = setTimeout(() => reject(new ActionError('timeout', `${op} took longer than ${timeoutMs} ms`)), timeoutMs)
      })
      result = await Promise.race([OPS[op](args), limit]).finally(() => clearTimeout(timer))
    } else {
      throw new ActionError('bad_request', `unknown op ${op}`)
    }
    write({ id, ok: true, result: result ?? null })
  } catch (err) {
    write({ id, ok: false, code: err.code || 'internal', error: String(err.message || err) })
  }
}

process.on('uncaughtException', (err) => console.error('uncaught: ' + (err && err.stack)))
process.on('unhandledRejection', (err) => console.error('unhandled: ' + (err && err.stack)))

const rl = readline.createInterface({ input: process.stdin })
rl.on('line', (line) => { if (line.trim()) handle(line) })
rl.on('close', () => {
  if (viewer) viewer.close()
  host.quitAll()
  setTimeout(() => process.exit(0), 300)
})
write({ event: 'ready', version: DEFAULT_VERSION, pid: process.pid })
