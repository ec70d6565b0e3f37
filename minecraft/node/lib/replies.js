'use strict'
// Replies of our kitchen plugin (`mindagent {json}` system lines) as the bots receive them. The
// text is read from the message's JSON, not from mineflayer's string form, which prismarine-chat
// cuts at 4096 characters (a kitchen state with a visitor and a few incidents is longer).

const { waitFor } = require('./task')

const MARKER = 'mindagent {'

function fullText (str, position, msg) {
  const text = msg && msg.json && typeof msg.json.text === 'string' ? msg.json.text : str
  return typeof text === 'string' ? text : ''
}

// Wait for the reply of kind `kind` (and accepted by `match`, given the parsed reply); resolves
// with the parsed reply object.
async function waitForReply (bot, kind, { timeoutMs, task = null, what = `the ${kind} reply`, match = () => true }) {
  const parse = (args) => {
    const text = fullText(...args)
    if (!text.startsWith(MARKER) || !text.includes(`"kind":"${kind}"`)) return null
    try { return JSON.parse(text.slice('mindagent '.length)) } catch (err) { return null }
  }
  const args = await waitFor(bot, 'messagestr', {
    filter: (...a) => { const r = parse(a); return r !== null && r.kind === kind && match(r) },
    timeoutMs,
    task,
    what
  })
  return parse(args)
}

module.exports = { waitForReply, fullText }
