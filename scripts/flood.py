#!/usr/bin/env python3
"""What flooding IRC connections cost everyone else (docs/performance.md, "Flood control").

Starts `parley serve --irc-port 0 --irc-guests` on a fresh folder, signs one client in as
a guest that sends PING every 100 ms and times each PONG, and runs FLOODERS guest
connections that each write BURST `PING` lines every INTERVAL seconds (reconnecting when
the server closes them, as a hostile client would, unless --no-reconnect) for SECONDS. Prints the PING round
trip (median, p99, max) during the flood and before it, the lines the flooders got onto
the wire, the server's CPU over the flood, and that CPU per flooded line.

    scripts/flood.py --binary .build/release/parley [--seconds 20] [--flooders 4]
"""
import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def register(port: int, nick: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(f"NICK {nick}\r\nUSER {nick} 0 * :{nick}\r\n".encode())
    buffer = b""
    while b" 001 " not in buffer:
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError(f"{nick} was not welcomed: {buffer[-300:]!r}")
        buffer += chunk
    return sock


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] if ordered else float("nan")


class Pinger(threading.Thread):
    """Sends PING every 100 ms until stopped and keeps each round trip by phase."""

    def __init__(self, port: int):
        super().__init__(daemon=True)
        self.sock = register(port, "pinger")
        self.sock.settimeout(60)
        self.phase = "quiet"
        self.times = {"quiet": [], "flood": []}
        self.stopped = False
        self.buffer = b""

    def run(self):
        number = 0
        while not self.stopped:
            number += 1
            token = f"p{number}"
            phase = self.phase
            sent = time.monotonic()
            self.sock.sendall(f"PING {token}\r\n".encode())
            while f"PONG".encode() not in self.buffer or token.encode() not in self.buffer:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return
                self.buffer += chunk
                if len(self.buffer) > 1 << 20:
                    self.buffer = self.buffer[-4096:]
            self.times[phase].append(time.monotonic() - sent)
            self.buffer = b""
            time.sleep(0.1)


class Flooder(threading.Thread):
    def __init__(self, port: int, index: int, burst: int, interval: float, until: float, reconnect: bool):
        super().__init__(daemon=True)
        self.port, self.index, self.burst, self.interval, self.until = port, index, burst, interval, until
        self.reconnect = reconnect
        self.lines = 0
        self.connections = 0
        self.closed_with = set()

    def run(self):
        block = "".join(f"PING f{n}\r\n" for n in range(self.burst)).encode()
        while time.monotonic() < self.until:
            try:
                sock = register(self.port, f"flood{self.index}x{self.connections}")
            except OSError:
                time.sleep(0.05)
                continue
            self.connections += 1
            sock.setblocking(False)
            tail = b""
            try:
                while time.monotonic() < self.until:
                    try:
                        sent = sock.send(block)
                        self.lines += block[:sent].count(b"\n")
                    except BlockingIOError:
                        pass
                    try:
                        while True:
                            chunk = sock.recv(65536)
                            if not chunk:
                                raise ConnectionResetError
                            tail = (tail + chunk)[-512:]
                    except BlockingIOError:
                        pass
                    time.sleep(self.interval)
            except (ConnectionResetError, BrokenPipeError, OSError):
                found = re.search(rb"ERROR :([^\r\n]*)", tail)
                self.closed_with.add(found.group(1).decode() if found else "closed")
            finally:
                sock.close()
            if not self.reconnect:
                return


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=".build/release/parley")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--flooders", type=int, default=4)
    parser.add_argument("--burst", type=int, default=200)
    parser.add_argument("--interval", type=float, default=0.05)
    parser.add_argument("--quiet-seconds", type=float, default=5)
    parser.add_argument("--no-reconnect", action="store_true", help="a flooder that is closed stays away")
    args = parser.parse_args()

    folder = tempfile.mkdtemp(prefix="parley-flood-")
    log = open(os.path.join(folder, "serve.log"), "w")
    server = subprocess.Popen(
        [args.binary, "serve", "--port", "0", "--irc-port", "0", "--irc-guests", "--max-registrations", "0",
         "--ping-timeout", "600", "--log-level", "warning", "--data", os.path.join(folder, "data")],
        stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        line = server.stdout.readline()
        found = re.search(r"irc://[^:]+:(\d+)", line)
        if not found:
            sys.exit(f"parley serve did not say where IRC listens: {line!r}")
        port = int(found.group(1))
        pinger = Pinger(port)
        pinger.start()
        time.sleep(args.quiet_seconds)
        pinger.phase = "flood"
        start_cpu, start = cpu_seconds(server.pid), time.monotonic()
        until = start + args.seconds
        flooders = [Flooder(port, i, args.burst, args.interval, until, not args.no_reconnect) for i in range(args.flooders)]
        for flooder in flooders:
            flooder.start()
        for flooder in flooders:
            flooder.join()
        time.sleep(max(0, until - time.monotonic()))
        cpu, elapsed = cpu_seconds(server.pid) - start_cpu, time.monotonic() - start
        pinger.stopped = True
        lines = sum(f.lines for f in flooders)
        connections = sum(f.connections for f in flooders)
        ends = sorted(set().union(*(f.closed_with for f in flooders)))
        for phase in ("quiet", "flood"):
            times = [t * 1000 for t in pinger.times[phase]]
            print(f"PING round trip, {phase}: {len(times)} pings, median {percentile(times, 0.5):.2f} ms, "
                  f"p99 {percentile(times, 0.99):.2f} ms, max {max(times, default=float('nan')):.2f} ms")
        print(f"flood: {args.flooders} connections at a time, {connections} made, {lines} lines written in {elapsed:.1f} s; "
              f"ended with: {', '.join(ends) or 'never closed'}")
        print(f"server CPU over the flood: {cpu:.2f} s ({100 * cpu / elapsed:.0f}% of a core); "
              f"{1e6 * cpu / max(lines, 1):.2f} us per flooded line")
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
