"""A small helper for Parley bot plugins (standard library only).

A plugin is a program that reads events from stdin, one JSON object per line, and
writes actions to stdout, one per line. This module does the reading and writing:

    from parley_bot import Bot
    bot = Bot("echo")

    @bot.on_message(r"^!echo (.+)")
    def echo(event, match):
        bot.reply(event, match.group(1))

    bot.run()

Handlers run one at a time, in the order events arrive. See docs/plugins.md for
every event and action.
"""

import itertools
import json
import re
import sys
import threading
import time

__all__ = ["Bot"]


class Bot:
    def __init__(self, name, events=None, bot_messages=False):
        self.name = name
        self.events = events
        self.bot_messages = bot_messages
        self.me = None
        self._message_handlers = []
        self._join_handlers = []
        self._leave_handlers = []
        self._command_handlers = {}
        self._commands = []
        self._ready_handlers = []
        self._tick_handlers = []
        self._declared_schedules = []
        self._timers = []
        self._refs = itertools.count(1)
        self._pending = {}
        self._write_lock = threading.Lock()
        self._queue = []
        self._wakeup = threading.Condition()

    # Registering handlers

    def on_message(self, pattern=None, catch_up=False):
        """Calls the function with (event, match) for each message whose text matches.
        Messages sent while the bot was away (handed over at start, "catch_up": true)
        reach it only with catch_up=True: a command typed yesterday is not run today."""
        regex = re.compile(pattern, re.S) if pattern else None

        def register(function):
            self._message_handlers.append((regex, function, catch_up))
            return function

        return register

    def on_join(self, function):
        """Calls the function with the member_joined event."""
        self._join_handlers.append(function)
        return function

    def on_leave(self, function):
        self._leave_handlers.append(function)
        return function

    def on_ready(self, function):
        """Calls the function once the host has said who the bot is (self.me)."""
        self._ready_handlers.append(function)
        return function

    def on_tick(self, name=None):
        """Calls the function with the tick event of the schedule `name` (of every one without)."""

        def register(function):
            self._tick_handlers.append((name, function))
            return function

        return register

    def every(self, seconds, name=None, data=None):
        """Runs the function (with the tick event) every so many seconds, kept by the host
        across restarts; a time missed while the bot was down runs once when it is back."""
        return self._declare({"every": seconds}, name, data)

    def cron(self, expression, tz="UTC", name=None, data=None):
        """Runs the function at the times a cron expression names ("0 9 * * mon-fri") in a
        time zone ("Europe/Paris"), kept by the host across restarts."""
        return self._declare({"cron": expression, "tz": tz}, name, data)

    def _declare(self, rule, name, data):
        def register(function):
            schedule = dict(rule, name=name or function.__name__)
            if data is not None:
                schedule["data"] = data
            self._declared_schedules.append(schedule)
            self._tick_handlers.append((schedule["name"], function))
            return function

        return register

    def command(self, name, usage=None, help=None, allow=None):
        """Declares a shell command (/NAME ARGS) of the shell that loads the plugin: the
        function gets (event, args). See chat_command for one typed in chats."""

        def register(function):
            self._command_handlers[name] = function
            self._declare_command(name, usage or "/" + name, help, allow)
            return function

        return register

    def chat_command(self, name, usage=None, help=None, allow=None, catch_up=False):
        """Declares a command typed in chats (!NAME ARGS): listed by /help in the chats the
        bot is in, and run only by those `allow` names ("members", the default; "admins",
        "owner", "bot_owner" or "@handle", or a list of them): the host refuses the others
        before the bot sees their line. The function gets (event, args). A command sent
        while the bot was away is not run unless catch_up=True."""

        def register(function):
            self._declare_command(name, usage or "!" + name, help, allow)
            pattern = re.compile(r"^!%s(?:\s+(.*))?$" % re.escape(name), re.S)
            self._message_handlers.append((pattern, lambda event, match: function(event, (match.group(1) or "").strip()), catch_up))
            return function

        return register

    def _declare_command(self, name, usage, help, allow):
        declared = {"name": name, "usage": usage, "help": help or ""}
        if allow is not None:
            declared["allow"] = [allow] if isinstance(allow, str) else list(allow)
        self._commands.append(declared)

    # Actions

    def send(self, to, text, thread=None):
        """Sends text to '#group', '@user' or a chat id; with thread (a message's number),
        into that message's thread."""
        action = {"type": "send", "to": to, "text": text}
        if thread is not None:
            action["thread"] = thread
        self._write(action)

    def reply(self, event, text, in_chat=False):
        """Sends text to the chat the event came from, into the thread its message is in
        (if it is in one; in_chat=True: the chat's main flow)."""
        chat = (event.get("chat") or {}).get("id")
        thread = (event.get("message") or {}).get("thread")
        action = {"type": "reply", "text": text, "thread": False if in_chat or thread is None else thread}
        if chat is not None:
            action["chat"] = chat
        self._write(action)

    def reply_in_thread(self, event, text):
        """Sends text into the thread of the event's message: the one it is in, or the
        one it starts."""
        message = event.get("message") or {}
        root = message.get("thread") or message.get("seq")
        action = {"type": "reply", "text": text, "thread": root}
        chat = (event.get("chat") or {}).get("id")
        if chat is not None:
            action["chat"] = chat
        self._write(action)

    def command_line(self, line):
        """Runs a slash command as the bot; returns its result (or raises BotError)."""
        return self._call({"type": "command", "line": line})

    def state_get(self, key, default=None):
        """A value kept by the host for this bot across restarts."""
        value = self._call({"type": "state_get", "key": key}).get("value")
        return default if value is None else value

    def state_set(self, key, value):
        self._call({"type": "state_set", "key": key, "value": value})

    def schedule(self, name, at=None, after=None, every=None, cron=None, tz=None, data=None):
        """Asks the host for a tick named `name`: `at` an ISO 8601 time, `after` or `every`
        so many seconds, or at the times of a `cron` expression in `tz`. Kept across
        restarts; replaces a schedule of the same name (one with the same rule and data is
        left as it is). Returns it as kept: {"name", "next", "data", and the rule}."""
        action = {"type": "schedule", "name": name}
        for key, value in (("at", at), ("after", after), ("every", every), ("cron", cron), ("tz", tz), ("data", data)):
            if value is not None:
                action[key] = value
        return self._call(action)["schedule"]

    def unschedule(self, name):
        """Cancels a schedule; raises BotError("unknown_schedule") if there is none."""
        self._call({"type": "unschedule", "name": name})

    def schedules(self):
        """The bot's schedules, soonest first."""
        return self._call({"type": "schedules"}).get("schedules", [])

    def later(self, seconds, function, *args):
        """Runs function(*args) after some seconds, on the bot's own thread. Held in memory
        only: gone if the bot restarts (schedule() is kept by the host)."""
        timer = threading.Timer(seconds, lambda: self._enqueue(("timer", function, args)))
        timer.daemon = True
        timer.start()
        self._timers.append(timer)

    def log(self, *parts):
        """A line for the host's log (stderr)."""
        print(*parts, file=sys.stderr, flush=True)

    # The loop

    def run(self):
        hello = {"type": "hello", "name": self.name, "bot_messages": self.bot_messages}
        if self.events is not None:
            hello["events"] = self.events
        if self._commands:
            hello["commands"] = self._commands
        if self._declared_schedules:
            hello["schedules"] = self._declared_schedules
        self._write(hello)
        reader = threading.Thread(target=self._read, daemon=True)
        reader.start()
        while True:
            item = self._next()
            if item is None:
                return
            kind, first, rest = item
            try:
                if kind == "event":
                    self._dispatch(first)
                else:
                    first(*rest)
            except Exception as error:  # a handler's bug must not end the bot
                self.log("handler failed:", repr(error))

    def _read(self):
        for line in sys.stdin:
            line = line.strip()
            if not line:
                continue
            try:
                event = json.loads(line)
            except ValueError:
                self.log("not JSON from the host:", line[:200])
                continue
            ref = event.get("ref")
            if event.get("type") in ("result", "error") and ref in self._pending:
                slot = self._pending.pop(ref)
                slot["event"] = event
                slot["done"].set()
                continue
            self._enqueue(("event", event, ()))
        self._enqueue(None)

    def _enqueue(self, item):
        with self._wakeup:
            self._queue.append(item)
            self._wakeup.notify()

    def _next(self):
        with self._wakeup:
            while not self._queue:
                self._wakeup.wait()
            return self._queue.pop(0)

    def _dispatch(self, event):
        kind = event.get("type")
        if kind == "ready":
            self.me = event.get("bot")
            for function in self._ready_handlers:
                function(event)
        elif kind == "message":
            text = event.get("message", {}).get("text", "")
            late = event.get("catch_up") is True
            for regex, function, catch_up in self._message_handlers:
                if late and not catch_up:
                    continue
                match = regex.search(text) if regex else None
                if regex is None or match:
                    function(event, match)
        elif kind == "member_joined":
            for function in self._join_handlers:
                function(event)
        elif kind == "member_left":
            for function in self._leave_handlers:
                function(event)
        elif kind == "tick":
            for name, function in self._tick_handlers:
                if name is None or name == event.get("name"):
                    function(event)
        elif kind == "command":
            function = self._command_handlers.get(event.get("name"))
            if function:
                function(event, event.get("arguments", ""))
        elif kind == "error":
            self.log("host error:", event.get("code"), event.get("message"))

    def _call(self, action, timeout=10):
        ref = "py-%d" % next(self._refs)
        slot = {"done": threading.Event()}
        self._pending[ref] = slot
        action["ref"] = ref
        self._write(action)
        if not slot["done"].wait(timeout):
            self._pending.pop(ref, None)
            raise BotError("timeout", "no answer from the host")
        event = slot["event"]
        if event.get("type") == "error":
            raise BotError(event.get("code"), event.get("message"))
        return event

    def _write(self, action):
        line = json.dumps(action, ensure_ascii=False)
        with self._write_lock:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()


class BotError(Exception):
    def __init__(self, code, message):
        super().__init__("%s: %s" % (code, message))
        self.code = code
        self.message = message


def now():
    return time.time()
