'use strict'
// A round trip to the server, so a bot's copy of the world has caught up with it. The server
// answers `/kitchen sync <n>` only after it wrote every packet it had written to this bot before
// (one TCP stream, in order), so once the reply is here, so is every drop, respawned animal or
// inventory slot the server sent earlier: waiting on this instead of on wall time keeps a step's
// outcome the same however slowly the server runs (a paused `server.js` in the lockstep test).
//
// A server without our kitchen plugin never answers: the first attempt gives up after
// PROBE_MS and the bot does not ask again (such servers run in real time anyway).

const { waitForReply } = require('./replies')

const PROBE_MS = 2000
const SYNC_MS = 15000
let serial = 0

async function sync (bot, task = null) {
  if (bot.kitchenSync === false) return false
  const n = ++serial
  const reply = waitForReply(bot, 'sync', {
    match: (r) => r.result?.n === n,
    timeoutMs: bot.kitchenSync === true ? SYNC_MS : PROBE_MS,
    task,
    what: 'the server\'s sync reply'
  })
  bot.chat(`/kitchen sync ${n}`)
  try {
    await reply
    bot.kitchenSync = true
    return true
  } catch (err) {
    if (task) task.check()
    if (bot.kitchenSync !== true) bot.kitchenSync = false
    return false
  }
}

module.exports = { sync }
