'use strict'
// The embedded Minecraft server: stock flying-squid plus the kitchen plugins, on loopback,
// offline mode, an in-memory superflat world, survival. stdout carries only machine lines
// ("mindagent {json}"), first {"kind":"listening","port":N} once the kitchen is built; the
// server's own log goes to stderr. stdin is flying-squid's console, where the `kitchen`
// admin command (state | reset [seed] | spawn <mob> | give | config | advance <n> | clock <mode>)
// is available. The process exits when stdin closes, so it never outlives the Python process
// that started it. The admin token (players who present it become operators) comes from the
// environment variable MINDAGENT_ADMIN_TOKEN, so it never shows in a process list.
//
//   node server.js --port 0 --host 127.0.0.1 --version 1.19.2 --cook-ticks 40 --seed 0 --clock lockstep [--guard off]

const path = require('path')
const { DEFAULT_VERSION } = require('./lib/constants')

// flying-squid logs through console.log; keep stdout for our JSON lines.
console.log = console.error
console.info = console.error

function parseArgs (argv) {
  const out = {}
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z-]+)$/.exec(argv[i])
    if (m) out[m[1]] = argv[++i]
  }
  return out
}

function main () {
  const args = parseArgs(process.argv.slice(2))
  const version = args.version || DEFAULT_VERSION
  const plugin = (name) => path.join(__dirname, 'plugins', name)
  const mcServer = require('flying-squid')
  const serv = mcServer.createMCServer({
    motd: 'MindAgent kitchen',
    port: Number(args.port ?? 0),
    host: args.host || '127.0.0.1',
    'max-players': 16,
    'online-mode': false,
    logging: false,
    gameMode: 0,
    difficulty: 0,
    worldFolder: undefined,
    generation: { name: 'superflat', options: { worldHeight: 80 } },
    kickTimeout: 30000,
    // Order matters: kitchen.js creates serv.kitchen, the others hang off it.
    plugins: {
      [plugin('kitchen.js')]: {},
      [plugin('clock.js')]: {},
      [plugin('guard.js')]: {},
      [plugin('containers.js')]: {},
      [plugin('furnace.js')]: {},
      [plugin('mobs.js')]: {},
      [plugin('block_respawn.js')]: {},
      [plugin('players.js')]: {},
      [plugin('construction.js')]: {},
      [plugin('escape.js')]: {},
      [plugin('farm.js')]: {}
    },
    modpe: false,
    'view-distance': 4,
    'player-list-text': { header: { text: 'MindAgent' }, footer: { text: 'kitchen' } },
    'everybody-op': false,
    'max-entities': 200,
    version,
    kitchen: {
      seed: Number(args.seed ?? 0),
      cookTicks: Number(args['cook-ticks'] ?? 200),
      mobRespawnMs: Number(args['mob-respawn-ms'] ?? 3000),
      blockRespawnMs: Number(args['block-respawn-ms'] ?? 5000),
      clock: args.clock || 'lockstep',
      guard: args.guard !== 'off',
      adminToken: process.env.MINDAGENT_ADMIN_TOKEN || null
    }
  })

  let port = null
  const announce = () => {
    if (port === null || !serv.kitchen.ready) return
    process.stdout.write('mindagent ' + JSON.stringify({ kind: 'listening', port, version }) + '\n')
  }
  serv.on('listening', (p) => { port = p; announce() })
  serv.kitchen.once('built', announce)
  serv.on('error', (err) => console.error('server error: ' + (err && err.stack)))

  const stop = async () => {
    try { await serv.destroy() } catch (err) { /* already closing */ }
    process.exit(0)
  }
  process.stdin.on('end', stop)
  process.stdin.on('close', stop)
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}

main()
