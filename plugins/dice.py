#!/usr/bin/env python3
"""Dice and poll bot.

    !roll 2d6              rolls two six-sided dice (NdM, up to 100d1000; d20 is 1d20)
    !poll "Lunch?" pizza sushi   opens a poll in this chat (replaces the open one)
    !vote 2                votes for the second option (one vote per person, changeable)
    !results               shows the open poll's count
    !close                 closes the poll and shows the result

Polls are kept with state_set, so a restarted bot still knows them.
"""
import random
import re
import shlex

from parley_bot import Bot

bot = Bot("dice")


@bot.on_message(r"^!roll\s+(\d*)d(\d+)\s*$")
def roll(event, match):
    count = int(match.group(1) or 1)
    sides = int(match.group(2))
    if not (1 <= count <= 100 and 2 <= sides <= 1000):
        bot.reply(event, "I roll 1-100 dice of 2-1000 sides, like !roll 2d6")
        return
    rolls = [random.randint(1, sides) for _ in range(count)]
    who = event["message"]["sender"]["handle"]
    detail = " + ".join(map(str, rolls)) + " = " if count > 1 else ""
    bot.reply(event, "@%s rolled %dd%d: %s%d" % (who, count, sides, detail, sum(rolls)))


@bot.on_message(r"^!roll\b(?!\s+\d*d\d+\s*$)")
def roll_usage(event, match):
    bot.reply(event, "usage: !roll NdM, like !roll 2d6")


def poll_key(event):
    return "poll:%s" % event["chat"]["id"]


def tally(poll):
    counts = [0] * len(poll["options"])
    for choice in poll["votes"].values():
        counts[choice] += 1
    parts = ["%d) %s: %d" % (i + 1, option, counts[i]) for i, option in enumerate(poll["options"])]
    return "%s — %s" % (poll["question"], ", ".join(parts))


@bot.on_message(r"^!poll\s+(.+)$")
def poll(event, match):
    try:
        words = shlex.split(match.group(1))
    except ValueError:
        bot.reply(event, 'usage: !poll "Question?" option1 option2 ...')
        return
    if len(words) < 3:
        bot.reply(event, 'a poll needs a question and at least two options: !poll "Lunch?" pizza sushi')
        return
    question, options = words[0], words[1:10]
    bot.state_set(poll_key(event), {"question": question, "options": options, "votes": {}})
    listing = ", ".join("%d) %s" % (i + 1, option) for i, option in enumerate(options))
    bot.reply(event, "Poll: %s %s — answer with !vote N" % (question, listing))


@bot.on_message(r"^!vote\s+(\d+)\s*$")
def vote(event, match):
    poll = bot.state_get(poll_key(event))
    if not poll:
        bot.reply(event, 'no open poll here; start one with !poll "Question?" a b')
        return
    choice = int(match.group(1)) - 1
    if not 0 <= choice < len(poll["options"]):
        bot.reply(event, "choose 1 to %d" % len(poll["options"]))
        return
    voter = event["message"]["sender"]["handle"]
    poll["votes"][voter] = choice
    bot.state_set(poll_key(event), poll)
    bot.reply(event, "@%s votes %s. %s" % (voter, poll["options"][choice], tally(poll)))


@bot.on_message(r"^!results\s*$")
def results(event, match):
    poll = bot.state_get(poll_key(event))
    bot.reply(event, tally(poll) if poll else "no open poll here")


@bot.on_message(r"^!close\s*$")
def close(event, match):
    poll = bot.state_get(poll_key(event))
    if not poll:
        bot.reply(event, "no open poll here")
        return
    bot.state_set(poll_key(event), None)
    bot.reply(event, "Poll closed: " + tally(poll))


@bot.command("roll", usage="/roll NdM", help="roll dice in the current chat")
def roll_command(event, args):
    chat = event.get("chat")
    if not chat:
        return
    match = re.match(r"^(\d*)d(\d+)$", args.strip() or "1d6")
    if not match:
        return
    count, sides = int(match.group(1) or 1), int(match.group(2))
    rolls = [random.randint(1, sides) for _ in range(min(count, 100))]
    bot.send(str(chat["id"]), "@%s rolled %dd%d: %d" % (event["user"]["handle"], count, sides, sum(rolls)))


bot.run()
