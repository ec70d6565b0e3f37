'use strict'
// A live 3D view of the kitchen for the game page, drawn by prismarine-viewer's browser bundle.
//
// Our own small web server (not prismarine-viewer's `mineflayer()` helper, which listens on every
// interface and follows one bot around): it serves the package's prebuilt page, bundle and
// textures (all inside the npm package, so nothing is fetched from the internet), and feeds each
// browser over socket.io from one bot's copy of the world: the chunks around the kitchen (fixed,
// the camera looks at the kitchen, not at a bot), block changes, the animals and the people as
// that bot sees them, and every bot where the bridge knows it is. When that bot leaves, the view
// switches to another connected bot.
//
// Requests whose Host is not one of the allowed names are refused (a DNS-rebinding page cannot
// read the world through a visitor's browser); socket.io sends no CORS headers.

const http = require('http')
const path = require('path')

const VIEW_CHUNKS = 2 // chunks each way from the kitchen's: the pens and fuel blocks are within 8 blocks
// A fixed camera behind the chest side, above and looking down on the kitchen (Minecraft yaw 0
// looks towards -z), whatever the bots do.
const CAMERA = { back: 15, up: 11, pitch: -0.6 }
const WATCH_EVERY_MS = 1000
const BOTS_EVERY_MS = 100

function hostAllowed (header, allowed) {
  if (!allowed || allowed.length === 0) return true
  if (!header) return false
  const name = header.startsWith('[') ? header.slice(0, header.indexOf(']') + 1) : header.split(':')[0]
  return allowed.includes(name.toLowerCase())
}

// One browser: the world and the animals as one bot sees them, and every bot where the bridge
// knows it is (bots do not always see each other).
class Feed {
  constructor (socket, pickBot, allBots, centreFor) {
    this.socket = socket
    this.pickBot = pickBot
    this.allBots = allBots
    this.centreFor = centreFor
    this.bot = null
    this.view = null
    this.drawn = new Set() // entity ids the page has a mesh for
    this.botsAt = new Map() // bot name -> last position sent
    this.timer = setInterval(() => this.watch(), WATCH_EVERY_MS)
    this.botTimer = setInterval(() => this.sendBots(), BOTS_EVERY_MS)
    this.watch()
  }

  // Only what the page can draw: a new entity needs a known kind (dropped items have no model
  // there) and a size; a move or a removal of an entity it never drew is dropped.
  entity (data) {
    if (data.delete) {
      if (this.drawn.delete(data.id)) this.socket.emit('entity', { id: data.id, delete: true })
      return
    }
    if (!this.drawn.has(data.id)) {
      if (!data.name || data.name === 'item') return
      if (data.name === 'player' && this.isBot(data.username) && typeof data.id === 'number') return // drawn by sendBots
      data = { ...data, width: data.width || 0.6, height: data.height || 1.8 }
      this.drawn.add(data.id)
    }
    this.socket.emit('entity', data)
  }

  isBot (username) {
    return this.allBots().some(b => b.username === username)
  }

  watch () {
    const bot = this.pickBot()
    if (bot === this.bot) return
    this.detach()
    if (!bot || !bot.entity) return
    const { WorldView } = require('prismarine-viewer/viewer/lib/worldView') // not viewer/index.js: that one needs node-canvas
    this.bot = bot
    const emitter = {
      emit: (event, data) => event === 'entity' ? this.entity(data) : this.socket.emit(event, data),
      on: () => {} // the page's mouse clicks are not used
    }
    const centre = this.centreFor(bot)
    this.view = new WorldView(bot.world, VIEW_CHUNKS, centre, emitter)
    this.socket.emit('version', bot.version)
    // yaw and pitch given: the page places a fixed camera there instead of following a bot
    const eye = centre.offset(0, CAMERA.up, CAMERA.back)
    this.socket.emit('position', { pos: eye, yaw: 0, pitch: CAMERA.pitch })
    this.view.init(centre).catch(err => console.error('viewer: ' + err.message))
    this.view.listenToBot(bot)
  }

  sendBots () {
    const seen = new Set()
    for (const bot of this.allBots()) {
      const e = bot.entity
      if (!e || !e.position || ![e.position.x, e.position.y, e.position.z].every(Number.isFinite)) continue
      const id = 'bot:' + bot.username
      seen.add(id)
      const last = this.botsAt.get(id)
      if (last && last.equals(e.position)) continue
      this.botsAt.set(id, e.position.clone())
      this.entity({ id, name: 'player', username: bot.username, pos: e.position, yaw: e.yaw, pitch: e.pitch })
    }
    for (const id of [...this.botsAt.keys()]) {
      if (!seen.has(id)) {
        this.botsAt.delete(id)
        this.entity({ id, delete: true })
      }
    }
  }

  detach () {
    if (!this.bot) return
    if (this.view) this.view.removeListenersFromBot(this.bot)
    for (const id of [...this.drawn]) if (typeof id === 'number') this.entity({ id, delete: true })
    this.bot = null
    this.view = null
  }

  close () {
    clearInterval(this.timer)
    clearInterval(this.botTimer)
    this.detach()
  }
}

// `pickBot()` names the bot whose world is shown (null: none yet), `allBots()` the connected bots,
// `centreFor(bot)` the kitchen's centre in it.
async function startViewer ({ pickBot, allBots, centreFor, bind = '127.0.0.1', port = 0, allowed = [] }) {
  const express = require('express')
  const { Server } = require('socket.io')
  const publicDir = path.join(path.dirname(require.resolve('prismarine-viewer/package.json')), 'public')
  const app = express()
  app.disable('x-powered-by')
  app.use((req, res, next) => {
    if (!hostAllowed(req.headers.host, allowed)) return res.status(403).send('wrong host')
    next()
  })
  app.get('/favicon.ico', (req, res) => res.status(204).end()) // the page asks; nothing to show
  app.use(require('compression')())
  app.use('/', express.static(publicDir))
  const server = http.createServer(app)
  const io = new Server(server, {
    path: '/socket.io',
    allowRequest: (req, done) => done(null, hostAllowed(req.headers.host, allowed))
  })
  const feeds = new Set()
  io.on('connection', (socket) => {
    const feed = new Feed(socket, pickBot, allBots, centreFor)
    feeds.add(feed)
    socket.on('disconnect', () => { feed.close(); feeds.delete(feed) })
  })
  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(Number(port), bind, resolve)
  })
  return {
    port: server.address().port,
    close: () => {
      for (const feed of feeds) feed.close()
      io.close()
      server.close()
    }
  }
}

module.exports = { startViewer, hostAllowed }
