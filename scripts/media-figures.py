#!/usr/bin/env python3
"""Measures media through a real server: upload (/video) and download (/save) of a
100 MiB MP4 by the parley binary against `parley serve` on a free port, both on this
machine. Each run is a fresh `parley` process; the figure is the median of RUNS.

usage: scripts/media-figures.py PATH_TO_PARLEY [MIB] [RUNS]
"""
import os, shutil, statistics, struct, subprocess, sys, tempfile, time

parley = sys.argv[1]
mib = int(sys.argv[2]) if len(sys.argv) > 2 else 100
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
work = tempfile.mkdtemp(prefix="parley-media-figures-")
env = dict(os.environ, PARLEY_BCRYPT_COST="4", NO_COLOR="1")

# An MP4 of the right structure (ftyp, moov, a large mdat) around varied filler bytes.
video = os.path.join(work, "video.mp4")
payload = mib << 20
with open(video, "wb") as out:
    out.write(struct.pack(">I", 20) + b"ftypisom" + struct.pack(">I", 0x200) + b"isom")
    out.write(struct.pack(">I", 16) + b"moov" + struct.pack(">I", 8) + b"free")
    out.write(struct.pack(">I", 1) + b"mdat" + struct.pack(">Q", payload + 16))
    block = bytes((i * 31 + 7) % 256 for i in range(1 << 20))
    for _ in range(mib):
        out.write(block)
size = os.path.getsize(video)

server = subprocess.Popen(
    [parley, "serve", "--port", "0", "--data", os.path.join(work, "server"), "--log-level", "warning",
     "--max-video-mb", str(mib + 10)],
    env=env, stdout=subprocess.PIPE)
line = server.stdout.readline().decode()
url = line.split()[4]

def shell(script, data):
    start = time.perf_counter()
    result = subprocess.run([parley, "--data", data, "--server", url], input=script.encode(), env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    assert result.returncode == 0, result.stderr.decode()
    return elapsed

try:
    client = os.path.join(work, "client")
    shell("/register figures@example.com --handle figures --password figures-pw\n/create #media\n", client)
    baseline = statistics.median(shell("/whoami\n", client) for _ in range(3))
    uploads, downloads = [], []
    for run in range(runs):
        # Different bytes each run, so the server stores (not deduplicates) every upload.
        with open(video, "r+b") as out:
            out.seek(size - 8)
            out.write(struct.pack(">Q", run + 1))
        uploads.append(shell(f"/video #media {video} run {run}\n", client) - baseline)
        target = os.path.join(work, f"copy-{run}.mp4")
        downloads.append(shell(f"/save #media {run + 1} {target}\n", client) - baseline)
        assert os.path.getsize(target) == size
        os.remove(target)
    up, down = statistics.median(uploads), statistics.median(downloads)
    print(f"{size / (1 << 20):.0f} MiB video, median of {runs}, process start and sign-in ({baseline * 1000:.0f} ms) subtracted:")
    print(f"  upload   {size / (1 << 20) / up:7.0f} MiB/s  ({up:.2f} s; runs {', '.join(f'{u:.2f}' for u in uploads)})")
    print(f"  download {size / (1 << 20) / down:7.0f} MiB/s  ({down:.2f} s; runs {', '.join(f'{d:.2f}' for d in downloads)})")
    with open(f"/proc/{server.pid}/status") as status:
        peak = next(l for l in status if l.startswith("VmHWM")).split()[1]
    print(f"  server peak resident memory {int(peak) / 1024:.0f} MiB (the file is streamed, never held whole)")
finally:
    server.terminate()
    server.wait()
    shutil.rmtree(work, ignore_errors=True)
