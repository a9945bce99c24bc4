#!/usr/bin/env python3
"""Records a real exchange for every op and event of the Parley protocol.

Starts `parley serve` on a free port with a fresh data folder, drives it with two raw
WebSocket clients (alice and bob), and prints each request with its reply and the events
it caused, as Markdown. docs/protocol.md embeds its output:

    python3 scripts/protocol-examples.py .build/debug/parley > /tmp/examples.md
"""
import base64, json, os, re, socket, struct, subprocess, sys, tempfile, time

def start_server(binary):
    data = tempfile.mkdtemp()
    env = dict(os.environ, PARLEY_BCRYPT_COST="4")
    proc = subprocess.Popen([binary, "serve", "--port", "0", "--data", data, "--log-level", "error", "--admin", "@alice", "--hook-allow-loopback"],
                            stdout=subprocess.PIPE, env=env, text=True)
    line = proc.stdout.readline()
    port = int(re.search(r":(\d+)/v1/ws", line).group(1))
    return proc, port

class Socket:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /v1/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        response = b""
        while b"\r\n\r\n" not in response:
            response += self.sock.recv(1)
        assert response.startswith(b"HTTP/1.1 101"), response
        self.next_id = 0
        self.events = []

    def send_text(self, text):
        payload = text.encode()
        header = bytes([0x81])
        if len(payload) < 126:
            header += bytes([0x80 | len(payload)])
        else:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(payload))
        mask = os.urandom(4)
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def read_exact(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    def read_message(self):
        message = b""
        while True:
            first, second = self.read_exact(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack(">H", self.read_exact(2))[0]
            elif length == 127:
                length = struct.unpack(">Q", self.read_exact(8))[0]
            payload = self.read_exact(length)
            opcode = first & 0x0F
            if opcode == 0x9:  # ping: answer it
                self.sock.sendall(bytes([0x8A, 0x80 | len(payload)]) + b"\0\0\0\0" + payload)
                continue
            message += payload
            if first & 0x80:
                return json.loads(message)

    def call(self, op, args=None):
        self.next_id += 1
        request = {"id": self.next_id, "op": op}
        if args is not None:
            request["args"] = args
        self.send_text(json.dumps(request))
        while True:
            frame = self.read_message()
            if "event" in frame:
                self.events.append(frame)
            elif frame.get("id") == self.next_id:
                return request, frame

    def drain(self, seconds=0.3):
        self.sock.settimeout(seconds)
        try:
            while True:
                self.events.append(self.read_message())
        except (socket.timeout, TimeoutError):
            pass
        finally:
            self.sock.settimeout(None)
        events, self.events = self.events, []
        return events

def show(title, who, exchange, others=()):
    request, reply = exchange
    print(f"### `{request['op']}` — {title}\n")
    print(f"{who} sends:\n\n```json\n{json.dumps(request)}\n```\n")
    print(f"and gets:\n\n```json\n{json.dumps(reply)}\n```\n")
    for name, events in others:
        for event in events:
            print(f"{name} receives:\n\n```json\n{json.dumps(event)}\n```\n")

def main():
    proc, port = start_server(sys.argv[1])
    try:
        alice, bob = Socket(port), Socket(port)
        show("create an account and sign in", "alice", alice.call("register", {"email": "alice@example.com", "password": "correct horse", "display_name": "Alice", "handle": "alice"}))
        bob.call("register", {"email": "bob@example.com", "password": "battery staple", "handle": "bob"})
        bob_token = None
        three = Socket(port)
        exchange = three.call("sign_in", {"login": "@bob", "password": "battery staple"})
        bob_token = exchange[1]["result"]["token"]
        show("sign in with an email address or @handle", "a second connection of bob", exchange)
        alice.drain(); bob.drain()
        show("who am I", "alice", alice.call("me"))
        show("change the display name", "alice", alice.call("update_profile", {"display_name": "Alice Liddell"}))
        show("the user directory, by handle or name prefix (an email only whole)", "alice", alice.call("search_users", {"query": "bo", "limit": 10, "offset": 0}))
        exchange = alice.call("user", {"handle": "@bob"})
        bob_id = exchange[1]["result"]["id"]
        show("look up one user", "alice", exchange)
        exchange = alice.call("send", {"user": bob_id, "text": "hi bob", "client_id": "c-1"})
        direct = exchange[1]["result"]["chat_id"]
        show("the first message to a user creates the direct chat", "alice", exchange, [("bob", bob.drain()), ("bob's second connection", three.drain())])
        show("the same client id again returns the original message, stored once", "alice", alice.call("send", {"user": bob_id, "text": "hi bob", "client_id": "c-1"}))
        show("the direct chat with a user", "bob", bob.call("direct_chat", {"user": exchange[1]["result"]["sender"]["id"]}))
        show("one chat", "bob", bob.call("chat", {"chat": direct}))
        show("the chat list: last message and unread count", "bob", bob.call("chats"))
        show("history: the latest N, or N before a sequence number", "bob", bob.call("history", {"chat": direct, "limit": 50}))
        show("move the read marker (never backwards)", "bob", bob.call("mark_read", {"chat": direct, "seq": 1}), [("alice", alice.drain())])
        show("who has read up to a message", "alice", alice.call("seen_by", {"chat": direct, "seq": 1}))
        show("full-text search in my chats", "bob", bob.call("search", {"words": "hi", "limit": 10}))
        alice_id = exchange[1]["result"]["sender"]["id"]
        for number, text in enumerate(["lunch at noon?", "hi again, see you there"]):
            alice.call("send", {"chat": direct, "text": text, "client_id": f"c-lunch-{number}"})
        bob.drain(); three.drain()
        show("narrowed by sender, chat and time, with a message either side", "bob",
             bob.call("search", {"words": "hi", "chat": direct, "from": alice_id, "after": "2026-01-01T00:00:00Z", "context": 1, "limit": 10}))
        exchange = alice.call("create_group", {"handle": "swift", "title": "Swift on Linux", "is_public": True})
        group = exchange[1]["result"]["id"]
        show("create a group (the creator owns it)", "alice", exchange)
        show("a group by handle", "bob", bob.call("group", {"handle": "#swift"}))
        show("join a public group by handle", "bob", bob.call("join_group", {"handle": "#swift"}), [("alice", alice.drain())])
        three.drain()
        show("say which chat this connection is looking at", "bob", bob.call("set_viewing", {"chat": group}), [("alice", alice.drain())])
        show("who is online in a group, and viewing it", "alice", alice.call("online", {"chat": group}))
        show("send to a group", "alice", alice.call("send", {"chat": group, "text": "welcome to #swift", "client_id": "c-2"}), [("bob", bob.drain())])
        exchange = alice.call("send", {"chat": group, "text": "@bob can you review the patch? @here standup in 5", "client_id": "c-3"})
        show("`@handle` mentions a member; `@all`/`@here` everyone (owner and admins, unless the rules let anyone)", "alice", exchange, [("bob", bob.drain())])
        mentioned = exchange[1]["result"]["seq"]
        show("the unread mentions of a chat are counted in the chat list", "bob", bob.call("chats"))
        show("recent messages that mention me", "bob", bob.call("mentions", {"limit": 10}))
        show("a reply quotes the head of the message it answers", "bob", bob.call("send", {"chat": group, "text": "on it", "reply_to": mentioned, "client_id": "c-4"}), [("alice", alice.drain())])
        show("react to a message (once per emoji per member)", "bob", bob.call("react", {"chat": group, "seq": mentioned, "emoji": "👀"}), [("alice", alice.drain())])
        show("take a reaction back", "bob", bob.call("unreact", {"chat": group, "seq": mentioned, "emoji": "👀"}), [("alice", alice.drain())])
        show("change the text of my own message (within the edit window)", "alice", alice.call("edit_message", {"chat": group, "seq": mentioned, "text": "@bob can you review the patch today?"}), [("bob", bob.drain())])
        show("open the thread of a message before anything is said there, naming it (a topic)", "alice",
             alice.call("open_thread", {"chat": group, "seq": mentioned, "title": "patch review"}), [("bob", bob.drain())])
        exchange = bob.call("send", {"chat": group, "thread": mentioned, "text": "first pass done, two nits", "client_id": "c-t1"})
        show("send into a thread: out of the chat's main flow, `thread` naming its root", "bob", exchange, [("alice", alice.drain())])
        in_thread = exchange[1]["result"]["seq"]
        show("one thread's messages (`thread`), or the chat's main flow (`main`), where a root carries its thread's head", "alice",
             alice.call("history", {"chat": group, "main": True, "limit": 2}))
        show("a chat's threads, latest activity first, with my unread count and whether I follow each", "alice",
             alice.call("threads", {"chat": group, "limit": 10}))
        show("the threads I follow, across my chats, those with unread first", "alice", alice.call("followed_threads", {"limit": 10}))
        show("move my read position in a thread", "alice", alice.call("mark_thread_read", {"chat": group, "root": mentioned, "seq": in_thread}))
        show("one thread, as I see it", "alice", alice.call("thread", {"chat": group, "root": mentioned}))
        show("follow, mute (`muted`: a mention no longer follows it) or leave a thread to the default (`none`)", "bob",
             bob.call("follow_thread", {"chat": group, "root": mentioned, "following": "muted"}))
        typo = alice.call("send", {"chat": group, "text": "pasword: hunter2", "client_id": "c-5"})[1]["result"]["seq"]
        bob.drain()
        show("delete a message: it stays as a tombstone without its text or media", "alice", alice.call("delete_message", {"chat": group, "seq": typo}), [("bob", bob.drain())])
        show("someone else's message: not allowed", "bob", bob.call("edit_message", {"chat": group, "seq": mentioned, "text": "mine now"}))
        show("set a group's topic (owner and admins, or anyone if the rules allow)", "alice", alice.call("set_topic", {"chat": group, "topic": "Swift 6 on Linux"}), [("bob", bob.drain())])
        show("who may set the topic and mention everyone (owner and admins)", "alice", alice.call("set_group_rules", {"chat": group, "anyone_sets_topic": True}), [("bob", bob.drain())])
        show("ban a handle from a group, taken or not: its user is removed and kept out (owner and admins)", "alice", alice.call("ban", {"chat": group, "handle": "mallory"}), [("bob", bob.drain())])
        show("the handles banned from a group (members)", "bob", bob.call("bans", {"chat": group}))
        show("lift a ban (owner and admins)", "alice", alice.call("unban", {"chat": group, "handle": "mallory"}), [("bob", bob.drain())])
        show("tell the chat I am typing (at most one event every 3 s)", "bob", bob.call("typing", {"chat": group}), [("alice", alice.drain())])
        show("mark myself away (until `back` or my next message)", "bob", bob.call("set_away", {"message": "at lunch"}))
        show("a direct message to someone away tells the sender, once per away period", "alice", alice.call("send", {"user": bob_id, "text": "got a minute?", "client_id": "c-6"}), [("alice's events", alice.drain())])
        show("when someone joined, last signed in and was last seen", "alice", alice.call("activity", {"user": bob_id}))
        show("back from away", "bob", bob.call("back"))
        show("hide when I was last around (and see nobody else's)", "bob", bob.call("hide_activity", {"hidden": True}))
        show("bound what my IRC clients are played back of each chat (null: the server's bound, 0: none)", "bob",
             bob.call("set_irc_playback", {"limit": 20}))
        show("my bound on IRC playback", "bob", bob.call("irc_playback"))
        show("my open sessions", "bob", bob.call("sessions"))
        bob.drain(); alice.drain(); three.drain()
        show("the members and their roles", "bob", bob.call("members", {"chat": group}))
        show("make a member an admin", "alice", alice.call("set_role", {"user": bob_id, "chat": group, "role": "admin"}), [("bob", bob.drain())])
        exchange = alice.call("create_invite", {"chat": group, "max_uses": 5, "expires_in_seconds": 3600})
        code = exchange[1]["result"]["code"]
        show("an invite link, with optional use count and expiry", "alice", exchange)
        show("revoke an invite", "alice", alice.call("revoke_invite", {"code": code}))
        carol = Socket(port)
        carol.call("register", {"email": "carol@example.com", "password": "carol's secret", "handle": "carol"})
        carol_id = carol.call("me")[1]["result"]["id"]
        exchange = alice.call("create_invite", {"chat": group})
        show("join with a code or a parley://join/ link", "carol", carol.call("join", {"invite": "parley://join/" + exchange[1]["result"]["code"]}), [("alice", alice.drain())])
        show("kick a member", "alice", alice.call("kick", {"user": carol_id, "chat": group}), [("carol", carol.drain())])
        dave = Socket(port)
        dave.call("register", {"email": "dave@example.com", "password": "dave's secret", "handle": "dave"})
        dave_id = dave.call("me")[1]["result"]["id"]
        bob.drain()
        show("invite a user directly (they become a member)", "alice", alice.call("invite", {"user": dave_id, "chat": group}), [("dave", dave.drain())])
        show("the groups I am in", "dave", dave.call("groups"))
        show("the directory of public groups, by handle prefix, with member counts", "dave", dave.call("public_groups", {"query": "sw", "limit": 10}))
        show("leave a group", "dave", dave.call("leave", {"chat": group}), [("alice", alice.drain())])
        show("invite a user to join, as IRC's INVITE: they get `invited`, and `join_group` lets them in for a day even when the group is private, keyed or full", "alice", alice.call("send_invite", {"user": dave_id, "chat": group}), [("dave", dave.drain())])
        show("the invitations I can still use", "dave", dave.call("invitations"))
        three.drain()
        show("delete a chat for myself (it comes back with the next message)", "bob", bob.call("delete_chat", {"chat": direct}), [("bob's second connection", three.drain())])
        bob.drain()
        show("a no-op, to check the connection", "bob", bob.call("ping"))
        show("change the password (signs out the user's other sessions)", "carol", carol.call("change_password", {"current": "carol's secret", "new": "carol's new secret"}))
        three.sock.close()
        time.sleep(0.2)
        four = Socket(port)
        show("sign back in with a token after a reconnect; events after `after` come first", "bob, reconnecting",
             four.call("resume", {"token": bob_token, "after": None}))
        sessions = four.call("sessions")[1]["result"]
        other = next(session["id"] for session in sessions if not session["current"])
        show("end one of my sessions (its sockets close with 4001)", "bob", four.call("revoke_session", {"id": other}))
        show("sign out (revokes the token)", "bob", four.call("sign_out"))
        show("make a bot account that I own", "alice", alice.call("create_bot", {"handle": "dicebot", "display_name": "Dice", "password": "roll-them-all"}))
        exchange = alice.call("bots")
        dicebot = exchange[1]["result"][0]["id"]
        show("the bot accounts I own", "alice", exchange)
        exchange = alice.call("create_bot_token", {"bot": dicebot, "name": "ci"})
        secret = exchange[1]["result"]["secret"]
        token_id = exchange[1]["result"]["token"]["id"]
        show("make a token a bot of mine signs in with (shown this once; also IRC SASL PLAIN's password and HTTP's Bearer)", "alice", exchange)
        botsock = Socket(port)
        show("sign in as a bot with one of its tokens", "a bot's connection", botsock.call("sign_in_bot", {"token": secret}))
        show("a bot's tokens, with when each was last used", "alice", alice.call("bot_tokens", {"bot": dicebot}))
        show("a bot declares the commands it answers in chats (`!NAME`), and who may run each", "a bot's connection",
             botsock.call("set_bot_commands", {"commands": [
                 {"name": "roll", "usage": "!roll NdM", "help": "roll dice", "allow": ["members"]},
                 {"name": "reset", "usage": "!reset", "help": "forget the scores", "allow": ["admins", "@carol"]}]}))
        alice.call("invite", {"user": dicebot, "chat": group})
        alice.drain(); botsock.drain()
        show("the commands of the bots in a chat (`/help` there)", "alice", alice.call("chat_commands", {"chat": group}))
        show("revoke a bot token: the connections it opened close with 4001", "alice", alice.call("revoke_bot_token", {"bot": dicebot, "token": token_id}))
        due = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() + 1))
        show("set a reminder, told to me alone when it comes due (or when I next connect)", "alice",
             alice.call("remind", {"text": "stand-up", "at": due, "chat": group}))
        later = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() + 3600))
        exchange = alice.call("remind", {"text": "lunch", "at": later})
        show("my pending reminders, soonest first", "alice", alice.call("reminders"))
        show("cancel a pending reminder", "alice", alice.call("cancel_reminder", {"id": exchange[1]["result"]["id"]}))
        time.sleep(1.5)
        print("When it comes due, alice receives:\n\n```json\n%s\n```\n" % json.dumps(next(e for e in alice.drain(1.0) if e.get("event") == "reminder")))
        flagged = alice.call("send", {"chat": group, "text": "buy cheap watches", "client_id": "c-spam"})[1]["result"]["seq"]
        alice.drain()
        exchange = alice.call("report", {"chat": group, "seq": flagged, "reason": "spam"})
        show("report a message of my chat to the server's operators", "alice", exchange)
        show("the reports queue, newest first; `all` includes resolved ones (server admins)", "alice", alice.call("reports", {"all": False}))
        show("resolve a report with a note (server admins)", "alice",
             alice.call("resolve_report", {"id": exchange[1]["result"]["id"], "note": "nothing wrong"}))
        show("ignore someone: their messages, mentions, invites and direct messages no longer reach me, on any client", "alice",
             alice.call("ignore", {"user": dave_id}))
        show("whom I ignore", "alice", alice.call("ignored"))
        show("stop ignoring someone", "alice", alice.call("unignore", {"user": dave_id}))
        show("what of a chat rings for me: `all`, `mentions`, `none` (muted), or null for the default; the chat list shows it as `notify`",
             "alice", alice.call("set_notify", {"chat": group, "level": "none"}))
        mallory = Socket(port)
        mallory.call("register", {"email": "mallory@example.com", "password": "mallory's pass", "display_name": "Mallory", "handle": "mallory"})
        mallory.call("join_group", {"handle": "swift"})
        mallory.call("send", {"chat": group, "text": "cheap watches here", "client_id": "m-1"})
        alice.drain()
        show("take down what an account sent, in every chat, between two times (none given: all of it); media withdrawn, "
             "every member told with `message_deleted` (server admins)", "alice",
             alice.call("redact", {"handle": "@mallory", "reason": "spam"}))
        show("suspend an account: its sessions end at once (WebSocket close 4003 with the reason), sign-in refused with "
             "`account_suspended`, its bots too (server admins)", "alice",
             alice.call("suspend", {"handle": "@mallory", "reason": "posting links in every group"}))
        show("the suspended accounts (server admins)", "alice", alice.call("suspensions"))
        show("lift a suspension, and that of the bots suspended with the account (server admins)", "alice",
             alice.call("reinstate", {"handle": "@mallory"}))
        show("ban `@handle`, a handle pattern (`spam*`) or an address range server-wide, for `seconds` or for good: refused "
             "sign-ins and registrations get `server_banned` (server admins)", "alice",
             alice.call("ban_server", {"target": "203.0.113.0/24", "reason": "spam wave", "seconds": 604800}))
        show("the server's bans in force (server admins)", "alice", alice.call("server_bans"))
        show("lift a server ban, by its id or what it bans (server admins)", "alice", alice.call("unban_server", {"target": "203.0.113.0/24"}))
        show("everything the server holds about me: profile, sessions, chats with roles and read markers, reactions, uploads, and my "
             "messages a page (1,000) at a time: `after` the `next` id asks for the next page; `handle`: another's (server admins)",
             "alice", alice.call("export_account", {"handle": "@mallory"}))
        show("a notice from the operators to everyone connected: each client gets a `wallops` event, IRC clients with +w a "
             "WALLOPS (server admins)", "alice", alice.call("wallops", {"text": "restart at noon"}))
        show("end every session of an account, on every node, saying why (IRC's KILL); unlike a suspension it may sign in "
             "again (server admins)", "alice", alice.call("disconnect", {"handle": "@mallory", "reason": "cool off"}))
        show("erase an account: profile, email, phone, password, sessions and files go, its messages stay as from \"Deleted user\" "
             "(or go, with --erased-messages delete), its handle is held back (server admins)", "alice",
             alice.call("erase_account", {"handle": "@mallory", "reason": "by request"}))
        leaving = Socket(port)
        leaving.call("register", {"email": "leaving@example.com", "password": "leaving's pass", "display_name": "Leaving", "handle": "leaving"})
        show("delete my own account for good, with its password (null for an account without one); the connection stays, signed out",
             "leaving", leaving.call("delete_account", {"password": "leaving's pass"}))
        show("the audit log, newest first: all of it for server admins, a group's own (`chat`) for its owner and admins; "
             "`actor` and `before` (an entry's id) narrow it", "alice", alice.call("audit", {"limit": 3}))
        exchange = alice.call("create_signup_code", {"max_uses": 5, "expires_in_seconds": 604800})
        code = exchange[1]["result"]["code"]
        show("a sign-up code, for a server that registers by invitation (server admins)", "alice", exchange)
        show("the sign-up codes that can still be used (server admins)", "alice", alice.call("signup_codes"))
        show("revoke a sign-up code (server admins)", "alice", alice.call("revoke_signup_code", {"code": code}))
        exchange = alice.call("create_hook", {"chat": group, "name": "CI"})
        hook = exchange[1]["result"]["hook"]["id"]
        show("make an incoming webhook: its URL's token is shown this once (owner and admins; docs/hooks.md)", "alice", exchange)
        show("make an outgoing hook: messages starting with the command are posted to the URL, signed (owner and admins; docs/hooks.md)", "alice",
             alice.call("create_outgoing_hook", {"chat": group, "name": "deploy", "url": "http://127.0.0.1:8765/hook", "trigger": "!deploy"}))
        show("a group's incoming webhooks", "alice", alice.call("hooks", {"chat": group}))
        show("revoke an incoming webhook", "alice", alice.call("revoke_hook", {"chat": group, "hook": hook}))
        show("remove my avatar (an uploaded image's id sets it)", "alice", alice.call("set_avatar", {"media": None}))
        phone = Socket(port)
        show("send a 6-digit sign-in code to a phone (the server logs it, or hands it to --sms-command)", "a new connection", phone.call("request_code", {"phone": "+15551234567"}))
        show("sign in with the code sent to a phone (here a wrong one)", "that connection", phone.call("sign_in_code", {"phone": "+15551234567", "code": "000000"}))
        show("sign in with an OpenID Connect ID token (here on a server that trusts no provider)", "another connection", Socket(port).call("sign_in_token", {"id_token": "eyJhbGciOiJSUzI1NiJ9.e30.c2ln"}))
        print("### Errors\n")
        for title, who, sock, op, args in [
            ("a frame that is not a request", "anyone", Socket(port), None, None),
            ("an op that does not exist", "anyone", Socket(port), "teleport", {}),
            ("a request before signing in", "anyone", Socket(port), "chats", None),
            ("a rule the engine enforces", "dave", dave, "send", {"chat": group, "text": "let me back in"}),
        ]:
            if op is None:
                sock.send_text("hello?")
                print(f"**{title}** — {who} sends `hello?` and gets:\n\n```json\n{json.dumps(sock.read_message())}\n```\n")
            else:
                request, reply = sock.call(op, args)
                print(f"**{title}** — {who} sends:\n\n```json\n{json.dumps(request)}\n```\n\nand gets:\n\n```json\n{json.dumps(reply)}\n```\n")
    finally:
        proc.terminate()
        proc.wait()

main()
