'use strict'
// Small item helpers shared by the server plugins (counts, copies, comparisons, JSON).

function countItems (slots) {
  const counts = {}
  for (const item of slots) if (item) counts[item.name] = (counts[item.name] || 0) + item.count
  return counts
}

function sameItem (a, b) {
  if (!a || !b) return !a && !b
  return a.type === b.type && a.count === b.count
}

function itemJson (item) {
  return item ? { name: item.name, count: item.count } : null
}

module.exports = { countItems, sameItem, itemJson }
