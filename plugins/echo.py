#!/usr/bin/env python3
"""Echo bot: repeats every message it sees, prefixed with "echo: "."""
from parley_bot import Bot

bot = Bot("echo")


@bot.on_message()
def echo(event, match):
    bot.reply(event, "echo: " + event["message"]["text"])


bot.run()
