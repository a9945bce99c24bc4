#!/usr/bin/env python3
"""Welcome bot: greets each member who joins a group it is in.

    welcome.py ["Welcome to {group}, {name}!"]
"""
import sys

from parley_bot import Bot

template = sys.argv[1] if len(sys.argv) > 1 else "Welcome to #{group}, {name}! Say hi 👋"
bot = Bot("welcome", events=["member_joined"])


@bot.on_join
def greet(event):
    chat, user = event["chat"], event["user"]
    if chat.get("kind") != "group":
        return
    bot.reply(event, template.format(group=chat.get("handle", ""), name=user["display_name"], handle=user["handle"]))


bot.run()
