'use strict'
// Facts shared by the server plugins and the bridge. The Python side passes the Minecraft
// version explicitly to both processes; DEFAULT_VERSION is only the fallback for manual runs.

const DEFAULT_VERSION = '1.19.2'

// Vanilla cook time of one item, in ticks. Fuel burn times below are vanilla values and get
// scaled by cookTicks / VANILLA_COOK_TICKS so a fuel always smelts the same number of items.
const VANILLA_COOK_TICKS = 200

const SMELTING = {
  beef: 'cooked_beef',
  porkchop: 'cooked_porkchop',
  chicken: 'cooked_chicken',
  mutton: 'cooked_mutton'
}

const FUEL_TICKS = {
  coal: 1600,
  charcoal: 1600,
  coal_block: 16000,
  oak_log: 300,
  birch_log: 300,
  spruce_log: 300,
  oak_planks: 300,
  birch_planks: 300,
  spruce_planks: 300,
  stick: 100
}

// Crafting-table recipes of the kitchen (vanilla 1.19.2 shapeless equivalents): ingredients
// taken from the crafter's inventory -> count made. Stock flying-squid has no crafting windows, so
// the kitchen plugin crafts on request (`/kitchen craft <item>` by a player at the table).
const CRAFTING = {
  oak_planks: { needs: { oak_log: 1 }, makes: 4 },
  bowl: { needs: { oak_planks: 3 }, makes: 4 },
  mushroom_stew: { needs: { bowl: 1, red_mushroom: 1, brown_mushroom: 1 }, makes: 1 }
}

// Vanilla max health of the kitchen animals.
const MOB_HEALTH = { cow: 10, pig: 10, sheep: 8, chicken: 4 }

// Damage per hit by held item; everything else hits for 1 (a fist).
const WEAPON_DAMAGE = {
  wooden_sword: 4,
  stone_sword: 5,
  iron_sword: 6,
  diamond_sword: 7,
  netherite_sword: 8,
  iron_axe: 9,
  stone_axe: 9,
  wooden_axe: 7
}

// Tools every player receives on joining, so mining and killing take about a second.
const KIT = ['iron_sword', 'iron_pickaxe', 'iron_axe']

module.exports = {
  DEFAULT_VERSION,
  VANILLA_COOK_TICKS,
  SMELTING,
  FUEL_TICKS,
  CRAFTING,
  MOB_HEALTH,
  WEAPON_DAMAGE,
  KIT
}
