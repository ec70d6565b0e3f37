'use strict'
// People see the bots. Stock flying-squid 1.12.0 sends the player list of a new player to the
// *others* only (`_sendPlayerList` writes with `_writeOthers`), so a client that joins later
// never learns Alex's and Steve's names: no tab-list entries, and their entities arrive as
// nameless players. Here the joining client gets every player's `player_info` entry before
// the entities around it are spawned to it.

module.exports.player = function (player, serv) {
  const spawnAround = player.updateAndSpawn
  let listed = false
  player.updateAndSpawn = (...args) => {
    if (!listed) {
      listed = true
      sendListTo(player, serv)
    }
    return spawnAround.apply(player, args)
  }
}

function sendListTo (player, serv) {
  const others = serv.players.filter(p => p !== player && p.username)
  if (others.length === 0) return
  const bitfield = serv.supportFeature('playerInfoActionIsBitfield')
  player._client.write('player_info', bitfield
    ? {
        action: { add_player: true, update_listed: true },
        data: others.map(p => ({
          uuid: p.uuid, player: { name: p.username, properties: p.profileProperties || [] }, listed: true
        }))
      }
    : {
        action: 'add_player',
        data: others.map(p => ({
          uuid: p.uuid, name: p.username, properties: p.profileProperties || [], gamemode: p.gameMode, ping: 0
        }))
      })
}
