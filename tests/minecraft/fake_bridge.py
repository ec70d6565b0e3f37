"""A fake of ``node bridge.js`` written in Python, so transport tests need no Node.

It speaks the same JSON-lines protocol on stdio and has a few ops that misbehave on purpose:
``echo`` answers with its args, ``slow`` never answers, ``die`` exits mid-request, ``garbage``
prints a non-JSON line and then answers, ``bad_reply`` answers with a malformed reply,
``fail`` answers ok:false, ``event`` emits an event then answers.
"""

import json
import sys


def write(obj: object) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main() -> None:
    write({"event": "ready", "version": "1.19.2"})
    for line in sys.stdin:
        req = json.loads(line)
        rid, op, args = req["id"], req["op"], req.get("args", {})
        if op == "echo":
            write({"id": rid, "ok": True, "result": args})
        elif op == "slow":
            continue
        elif op == "die":
            sys.exit(3)
        elif op == "garbage":
            sys.stdout.write("this is not json\n")
            write([1, 2, 3])
            write({"event": "no-such-event"})
            write({"id": rid, "ok": True, "result": "after garbage"})
        elif op == "bad_reply":
            write({"id": rid, "ok": "maybe", "result": None})
        elif op == "fail":
            write({"id": rid, "ok": False, "code": "not_found", "error": "found no cow nearby"})
        elif op == "event":
            write({"event": "chat", "from": "Chef", "message": "cook beef"})
            write({"id": rid, "ok": True, "result": None})


if __name__ == "__main__":
    main()
