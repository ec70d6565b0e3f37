'use strict'
// Real chest and furnace windows. Stock flying-squid sends an empty chest window without the
// player's slots and applies every click to the player inventory, so mineflayer's
// openContainer/deposit/openFurnace cannot work. Here each container has one server-side store;
// a player who opens it gets a prismarine-windows Window (container slots + 36 player slots);
// clicks are replayed on that Window with `acceptClick`, written back to the store and to the
// player inventory, and only the slots where the client guessed wrong are resent.

const { sameItem, itemJson, countItems } = require('../lib/items')

const KINDS = {
  chest: { type: 'minecraft:generic_9x3', size: 27, title: 'Chest' },
  furnace: { type: 'minecraft:furnace', size: 3, title: 'Furnace' }
}
const PLAYER_SLOTS = 36 // player inventory slots 9..44 follow the container slots

module.exports.server = function (serv) {
  const kitchen = serv.kitchen
  const stores = new Map()
  kitchen.containers = stores
  let Item = null
  let windows = null

  const copy = (item, slot) => {
    if (!item) return null
    const c = new Item(item.type, item.count, item.metadata, item.nbt)
    c.slot = slot
    return c
  }
  const quiet = (player, fn) => {
    player.kitchenQuiet = (player.kitchenQuiet || 0) + 1
    try { fn() } finally { player.kitchenQuiet-- }
  }

  kitchen.copyItem = (item, slot) => copy(item, slot)

  kitchen.getContainer = (pos, kind) => {
    const key = `${pos.x},${pos.y},${pos.z}`
    if (!stores.has(key)) {
      stores.set(key, {
        kind, pos: pos.clone(), slots: new Array(KINDS[kind].size).fill(null), viewers: new Set(), burn: 0, burnTotal: 0, cook: 0
      })
    }
    return stores.get(key)
  }

  function sendSlot (player, view, slot) {
    const win = view ? view.win : player.inventory
    player._client.write('set_slot', {
      windowId: view ? view.id : 0,
      stateId: view ? ++view.stateId : 0,
      slot,
      item: Item.toNotch(win.slots[slot])
    })
  }
  kitchen.sendSlot = sendSlot

  // Push container slots that changed outside a viewer's own click (another player, the furnace).
  kitchen.syncViewers = (store, slots, except = null) => {
    for (const player of store.viewers) {
      const view = player.kitchenView
      if (player === except || !view || view.store !== store) continue
      for (const s of slots) {
        view.win.slots[s] = copy(store.slots[s], s)
        sendSlot(player, view, s)
      }
    }
  }

  function refresh (view, player) {
    for (let i = 0; i < view.size; i++) view.win.slots[i] = copy(view.store.slots[i], i)
    for (let j = 0; j < PLAYER_SLOTS; j++) view.win.slots[view.size + j] = copy(player.inventory.slots[9 + j], view.size + j)
  }

  function writeBack (view, player) {
    const changed = []
    for (let i = 0; i < view.size; i++) {
      if (!sameItem(view.store.slots[i], view.win.slots[i])) {
        view.store.slots[i] = copy(view.win.slots[i], i)
        changed.push(i)
      }
    }
    quiet(player, () => {
      for (let j = 0; j < PLAYER_SLOTS; j++) {
        const mine = view.win.slots[view.size + j]
        if (!sameItem(player.inventory.slots[9 + j], mine)) player.inventory.updateSlot(9 + j, copy(mine, 9 + j))
      }
    })
    return changed
  }

  function openView (player, pos, kind) {
    kitchen.closeView(player)
    const spec = KINDS[kind]
    const store = kitchen.getContainer(pos, kind)
    player.kitchenWindowId = ((player.kitchenWindowId || 0) % 100) + 1
    const view = { id: player.kitchenWindowId, win: windows.createWindow(player.kitchenWindowId, spec.type, spec.title), store, size: spec.size, stateId: 1 }
    player.kitchenView = view
    store.viewers.add(player)
    refresh(view, player)
    player._client.write('open_window', {
      windowId: view.id,
      inventoryType: windows.windows[spec.type].type,
      windowTitle: serv._createChatComponent({ text: spec.title }).toNetworkFormat()
    })
    player._client.write('window_items', {
      windowId: view.id, stateId: view.stateId, items: view.win.slots.map(it => Item.toNotch(it)), carriedItem: Item.toNotch(null)
    })
    kitchen.emit('viewOpened', player, view)
  }

  kitchen.closeView = (player) => {
    const view = player.kitchenView
    if (!view) return
    player.kitchenView = null
    view.store.viewers.delete(player)
    const cursor = view.win.selectedItem
    if (cursor) {
      const slot = player.inventory.firstEmptySlotRange(9, 45)
      if (slot !== null) player.inventory.updateSlot(slot, copy(cursor, slot))
    }
  }

  // The chest ledger: what each player put into and took out of the chest, from their own clicks
  // (deliveries are counted from these events, so a dish taken out again by someone else still
  // counts for the bot that delivered it). A non-operator's change to any kitchen container is
  // also an incident, so the recording says who emptied what.
  const ledger = new Map()
  kitchen.ledger = ledger
  function account (player, store, had) {
    const now = countItems(store.slots)
    const names = [...new Set([...Object.keys(had), ...Object.keys(now)])].sort()
    for (const name of names) {
      const delta = (now[name] || 0) - (had[name] || 0)
      if (delta === 0) continue
      if (store.kind === 'chest') {
        if (!ledger.has(player.username)) ledger.set(player.username, { put: {}, took: {} })
        const side = ledger.get(player.username)[delta > 0 ? 'put' : 'took']
        side[name] = (side[name] || 0) + Math.abs(delta)
      }
      if (!kitchen.isCrew || !kitchen.isCrew(player)) {
        const what = delta > 0 ? `put ${delta} ${name} into the ${store.kind}` : `took ${-delta} ${name} from the ${store.kind}`
        if (kitchen.incident) kitchen.incident(player, what, 'recorded', store.kind !== 'chest')
      }
    }
  }

  kitchen.handleClick = (player, click) => {
    const inInventory = click.windowId === 0
    const view = inInventory ? null : player.kitchenView
    if (!inInventory && (!view || view.id !== click.windowId)) return
    const win = inInventory ? player.inventory : view.win
    if (view) refresh(view, player)
    const before = win.slots.map(it => it && { type: it.type, count: it.count })
    click.item = click.slot >= 0 && click.slot < win.slots.length ? win.slots[click.slot] : null
    let failed = false
    quiet(player, () => {
      try { win.acceptClick(click, player.gameMode) } catch (err) { failed = true }
    })
    if (view) {
      const had = countItems(view.store.slots)
      const changed = writeBack(view, player)
      if (changed.length) {
        kitchen.syncViewers(view.store, changed, player)
        account(player, view.store, had)
        kitchen.emit('containerChanged', view.store)
      }
    }
    const claimed = new Map((click.changedSlots || []).map(s => [s.location, Item.fromNotch(s.item)]))
    for (let s = 0; s < win.slots.length; s++) {
      const moved = !sameItem(before[s], win.slots[s])
      if (!failed && !moved && !claimed.has(s)) continue
      const expected = claimed.has(s) ? claimed.get(s) : before[s]
      if (failed || !sameItem(expected, win.slots[s])) sendSlot(player, view, s)
    }
    if (failed || !sameItem(Item.fromNotch(click.cursorItem), win.selectedItem)) {
      player._client.write('set_slot', { windowId: -1, stateId: 0, slot: -1, item: Item.toNotch(win.selectedItem) })
    }
  }

  serv.once('asap', () => {
    Item = require('prismarine-item')(serv.registry)
    windows = require('prismarine-windows')(serv.registry)
    const original = serv.interactWithBlock
    serv.interactWithBlock = async (data) => {
      if (KINDS[data.block.name] && !data.player.crouching) {
        openView(data.player, data.block.position, data.block.name)
        return true
      }
      return original(data)
    }
  })

  kitchen.once('built', () => {
    const { furnace, chest } = kitchen.layout
    kitchen.getContainer(kitchen.at(furnace.x, furnace.z), 'furnace')
    kitchen.getContainer(kitchen.at(chest.x, chest.z), 'chest')
  })

  kitchen.resetHooks.push(() => {
    ledger.clear()
    for (const store of stores.values()) {
      store.slots.fill(null)
      store.burn = store.burnTotal = store.cook = 0
      kitchen.syncViewers(store, store.slots.map((_, i) => i))
    }
  })

  kitchen.stateParts.push(() => {
    const furnaces = []
    const chests = []
    const sorted = [...stores.values()].sort((a, b) => a.pos.x - b.pos.x || a.pos.y - b.pos.y || a.pos.z - b.pos.z)
    for (const s of sorted) {
      const pos = [s.pos.x, s.pos.y, s.pos.z]
      if (s.kind === 'furnace') {
        furnaces.push({
          pos,
          input: itemJson(s.slots[0]),
          fuel: itemJson(s.slots[1]),
          output: itemJson(s.slots[2]),
          burn_ticks_left: s.burn,
          burn_ticks_total: s.burnTotal,
          cook_progress: s.cook,
          cook_total: kitchen.config.cookTicks
        })
      } else {
        chests.push({ pos, items: countItems(s.slots) })
      }
    }
    const chestLedger = {}
    for (const name of [...ledger.keys()].sort()) chestLedger[name] = ledger.get(name)
    return { furnaces, chests, chest_ledger: chestLedger }
  })
}

module.exports.player = function (player, serv) {
  const kitchen = serv.kitchen
  player.once('asap', () => {
    // Replace the stock click handler (it applies every click to the player inventory).
    player._client.removeAllListeners('window_click')
    player._client.on('window_click', (click) => {
      try {
        kitchen.handleClick(player, click)
      } catch (err) {
        serv.err('window_click: ' + err.stack)
      }
    })
    // Echo inventory changes only when they did not come from the client's own click.
    const stock = player.inventory.listeners('updateSlot')
    player.inventory.removeAllListeners('updateSlot')
    player.inventory.on('updateSlot', (slot, oldItem, newItem) => {
      if (player.kitchenQuiet) return
      stock.forEach(fn => fn(slot, oldItem, newItem))
      const view = player.kitchenView
      if (view && slot >= 9 && slot < 45) {
        const s = view.size + slot - 9
        view.win.slots[s] = kitchen.copyItem(newItem, s)
        kitchen.sendSlot(player, view, s)
      }
    })
    player._client.on('close_window', () => kitchen.closeView(player))
  })
  player.once('disconnected', () => kitchen.closeView(player))
}
