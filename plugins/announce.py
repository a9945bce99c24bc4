#!/usr/bin/env python3
"""Announcement bot: posts a group's notices at set times, kept across restarts.

    !announce daily 09:00 Deploys freeze at noon   the group's admins: every day at 09:00
    !announce weekly mon 09:00 Planning in room 2  ...every Monday at 09:00
    !announcements                                 anyone: what is set here, and when next
    !unannounce N                                  the group's admins: remove the Nth

Times are in $ANNOUNCE_TZ (default UTC).
"""
import os

from parley_bot import Bot, BotError

bot = Bot("announce")
TZ = os.environ.get("ANNOUNCE_TZ", "UTC")
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def here(event):
    """This chat's announcements, soonest first."""
    chat = event["chat"]["id"]
    return [s for s in bot.schedules() if (s.get("data") or {}).get("chat") == chat]


@bot.chat_command("announce", usage="!announce daily|weekly DAY HH:MM TEXT", help="post a notice at a set time", allow="admins")
def announce(event, args):
    words = args.split()
    if len(words) >= 3 and words[0] == "daily":
        days, clock, text = "*", words[1], " ".join(words[2:])
    elif len(words) >= 4 and words[0] == "weekly" and words[1].lower() in DAYS:
        days, clock, text = words[1].lower(), words[2], " ".join(words[3:])
    else:
        bot.reply(event, "usage: !announce daily 09:00 TEXT, or !announce weekly mon 09:00 TEXT")
        return
    hour, _, minute = clock.partition(":")
    if not (hour.isdigit() and minute.isdigit() and int(hour) < 24 and int(minute) < 60):
        bot.reply(event, "%s is not a time like 09:00" % clock)
        return
    chat = event["chat"]["id"]
    name = "a-%d-%d" % (chat, event["message"]["seq"])
    try:
        kept = bot.schedule(name, cron="%d %d * * %s" % (int(minute), int(hour), days), tz=TZ, data={"chat": chat, "text": text})
    except BotError as error:
        bot.reply(event, "I can't keep that one: %s" % error.message)
        return
    bot.reply(event, "OK, next on %s UTC: %s" % (kept["next"][:16].replace("T", " "), text))


@bot.chat_command("announcements", help="what is announced here, and when next")
def listing(event, args):
    lines = ["%d. %s UTC: %s" % (n, s["next"][:16].replace("T", " "), s["data"]["text"]) for n, s in enumerate(here(event), 1)]
    bot.reply(event, "\n".join(lines) or "nothing announced here")


@bot.chat_command("unannounce", usage="!unannounce N", help="remove an announcement", allow="admins")
def unannounce(event, args):
    mine = here(event)
    if not args.isdigit() or not 1 <= int(args) <= len(mine):
        bot.reply(event, "!announcements lists them; !unannounce N removes the Nth")
        return
    bot.unschedule(mine[int(args) - 1]["name"])
    bot.reply(event, "removed: %s" % mine[int(args) - 1]["data"]["text"])


@bot.on_tick()
def post(event):
    data = event.get("data") or {}
    if "chat" in data:
        bot.send(str(data["chat"]), "📣 " + data["text"])


bot.run()
