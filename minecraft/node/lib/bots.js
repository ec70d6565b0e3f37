'use strict'
// The bots hosted by the bridge: connecting, their events, and one running action per bot.
// A bot that dies or leaves cancels its running action; the Python side decides when to
// reconnect (`connect` again with the same name).

const mineflayer = require('mineflayer')
const minecraftData = require('minecraft-data')
const { ping } = require('minecraft-protocol')
const { pathfinder, Movements } = require('mineflayer-pathfinder')
const { Task, ActionError, waitFor } = require('./task')
const { waitForReply } = require('./replies')
const { counts } = require('./actions')

const SPAWN_TIMEOUT_MS = 20000
const AUTH_TIMEOUT_MS = 3000
const PING_TIMEOUT_MS = 5000

class BotHost {
  constructor (emit) {
    this.emit = emit
    this.bots = new Map() // name -> { bot, task, action, connected }
    this.cache = { furnace: null, chest: null } // last container contents seen through a window
  }

  names () {
    return [...this.bots.keys()].sort()
  }

  get (name) {
    const entry = this.bots.get(name)
    if (!entry || !entry.connected) throw new ActionError('not_connected', `${name} is not connected`)
    return entry
  }

  anyConnected () {
    for (const name of this.names()) {
      const entry = this.bots.get(name)
      if (entry.connected) return entry.bot
    }
    return null
  }

  async connect ({ names, host = '127.0.0.1', port, version, token = null, auth = 'offline', accounts = {}, seePlayers = false }) {
    if (!Array.isArray(names) || names.length === 0) throw new ActionError('bad_args', 'names must be a non-empty list')
    const missing = names.filter(n => !(this.bots.get(n) && this.bots.get(n).connected))
    if (missing.length) await checkVersion(host, port, version)
    // One after another: joining together, each bot waits for the others' world to be sent too,
    // and on a busy machine four at once ran past the spawn timeout. A failure does not stop the rest.
    let failed = null
    for (const n of missing) {
      try {
        await this.connectOne(n, host, port, version, token, auth === 'microsoft' ? accounts[n] : null, seePlayers)
      } catch (err) {
        failed = failed || err
      }
    }
    if (failed) throw failed
    return { connected: this.names().filter(n => this.bots.get(n).connected) }
  }

  // `account`: the e-mail of a Microsoft account, for an online-mode server (mineflayer signs in with a
  // device code shown on stderr the first time and caches the tokens); the bot then plays under that
  // account's in-game name, which the session uses as the agent's name. `seePlayers`: load the
  // library's players plugin (bots see each other: `goTo` a player, `follow`, `entities`). Off by
  // default: the kitchen and the task families were measured with bots that do not see each other,
  // and seeing a teammate changes their observations and, under load, their paths onto plates.
  async connectOne (name, host, port, version, token, account = null, seePlayers = false) {
    const old = this.bots.get(name)
    if (old) old.bot.removeAllListeners()
    const login = account
      ? { username: account, auth: 'microsoft', onMsaCode: (d) => console.error(`${name}: sign in at ${d.verification_uri} with code ${d.user_code}`) }
      : { username: name, auth: 'offline' }
    const bot = mineflayer.createBot({ host, port: Number(port), ...login, version, hideErrors: true, logErrors: false })
    const entry = { bot, task: null, action: null, connected: false }
    this.bots.set(name, entry)
    bot.loadPlugin(pathfinder)
    if (seePlayers) bot.loadPlugin(require('./library/players'))
    bot.once('spawn', () => {
      const moves = new Movements(bot)
      moves.canDig = false
      moves.allow1by1towers = false
      moves.allowParkour = false
      moves.allowSprinting = true
      // Bots see each other since the library's players plugin; paths must not bend around a
      // teammate (it moves on, and standing on a plate beside one failed under load): players
      // stay passable, as they were for the pathfinder before bots could see them.
      moves.passableEntities.add('player')
      bot.pathfinder.setMovements(moves)
      bot.pathfinder.thinkTimeout = 3000
    })
    this.wireEvents(name, entry)
    const refused = (event) => {
      const p = waitFor(bot, event, { timeoutMs: SPAWN_TIMEOUT_MS + 1000, what: `${name} ${event}` })
      p.catch(() => {})
      return p.then(([reason]) => {
        const text = typeof reason === 'string' ? reason : JSON.stringify(reason)
        throw new ActionError('connect_failed', `${name} was refused: ${text}`)
      })
    }
    try {
      await Promise.race([
        waitFor(bot, 'spawn', { timeoutMs: SPAWN_TIMEOUT_MS, code: 'connect_failed', what: `${name} spawn` }),
        refused('kicked'),
        refused('end')
      ])
    } catch (err) {
      bot.end()
      throw versionHint(bot, version, err)
    }
    entry.connected = true
    if (token) await this.authorize(bot, name, token)
  }

  // Become an operator of our kitchen server (the admin token); other servers simply say no.
  async authorize (bot, name, token) {
    const reply = waitForReply(bot, 'auth', {
      timeoutMs: AUTH_TIMEOUT_MS,
      what: 'auth reply'
    })
    bot.chat('/kitchen auth ' + token)
    try {
      await reply
    } catch (err) {
      console.error(`${name} auth: ${err.message}`)
    }
  }

  wireEvents (name, entry) {
    const { bot } = entry
    const drop = (code, message) => {
      if (entry.task) entry.task.abort(code, message)
    }
    bot.on('spawn', () => this.emit({ event: 'spawn', bot: name }))
    bot.on('death', () => {
      drop('died', `${name} died`)
      this.emit({ event: 'death', bot: name })
    })
    bot.on('kicked', (reason) => {
      entry.connected = false
      drop('disconnected', `${name} was kicked`)
      this.emit({ event: 'kicked', bot: name, reason: typeof reason === 'string' ? reason : JSON.stringify(reason) })
    })
    bot.on('end', (reason) => {
      entry.connected = false
      drop('disconnected', `${name} left the server`)
      this.emit({ event: 'end', bot: name, reason: String(reason || '') })
    })
    bot.on('error', (err) => console.error(`${name} error: ${err.message}`))
    bot.on('chat', (username, message) => {
      if (this.bots.has(username) || this.anyConnected() !== bot) return
      this.emit({ event: 'chat', from: username, message })
    })
    bot.on('windowClose', (window) => {
      if (!window || !window.type) return
      const contents = counts(window.containerItems())
      if (window.type.startsWith('minecraft:furnace')) {
        const j = (it) => it ? { name: it.name, count: it.count } : null
        this.cache.furnace = { input: j(window.slots[0]), fuel: j(window.slots[1]), output: j(window.slots[2]) }
      } else {
        this.cache.chest = contents
      }
    })
  }

  // Run `fn(bot, args, task)` as the bot's one action; a newer action supersedes an older one.
  async run (name, label, args, timeoutMs, fn) {
    const entry = this.get(name)
    if (entry.task) entry.task.abort('superseded', `${label} replaced ${entry.action}`)
    const task = new Task(`${name} ${label}`)
    entry.task = task
    entry.action = label
    const timer = setTimeout(() => task.abort('timeout', `${label} took longer than ${timeoutMs} ms`), timeoutMs)
    try {
      return await task.race(fn(entry.bot, args, task))
    } finally {
      clearTimeout(timer)
      if (entry.task === task) {
        entry.task = null
        entry.action = null
      }
      task.cleanups = []
    }
  }

  cancel (name) {
    const entry = this.bots.get(name)
    if (entry && entry.task) entry.task.abort('cancelled', `${entry.action} cancelled`)
    return { cancelled: !!(entry && entry.task) }
  }

  disconnect (name) {
    const entry = this.get(name)
    entry.bot.quit('disconnect requested')
    return { disconnected: name }
  }

  quitAll () {
    for (const entry of this.bots.values()) {
      try { entry.bot.quit('bridge closing') } catch (err) { /* already gone */ }
    }
  }
}

// Ask the server which version it speaks before a bot joins: a bot of another version would
// only wait for a spawn that never comes. An unreachable server is left to the join to report.
async function checkVersion (host, port, version) {
  let reply = null
  try {
    reply = await ping({ host, port: Number(port), closeTimeout: PING_TIMEOUT_MS, noPongTimeout: PING_TIMEOUT_MS })
  } catch (err) {
    return
  }
  const theirs = reply && reply.version
  if (!theirs || typeof theirs.protocol !== 'number') return
  const ours = minecraftData(version)
  if (ours && ours.version && ours.version.version !== theirs.protocol) {
    const name = String(theirs.name || `protocol ${theirs.protocol}`).replace(/\s+/g, ' ')
    throw new ActionError('version_mismatch', `the server at ${host}:${port} speaks Minecraft ${name} but the bots were started for ${version} (use --mc-version ${name})`)
  }
}

// A server speaking another Minecraft version: one line naming both versions.
function versionHint (bot, wanted, err) {
  const server = bot._client && bot._client.serverVersion ? bot._client.serverVersion : null
  const kick = String(err.message || '')
  const other = server && server !== wanted ? server : (/(\d+\.\d+(?:\.\d+)?)/.exec(kick.replace(wanted, '')) || [])[1]
  if (other && other !== wanted) {
    return new ActionError('version_mismatch', `the server speaks Minecraft ${other} but the bots were started for ${wanted} (use --mc-version ${other})`)
  }
  return err
}

module.exports = { BotHost }
