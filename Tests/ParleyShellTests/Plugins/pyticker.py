#!/usr/bin/env python3
"""A plugin for the schedule tests: the Python helper's decorators, on the controlled clock."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "plugins"))
from parley_bot import Bot  # noqa: E402

bot = Bot("pyticker")


@bot.every(6 * 3600, name="often")
def often(event):
    bot.send("#room", "often late=%s" % event["late"])


@bot.cron("0 9 * * sat,sun", tz="America/New_York", name="weekend")
def weekend(event):
    bot.send("#room", "weekend due %s" % event["due"])


@bot.chat_command("when", help="the next times", allow=["admins", "@bob"])
def when(event, args):
    bot.reply(event, " ".join("%s=%s" % (s["name"], s["next"]) for s in bot.schedules()))


bot.run()
