'use strict'
// A mineflayer plugin that lets bots see other players on 1.19.2. minecraft-data decodes that
// version's player_info `action` as a string ('add_player'), while mineflayer 4.x reads any
// non-number action as the 1.19.3+ bit set, so it records no player: bot.players stays empty and
// every named_entity_spawn is dropped (other players become typeless entities at 0, 0, 0). Here
// the string form fills bot.players and bot.uuidToUsername as mineflayer would, before the spawn
// packet that follows, so mineflayer's own handler then creates the player entity normally.

module.exports = function seePlayers (bot) {
  bot._client.on('player_info', (packet) => {
    if (typeof packet.action !== 'string' || !Array.isArray(packet.data)) return
    for (const update of packet.data) {
      if (!update || !update.uuid) continue
      if (packet.action === 'add_player' && update.name && !bot.uuidToUsername[update.uuid]) {
        bot.uuidToUsername[update.uuid] = update.name
        const self = update.name === bot.username
        bot.players[update.name] = { uuid: update.uuid, username: update.name, gamemode: update.gamemode, ping: update.ping, entity: self ? bot.entity : null }
        if (self) bot.player = bot.players[update.name]
      } else if (packet.action === 'remove_player' && bot.uuidToUsername[update.uuid]) {
        delete bot.players[bot.uuidToUsername[update.uuid]]
        delete bot.uuidToUsername[update.uuid]
      }
    }
  })
}
