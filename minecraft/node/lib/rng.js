'use strict'
// A tiny seeded generator (mulberry32). Math.random would make mob respawn spots and loot
// counts differ between runs; episodes must be reproducible from one seed.

function makeRng (seed) {
  let state = (Number(seed) >>> 0) || 1
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    range (lo, hi) { return lo + (hi - lo) * next() },
    int (lo, hi) { return lo + Math.floor((hi - lo + 1) * next()) }
  }
}

module.exports = { makeRng }
