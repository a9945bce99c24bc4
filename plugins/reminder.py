#!/usr/bin/env python3
"""Reminder bot.

    !remind 10m stretch     reminds you in this chat in 10 minutes (s, m, h, d)
    !reminders              lists your pending reminders here

Reminders are kept with state_set, so they survive a restart of the bot: one due
while it was down is sent as soon as it is back.
"""
import re
import time

from parley_bot import Bot

bot = Bot("reminder")
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def pending():
    return bot.state_get("reminders", [])


def schedule(reminder):
    bot.later(max(0.0, reminder["due"] - time.time()), fire, reminder["id"])


def fire(reminder_id):
    reminders = pending()
    due = [r for r in reminders if r["id"] == reminder_id]
    if not due:
        return
    reminder = due[0]
    bot.send(str(reminder["chat"]), "⏰ @%s: %s" % (reminder["handle"], reminder["text"]))
    bot.state_set("reminders", [r for r in reminders if r["id"] != reminder_id])


@bot.on_ready
def restore(event):
    for reminder in pending():
        schedule(reminder)


@bot.on_message(r"^!remind\s+(\d+)([smhd])\s+(.+)$")
def remind(event, match):
    seconds = int(match.group(1)) * UNITS[match.group(2)]
    if seconds > 30 * 86400:
        bot.reply(event, "I remember up to 30 days ahead")
        return
    reminders = pending()
    reminder = {
        "id": "%d-%d" % (time.time() * 1000, len(reminders)),
        "chat": event["chat"]["id"],
        "handle": event["message"]["sender"]["handle"],
        "text": match.group(3).strip(),
        "due": time.time() + seconds,
    }
    reminders.append(reminder)
    bot.state_set("reminders", reminders)
    schedule(reminder)
    bot.reply(event, "OK @%s, in %s%s: %s" % (reminder["handle"], match.group(1), match.group(2), reminder["text"]))


@bot.on_message(r"^!remind\b(?!\s+\d+[smhd]\s+\S)")
def usage(event, match):
    bot.reply(event, "usage: !remind 10m stretch (s, m, h or d)")


@bot.on_message(r"^!reminders\s*$")
def listing(event, match):
    mine = [r for r in pending() if r["chat"] == event["chat"]["id"] and r["handle"] == event["message"]["sender"]["handle"]]
    if not mine:
        bot.reply(event, "no reminders pending for you here")
        return
    lines = ["in %dm: %s" % (max(0, (r["due"] - time.time()) // 60), r["text"]) for r in mine]
    bot.reply(event, "\n".join(lines))


bot.run()
