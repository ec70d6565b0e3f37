'use strict'
// The kitchen built at server start: one furnace, one chest and a crafting table next to the spawn point, a few
// mineable fuel blocks, two mushrooms and four animal pens. Coordinates are x/z offsets; y is the ground level
// found at start. Kept as data so tests and the state dump can name every spot.

const LAYOUT = {
  spawn: { x: 0, z: 0 },
  furnace: { x: -1, z: 3, facing: 'north' },
  chest: { x: 1, z: 3, facing: 'north' },
  craftingTable: { x: 3, z: 3 },
  blocks: [
    { name: 'coal_ore', x: 6, z: -1 },
    { name: 'coal_ore', x: 6, z: 0 },
    { name: 'coal_ore', x: 6, z: 1 },
    { name: 'oak_log', x: -6, z: -1 },
    { name: 'oak_log', x: -6, z: 0 },
    { name: 'oak_log', x: -6, z: 1 },
    { name: 'red_mushroom', x: 3, z: -4 },
    { name: 'brown_mushroom', x: -3, z: -4 }
  ],
  pens: {
    cow: { x: 5, z: 8, count: 2 },
    pig: { x: -5, z: 8, count: 2 },
    sheep: { x: 5, z: -7, count: 2 },
    chicken: { x: -5, z: -7, count: 2 }
  }
}

// The block state id of `name` with the given properties (others at their default), computed
// from the registry's state list: the last property varies fastest; booleans encode true as 0.
function stateIdFor (registry, name, props = {}) {
  const block = registry.blocksByName[name]
  if (!block.states || block.states.length === 0) return block.minStateId
  let base = block.defaultState - block.minStateId
  const defaults = []
  for (let i = block.states.length - 1; i >= 0; i--) {
    const n = block.states[i].num_values
    defaults[i] = base % n
    base = Math.floor(base / n)
  }
  let data = 0
  block.states.forEach((state, i) => {
    let value = defaults[i]
    if (props[state.name] !== undefined) {
      const wanted = props[state.name]
      if (state.type === 'bool') value = wanted ? 0 : 1
      else if (state.type === 'enum') value = state.values.indexOf(String(wanted))
      else value = Number(wanted)
    }
    data = data * state.num_values + value
  })
  return block.minStateId + data
}

module.exports = { LAYOUT, stateIdFor }
