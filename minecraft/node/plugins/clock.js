'use strict'
// The kitchen clock. Everything that changes the kitchen over time (furnaces cooking, animals
// and blocks coming back, the pen keeper) runs on kitchen ticks, never on wall-clock timers.
//
// Two modes, chosen at start (`--clock`) or by `kitchen clock <mode>`:
//   lockstep  the clock stands still until `kitchen advance <n>` runs n ticks at once, so a
//             dispatcher step is a fixed number of ticks however long the model thinks and
//             however slow the machine is (the same seed and commands give the same episode);
//   realtime  one kitchen tick per server tick (20 per second), for people playing along.
// Timers fire in (tick, order of scheduling), so a run of ticks is deterministic.

const MODES = new Set(['lockstep', 'realtime'])
const MS_PER_TICK = 50

module.exports.server = function (serv) {
  const kitchen = serv.kitchen
  const clock = { mode: MODES.has(kitchen.config.clock) ? kitchen.config.clock : 'lockstep', ticks: 0 }
  const handlers = []
  let timers = []
  let serial = 0
  let running = false
  kitchen.clock = clock

  kitchen.onTick = (fn) => handlers.push(fn)
  kitchen.msToTicks = (ms) => Math.max(1, Math.round(Number(ms) / MS_PER_TICK))
  kitchen.afterTicks = (ticks, fn) => {
    const timer = { at: clock.ticks + Math.max(1, Math.round(ticks)), seq: serial++, fn }
    timers.push(timer)
    return timer
  }
  kitchen.cancelTimer = (timer) => { timers = timers.filter(t => t !== timer) }

  async function tickOnce () {
    clock.ticks++
    for (const fn of handlers) await fn(clock.ticks)
    const due = timers.filter(t => t.at <= clock.ticks).sort((a, b) => a.at - b.at || a.seq - b.seq)
    if (due.length === 0) return
    timers = timers.filter(t => t.at > clock.ticks)
    for (const t of due) await t.fn()
  }

  // Run `n` ticks now (lockstep); one call at a time, so ticks never interleave.
  let chain = Promise.resolve()
  kitchen.advance = (n) => {
    const run = async () => {
      running = true
      try {
        for (let i = 0; i < n; i++) await tickOnce()
      } finally {
        running = false
      }
      return { ticks: clock.ticks, advanced: n }
    }
    const result = chain.then(run, run)
    chain = result.catch(() => null)
    return result
  }

  kitchen.setClock = (mode) => {
    if (!MODES.has(mode)) throw new Error(`no clock mode ${mode} (lockstep or realtime)`)
    clock.mode = mode
    kitchen.config.clock = mode
    return { ...clock }
  }

  serv.on('tick', () => {
    if (clock.mode !== 'realtime' || running || !kitchen.ready) return
    running = true
    tickOnce().catch(err => serv.err('kitchen tick: ' + err.message)).finally(() => { running = false })
  })

  // The world's age in the time updates, as vanilla sends it (stock flying-squid sends 0): a client
  // that scores by the server's own clock (a session on a server of someone else's) reads it.
  serv.once('asap', () => {
    serv.setTime = (time) => {
      serv.time = time
      serv._writeAll('update_time', { age: [0, serv.tickCount >>> 0], time: [0, serv.time] })
    }
  })

  kitchen.resetHooks.unshift(() => {
    timers = []
    clock.ticks = 0
  })
  kitchen.stateParts.push(() => ({ clock: { ...clock } }))
}
