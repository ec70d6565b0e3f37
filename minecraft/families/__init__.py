"""VillagerBench's task families in the Minecraft domain (construction first).

Each family is pure rules here (data model, generator, metrics, a world model that checks
commands before any bot moves) plus, separately, what plays it on a live server. Importing this
package starts no server and opens no file.
"""
