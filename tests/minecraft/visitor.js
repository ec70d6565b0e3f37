'use strict'
// A person's client for tests/minecraft/test_mc_people.py: joins the kitchen as "Visitor",
// prints one JSON line with the player-list names and player entities it got (raw packets:
// mineflayer 4.25 does not read 1.19.2's player_info itself), and the replies to two commands.
//   node visitor.js <port> <version>
const path = require('path')
const mineflayer = require(path.join(__dirname, '..', '..', 'minecraft', 'node', 'node_modules', 'mineflayer'))
const [port, version] = [Number(process.argv[2]), process.argv[3] || '1.19.2']
const bot = mineflayer.createBot({ host: '127.0.0.1', port, username: 'Visitor', version, auth: 'offline' })
const listed = {}
const spawned = []
const messages = []
bot._client.on('player_info', (p) => { for (const d of p.data) if (d.name || (d.player && d.player.name)) listed[d.uuid] = d.name || d.player.name })
bot._client.on('named_entity_spawn', (p) => spawned.push(p.playerUUID))
bot.on('messagestr', (m) => messages.push(m))
bot.once('spawn', async () => {
  await new Promise(resolve => setTimeout(resolve, 1500))
  bot.chat('/kitchen give Visitor beef 1')
  bot.chat('/kill Alex')
  await new Promise(resolve => setTimeout(resolve, 1500))
  const names = Object.values(listed).sort()
  const entities = spawned.map(uuid => listed[uuid] || null).sort()
  process.stdout.write(JSON.stringify({ names, entities, messages }) + '\n')
  bot.quit()
  setTimeout(() => process.exit(0), 200)
})
setTimeout(() => process.exit(2), 30000)
