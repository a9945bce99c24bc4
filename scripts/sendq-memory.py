#!/usr/bin/env python3
"""What clients that stop reading cost the server's memory, and whether it comes back
(docs/performance.md, "Clients that stop reading").

Starts `parley serve --irc-port 0 --irc-guests --irc-line-rate 0` on a fresh folder. STALLED
guests join #load with a small receive buffer and then read nothing; a talker guest
writes LINES lines of 400 bytes to #load. Each stalled client is closed once its send
queue passes --irc-sendq-kib (the server logs `sendq exceeded`). ROUNDS times over, with
new clients each round; prints the server's RSS before, and each round's peak and its
RSS SETTLE seconds after the round's last client was closed.
With --readers the same clients read everything: what the server keeps anyway (the
messages' store, the backlogs for resuming) is in both runs, and only the stalled
clients' queues in one.

    scripts/sendq-memory.py --binary .build/release/parley [--stalled 20] [--lines 20000]
"""
import argparse
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def guest(port: int, nick: str, receive_buffer: int = 0, join: bool = True) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if receive_buffer:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.settimeout(60)
    sock.connect(("127.0.0.1", port))
    sock.sendall(f"NICK {nick}\r\nUSER {nick} 0 * :{nick}\r\n{'JOIN #load' if join else 'PING ready'}\r\n".encode())
    buffer = b""
    while (b" 366 " if join else b"PONG") not in buffer:
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError(f"{nick} did not join: {buffer[-300:]!r}")
        buffer += chunk
    return sock


def users_here(observer: socket.socket) -> int:
    """Connections the server has, from LUSERS (265) asked by `observer`."""
    observer.sendall(b"LUSERS\r\n")
    buffer = b""
    while True:
        match = re.search(rb" 265 \S+ (\d+) ", buffer)
        if match:
            return int(match.group(1))
        chunk = observer.recv(65536)
        if not chunk:
            raise RuntimeError("the observer was closed")
        buffer += chunk


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--stalled", type=int, default=20)
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--sendq-kib", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--settle", type=float, default=10.0)
    parser.add_argument("--readers", action="store_true", help="the clients read: the run to compare with")
    args = parser.parse_args()

    folder = tempfile.mkdtemp(prefix="parley-sendq-")
    log = open(f"{folder}/server.log", "w+")
    server = subprocess.Popen(
        [args.binary, "serve", "--port", "0", "--data", f"{folder}/data", "--irc-port", "0", "--irc-guests",
         "--irc-line-rate", "0", "--max-registrations", "0", "--ping-timeout", "600", "--irc-sendq-kib", str(args.sendq_kib), "--log-level", "info"],
        stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        first = server.stdout.readline()
        port = int(re.search(r"irc://[^:]+:(\d+)", first).group(1))
        observer = guest(port, "observer", join=False)
        talker = guest(port, "talker")

        talker_tail = [b""]

        def drain() -> None:
            # The talker reads what comes to it, so that it is never the one stalled.
            talker.settimeout(None)
            try:
                while chunk := talker.recv(65536):
                    talker_tail[0] = (talker_tail[0] + chunk)[-500:]
            except OSError:
                pass
        threading.Thread(target=drain, daemon=True).start()
        time.sleep(1)
        before = rss_kib(server.pid)
        kind = "reading" if args.readers else "stalled"
        print(f"{args.rounds} rounds: {args.stalled} {kind} clients join #load, {args.lines} lines of 400 bytes are "
              f"sent there; sendq {args.sendq_kib} KiB; server RSS before: {before / 1024:.1f} MiB")
        for round in range(args.rounds):
            clients = [guest(port, f"c{round}x{index}", receive_buffer=4096) for index in range(args.stalled)]
            lines_read = [0] * len(clients)

            def read_all(index: int) -> None:
                sock = clients[index]
                sock.settimeout(None)
                tail = b""
                try:
                    while chunk := sock.recv(65536):
                        data = tail + chunk
                        complete, _, tail = data.rpartition(b"\r\n")
                        lines_read[index] += complete.count(b" PRIVMSG #load :")
                except OSError:
                    pass
            if args.readers:
                for index in range(len(clients)):
                    threading.Thread(target=read_all, args=(index,), daemon=True).start()

            peak = rss_kib(server.pid)
            done = threading.Event()

            def sample() -> None:
                nonlocal peak
                while not done.is_set():
                    peak = max(peak, rss_kib(server.pid))
                    time.sleep(0.05)
            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()

            started = time.monotonic()
            text = "x" * 400
            for first_line in range(0, args.lines, 100):
                if b"ERROR" in talker_tail[0]:
                    raise RuntimeError(f"the talker was closed: {talker_tail[0]!r}")
                talker.sendall("".join(f"PRIVMSG #load :{n} {text}\r\n" for n in range(first_line, min(args.lines, first_line + 100))).encode())
            # Done when every stalled client is gone (LUSERS counts the observer and the
            # talker), or every reader has every line.
            while time.monotonic() - started < 600:
                if args.readers and min(lines_read) >= args.lines:
                    break
                if not args.readers and users_here(observer) == 2:
                    break
                time.sleep(0.2)
            elapsed = time.monotonic() - started
            # The talker's lines are all handled once a PING after them is answered.
            time.sleep(args.settle)
            done.set()
            sampler.join()
            settled = rss_kib(server.pid)
            print(f"round {round + 1}: {elapsed:.1f} s; RSS peak {peak / 1024:.1f} MiB, {args.settle:.0f} s later "
                  f"{settled / 1024:.1f} MiB")
            for sock in clients:
                sock.close()
            if args.readers:
                while users_here(observer) != 2:
                    time.sleep(0.2)
        log.flush()
        with open(f"{folder}/server.log") as reading:
            print(f"closed for sendq: {reading.read().count('sendq exceeded')}")
        observer.close()
        talker.close()
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
