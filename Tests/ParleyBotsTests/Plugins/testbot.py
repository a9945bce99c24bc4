#!/usr/bin/env python3
"""A plugin for the host's tests: testbot.py MODE RECORD [ARG].

Every line the host writes is appended to RECORD (one JSON object per line).
Modes: record, spam N, junk, crash, sleeper, forker, counter, commands, nohello,
answer people|bots (answers every message it hears in its chat, naming the chat;
"bots" also asks for plugins' and bots' messages; tells @alice when the loop guard
trips), answer-slash people|bots (the same, answering with a `/send #group …` line), slow (answers each message after a pause, without naming the chat),
conversation (answers a mention as a reply with a wave, and an edit with a reply that
names the edited message).
"""
import json
import os
import subprocess
import sys
import time

mode, record = sys.argv[1], sys.argv[2]
argument = sys.argv[3] if len(sys.argv) > 3 else None


def out(obj):
    sys.stdout.write((obj if isinstance(obj, str) else json.dumps(obj)) + "\n")
    sys.stdout.flush()


def keep(line):
    with open(record, "a") as f:
        f.write(line.rstrip("\n") + "\n")


if mode == "crash":
    out({"type": "hello", "name": "crash"})
    time.sleep(0.2)
    print("boom from pid %d" % os.getpid(), file=sys.stderr, flush=True)
    sys.exit(3)

if mode == "sleeper":
    out({"type": "hello", "name": "sleeper"})
    time.sleep(100000)

if mode == "forker":
    child = subprocess.Popen(["sleep", "100000"])
    keep(json.dumps({"child": child.pid, "pid": os.getpid()}))

if mode == "commands":
    out({"type": "hello", "commands": [{"name": "shout", "usage": "/shout TEXT", "help": "shout in the current chat"}]})
elif mode in ("answer", "answer-slash"):
    out({"type": "hello", "name": mode, "events": ["message"], "bot_messages": argument == "bots"})
elif mode == "conversation":
    out({"type": "hello", "name": mode, "events": ["message", "message_edited", "message_deleted", "reaction_changed"]})
elif mode != "nohello":
    out({"type": "hello", "name": mode, "events": ["message", "member_joined", "member_left"]})

spammed = False
for line in sys.stdin:
    keep(line)
    event = json.loads(line)
    kind = event.get("type")
    if mode == "junk" and kind == "ready":
        out("this is not an action")
        out({"type": "launch_rockets"})
        out({"type": "send", "ref": 7})
    if kind == "ready" and mode == "commands":
        # After its hello: whoever waits for this line knows the commands are declared.
        out({"type": "send", "to": "@alice", "text": "shouter is ready"})
    if kind == "command" and mode == "commands":
        out({"type": "send", "to": str(event["chat"]["id"]), "text": event["arguments"].upper() + "!"})
    if kind == "error" and event.get("code") == "bot_loop" and mode in ("answer", "answer-slash"):
        out({"type": "send", "to": "@alice", "text": "tripped " + os.environ.get("PARLEY_BOT_NAME", "?")})
    if mode == "conversation" and kind == "ready":
        for ref, bad in enumerate([
            {"type": "reply", "text": "x", "reply_to": -1},
            {"type": "reply", "text": "x", "reply_to": "first"},
            {"type": "send", "to": "#g", "text": "x", "reply_to": True},
            {"type": "react"},
            {"type": "react", "emoji": "👍", "seq": 1.5},
            {"type": "unreact", "emoji": "👍", "chat": "room"},
        ], start=1):
            out(dict(bad, ref=ref))
    if mode == "conversation" and kind == "message_edited":
        edited = event["message"]
        out({"type": "send", "to": event["chat"]["id"], "text": "saw the edit", "reply_to": edited["seq"]})
    if kind != "message":
        continue
    text = event["message"]["text"]
    chat = event["chat"]["id"]
    if mode in ("record", "nohello"):
        out({"type": "reply", "text": "seen: " + text})
    elif mode == "answer":
        name = os.environ.get("PARLEY_BOT_NAME", "?")
        out({"type": "reply", "chat": chat, "text": "pong from %s: %s" % (name, text)})
    elif mode == "answer-slash":
        name = os.environ.get("PARLEY_BOT_NAME", "?")
        out("/send #%s pong from %s: %s" % (event["chat"]["handle"], name, text))
    elif mode == "conversation" and event.get("mentioned_me"):
        out({"type": "reply", "text": "you called?", "reply_to": True})
        out({"type": "react", "emoji": "👋"})
    elif mode == "slow":
        time.sleep(0.3)
        out({"type": "reply", "text": "seen: " + text})
    elif mode == "spam" and not spammed:
        spammed = True
        for i in range(int(argument)):
            out({"type": "send", "to": str(chat), "text": "spam %d" % i, "ref": i})
    elif mode == "counter":
        out({"type": "state_get", "key": "count", "ref": "get"})
        answer = json.loads(sys.stdin.readline())
        keep(json.dumps(answer))
        count = (answer.get("value") or 0) + 1
        out({"type": "state_set", "key": "count", "value": count})
        out({"type": "reply", "text": "count %d" % count})
