'use strict'
// A visitor who is not an operator and tries to ruin the episode, for test_mc_sabotage.py:
// `/effect` on Alex, digging the chest, the crafting table and the furnace, hitting every animal,
// and then, until its stdin closes, emptying the chest whenever something lies in it.
//   node saboteur.js <port> <version>
// stdout: {"ready":true} once the first round is done, then at the end
// {"messages":[...],"took":{item:n}} (the chat lines it got and what it took out of the chest).
const path = require('path')
const mineflayer = require(path.join(__dirname, '..', '..', 'minecraft', 'node', 'node_modules', 'mineflayer'))
const [port, version] = [Number(process.argv[2]), process.argv[3] || '1.19.2']
const bot = mineflayer.createBot({ host: '127.0.0.1', port, username: 'Visitor', version, auth: 'offline' })
const messages = []
const took = {}
let stopping = false
const pause = (ms) => new Promise(resolve => setTimeout(resolve, ms))
const within = (p, ms) => Promise.race([p.catch((err) => { console.error('saboteur: ' + err.message); return null }), pause(ms)])
bot.on('messagestr', (m) => messages.push(m))

function blockNamed (name) {
  return bot.findBlock({ matching: bot.registry.blocksByName[name].id, maxDistance: 16 })
}

async function emptyChest () {
  const block = blockNamed('chest')
  if (!block) return console.error('saboteur: no chest seen')
  const chest = await within(bot.openContainer(block), 3000)
  if (!chest) return console.error('saboteur: the chest did not open')
  await pause(200) // the window's items follow its opening
  try {
    for (const item of chest.containerItems()) {
      await within(chest.withdraw(item.type, null, item.count), 3000)
      took[item.name] = (took[item.name] || 0) + item.count
    }
  } finally {
    chest.close()
  }
}

bot.once('spawn', async () => {
  await pause(1000)
  bot.chat('/effect Alex levitation 30 5')
  for (const name of ['chest', 'crafting_table', 'furnace']) {
    const block = blockNamed(name)
    if (block) await within(bot.dig(block, true), 4000)
    bot.stopDigging()
  }
  for (const e of Object.values(bot.entities)) {
    if (['cow', 'pig', 'sheep', 'chicken'].includes(e.name)) {
      for (let i = 0; i < 3; i++) { bot.attack(e); await pause(100) }
    }
  }
  await pause(500)
  process.stdout.write(JSON.stringify({ ready: true }) + '\n')
  while (!stopping) {
    await emptyChest()
    await pause(300)
  }
})

process.stdin.on('data', () => {})
process.stdin.on('end', async () => {
  stopping = true
  await pause(500)
  process.stdout.write(JSON.stringify({ messages, took }) + '\n')
  bot.quit()
  setTimeout(() => process.exit(0), 200)
})
setTimeout(() => process.exit(2), 600000)
