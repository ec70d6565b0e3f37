'use strict'
// A visitor who is not an operator and reaches into the kitchen furnace, for
// test_mc_furnace_guard.py: until its stdin closes it opens the furnace whenever it can and takes
// whatever cooks, burns or waits there (the output, then the input, then the fuel).
//   node furnace_thief.js <port> <version>
// stdout: {"ready":true} after the first try, then at the end
// {"tries":n,"opened":n,"took":{item:n},"messages":[...]} (the chat lines it got).
const path = require('path')
const mineflayer = require(path.join(__dirname, '..', '..', 'minecraft', 'node', 'node_modules', 'mineflayer'))
const [port, version] = [Number(process.argv[2]), process.argv[3] || '1.19.2']
const bot = mineflayer.createBot({ host: '127.0.0.1', port, username: 'Visitor', version, auth: 'offline' })
const messages = []
const took = {}
let tries = 0
let opened = 0
let stopping = false
const pause = (ms) => new Promise(resolve => setTimeout(resolve, ms))
const within = (p, ms) => Promise.race([p.catch((err) => { console.error('thief: ' + err.message); return null }), pause(ms)])
bot.on('messagestr', (m) => messages.push(m))

async function raid () {
  const block = bot.findBlock({ matching: bot.registry.blocksByName.furnace.id, maxDistance: 16 })
  if (!block) return console.error('thief: no furnace seen')
  tries++
  const furnace = await within(bot.openFurnace(block), 2000)
  if (!furnace) return
  opened++
  await pause(200) // the window's items follow its opening
  try {
    for (const [item, take] of [[furnace.outputItem(), () => furnace.takeOutput()], [furnace.inputItem(), () => furnace.takeInput()],
      [furnace.fuelItem(), () => furnace.takeFuel()]]) {
      if (!item) continue
      if (await within(take(), 2000)) took[item.name] = (took[item.name] || 0) + item.count
    }
  } finally {
    furnace.close()
  }
}

bot.once('spawn', async () => {
  await pause(1000)
  await raid()
  process.stdout.write(JSON.stringify({ ready: true }) + '\n')
  while (!stopping) {
    await raid()
    await pause(300)
  }
})

process.stdin.on('data', () => {})
process.stdin.on('end', async () => {
  stopping = true
  await pause(300)
  process.stdout.write(JSON.stringify({ tries, opened, took, messages }) + '\n')
  bot.quit()
  setTimeout(() => process.exit(0), 200)
})
setTimeout(() => process.exit(2), 600000)
