'use strict'
// Cancellation and waiting for the bridge. Every action runs inside a Task: it is aborted by
// its per-request timeout, by a newer action for the same bot, or by the bot dying or leaving;
// aborting runs the registered cleanups (stop pathfinding, stop digging, close the window).
// Every wait is for a world event with a timeout, never a bare sleep-and-hope.

class ActionError extends Error {
  constructor (code, message) {
    super(message)
    this.code = code
  }
}

class Task {
  constructor (label) {
    this.label = label
    this.aborted = false
    this.reason = null
    this.cleanups = []
    this.aborters = []
  }

  abort (code, message) {
    if (this.aborted) return
    this.aborted = true
    this.reason = new ActionError(code, message || `${this.label} ${code}`)
    for (const fn of this.cleanups.splice(0)) {
      try { fn() } catch (err) { console.error('cleanup failed: ' + err.message) }
    }
    for (const reject of this.aborters.splice(0)) reject(this.reason)
  }

  onAbort (fn) {
    this.cleanups.push(fn)
    return () => { this.cleanups = this.cleanups.filter(f => f !== fn) }
  }

  check () {
    if (this.aborted) throw this.reason
  }

  // Resolve with `promise`, or reject as soon as the task is aborted.
  race (promise) {
    this.check()
    return new Promise((resolve, reject) => {
      this.aborters.push(reject)
      promise.then(resolve, reject).finally(() => { this.aborters = this.aborters.filter(r => r !== reject) })
    })
  }
}

// Wait until `emitter` emits `event` with arguments accepted by `filter`.
function waitFor (emitter, event, { filter = () => true, timeoutMs = 5000, task = null, code = 'timeout', what = event } = {}) {
  let listener = null
  let timer = null
  const promise = new Promise((resolve, reject) => {
    listener = (...args) => {
      let ok = false
      try { ok = filter(...args) } catch (err) { ok = false }
      if (ok) resolve(args)
    }
    emitter.on(event, listener)
    timer = setTimeout(() => reject(new ActionError(code, `no ${what} within ${timeoutMs} ms`)), timeoutMs)
  })
  const cleanup = () => { clearTimeout(timer); emitter.removeListener(event, listener) }
  const waited = promise.finally(cleanup)
  return task ? task.race(waited).finally(cleanup) : waited
}

function withTimeout (promise, ms, code, message) {
  let timer = null
  const limit = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new ActionError(code, message)), ms)
  })
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer))
}

const sleep = (ms, task = null) => {
  const p = new Promise(resolve => setTimeout(resolve, ms))
  return task ? task.race(p) : p
}

module.exports = { ActionError, Task, waitFor, withTimeout, sleep }
