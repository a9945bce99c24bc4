#!/usr/bin/env python3
"""Reminder bot.

    !remind 10m stretch     reminds you in this chat in 10 minutes (s, m, h, d)
    !reminders              lists your pending reminders here
    !forget N               cancels the Nth of them

Each reminder is a schedule kept by the host: it survives a restart of the bot, and
one due while the bot was down is sent as soon as it is back (once).
"""
from parley_bot import Bot, BotError

bot = Bot("reminder")
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def mine(event):
    """This sender's reminders in this chat, soonest first."""
    chat, handle = event["chat"]["id"], event["message"]["sender"]["handle"]
    return [s for s in bot.schedules() if (s.get("data") or {}).get("chat") == chat and s["data"].get("handle") == handle]


@bot.on_message(r"^!remind\s+(\d{1,6})([smhd])\s+(.+)$")
def remind(event, match):
    seconds = int(match.group(1)) * UNITS[match.group(2)]
    if seconds > 30 * 86400:
        bot.reply(event, "I remember up to 30 days ahead")
        return
    handle = event["message"]["sender"]["handle"]
    data = {"chat": event["chat"]["id"], "handle": handle, "text": match.group(3).strip()}
    name = "r-%d-%s" % (event["message"]["id"], handle)
    try:
        bot.schedule(name, after=seconds, data=data)
    except BotError as error:
        bot.reply(event, "I can't keep that one: %s" % error.message)
        return
    bot.reply(event, "OK @%s, in %s%s: %s" % (handle, match.group(1), match.group(2), data["text"]))


@bot.on_tick()
def fire(event):
    data = event.get("data") or {}
    if "chat" in data:
        late = " (late: I was away)" if event.get("late") else ""
        bot.send(str(data["chat"]), "⏰ @%s: %s%s" % (data["handle"], data["text"], late))


@bot.on_message(r"^!remind\b(?!\s+\d+[smhd]\s+\S)")
def usage(event, match):
    bot.reply(event, "usage: !remind 10m stretch (s, m, h or d)")


@bot.on_message(r"^!reminders\s*$")
def listing(event, match):
    pending = mine(event)
    if not pending:
        bot.reply(event, "no reminders pending for you here")
        return
    lines = ["%d. %s (%s UTC)" % (n, s["data"]["text"], s["next"][:16].replace("T", " ")) for n, s in enumerate(pending, 1)]
    bot.reply(event, "\n".join(lines))


@bot.on_message(r"^!forget\s+(\d{1,3})\s*$")
def forget(event, match):
    pending = mine(event)
    index = int(match.group(1)) - 1
    if not 0 <= index < len(pending):
        bot.reply(event, "you have %d reminder%s here (!reminders)" % (len(pending), "" if len(pending) == 1 else "s"))
        return
    bot.unschedule(pending[index]["name"])
    bot.reply(event, "forgotten: %s" % pending[index]["data"]["text"])


bot.run()
