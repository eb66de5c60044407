#!/usr/bin/env python3
"""Issue 8's attacks on the HTTP transport, against the real switchboard binary on loopback.

Each attack starts a fresh headless switchboard (port 0, a temporary state directory), runs for a
bounded time with a bounded number of connections, and prints what it measured: the server's peak
resident memory (VmHWM) against its size at rest, its resident size a few seconds later (memory
given back), how long hostile connections live, and whether new clients still get in.

    tests/attack/http-attacks.py build/ci/app/switchboard [attack ...]

Attacks: huge-chunk lf-head empty-objects trickle stalled-body idle fd-limit (default: all).
Loopback only; nothing here needs or sends the token except where a session is required.
"""
import json
import os
import re
import resource
import socket
import subprocess
import sys
import tempfile
import time

TOKEN = "sb_attack-script-token-0123456789abcdef"
MiB = 1024 * 1024


def status(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return -1


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Server:
    def __init__(self, binary, nofile=None):
        self.state = tempfile.TemporaryDirectory()
        env = dict(os.environ, SWITCHBOARD_TOKEN=TOKEN)

        def limit():
            if nofile:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        self.process = subprocess.Popen(
            [binary, "--headless", "--port", "0", "--state-dir", self.state.name, "--config", "/nonexistent.yaml"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, preexec_fn=limit, text=True)
        line = self.process.stdout.readline()
        match = re.search(r":(\d+)/mcp", line)
        if not match:
            raise SystemExit(f"switchboard did not start: {line!r}")
        self.port = int(match.group(1))
        time.sleep(0.5)
        self.rest = status(self.process.pid, "VmRSS")

    def connect(self):
        return socket.create_connection(("127.0.0.1", self.port), timeout=10)

    def head(self, extra=b"", token=False, line_end=b"\r\n"):
        lines = [b"POST /mcp HTTP/1.1", b"Host: 127.0.0.1", b"Content-Type: application/json",
                 b"Accept: application/json, text/event-stream"]
        if token:
            lines.append(b"Authorization: Bearer " + TOKEN.encode())
        return line_end.join(lines) + line_end + extra

    def memory(self):
        pid = self.process.pid
        return status(pid, "VmHWM"), status(pid, "VmRSS")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.state.cleanup()


def read_status(sock, timeout=5.0):
    sock.settimeout(timeout)
    try:
        data = sock.recv(4096)
    except (socket.timeout, ConnectionError):
        return None
    match = re.match(rb"HTTP/1\.1 (\d+)", data or b"")
    return int(match.group(1)) if match else None


def send_for(sock, total, seconds):
    piece = b"x" * (256 * 1024)
    sent, deadline = 0, time.monotonic() + seconds
    sock.settimeout(2)
    while sent < total and time.monotonic() < deadline:
        try:
            sent += sock.send(piece)
        except (socket.timeout, OSError):
            break
    return sent


def report(name, server, answer, sent=None):
    peak, _ = server.memory()
    time.sleep(4)  # the server gives freed memory back a few seconds after a large request
    _, later = server.memory()
    extra = f", sent {sent / MiB:.0f} MiB" if sent is not None else ""
    print(f"{name}: answer {answer}{extra}; RSS at rest {server.rest / MiB:.1f} MiB, "
          f"peak {peak / MiB:.1f} MiB, 4 s later {later / MiB:.1f} MiB")


def huge_chunk(binary):
    server = Server(binary)
    try:
        sock = server.connect()
        sock.sendall(server.head(b"Transfer-Encoding: chunked\r\n\r\n7fffffff\r\n"))
        sent = send_for(sock, 2048 * MiB, 10)
        report("2 GiB chunk (no token)", server, read_status(sock), sent)
    finally:
        server.stop()


def lf_head(binary):
    server = Server(binary)
    try:
        sock = server.connect()
        sock.sendall(server.head(b"Content-Length: 100000000\n\n", line_end=b"\n"))
        sent = send_for(sock, 100 * MiB, 10)
        report("LF-only head + 100 MB Content-Length (no token)", server, read_status(sock), sent)
    finally:
        server.stop()


def empty_objects(binary):
    server = Server(binary)
    try:
        body = b"[" + b"{}," * ((4 * MiB - 8) // 3) + b"{}]"
        init = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "attack", "version": "1"}}})
        sock = server.connect()
        sock.sendall(server.head(f"Content-Length: {len(init)}\r\n\r\n".encode(), token=True) + init.encode())
        reply = sock.recv(65536).decode(errors="replace")
        session = re.search(r"(?i)mcp-session-id: (\S+)", reply).group(1)
        extra = f"Mcp-Session-Id: {session}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        sock.sendall(server.head(extra, token=True) + body)
        report(f"{len(body) / MiB:.1f} MiB of {{}} (with a session)", server, read_status(sock, 60))
    finally:
        server.stop()


def lifetime(server, sockets, send_byte_every=None, limit=90):
    """Seconds until each socket is closed by the server (None: still open after `limit`)."""
    start = time.monotonic()
    open_ = {s: None for s in sockets}
    next_send = start
    while time.monotonic() - start < limit and any(v is None for v in open_.values()):
        now = time.monotonic()
        for s, closed in open_.items():
            if closed is not None:
                continue
            try:
                s.settimeout(0.01)
                if s.recv(65536) == b"":
                    open_[s] = now - start
                    continue
            except socket.timeout:
                pass
            except OSError:
                open_[s] = now - start
                continue
            if send_byte_every and now >= next_send:
                try:
                    s.send(b"X")
                except OSError:
                    open_[s] = now - start
        if send_byte_every and now >= next_send:
            next_send = now + send_byte_every
        time.sleep(0.05)
    return list(open_.values())


def describe(values, limit):
    closed = [v for v in values if v is not None]
    if not closed:
        return f"none closed within {limit} s"
    return (f"{len(closed)}/{len(values)} closed, after {min(closed):.1f}-{max(closed):.1f} s"
            + ("" if len(closed) == len(values) else f"; {len(values) - len(closed)} still open at {limit} s"))


def trickle(binary):
    server = Server(binary)
    try:
        sockets = [server.connect() for _ in range(200)]
        for s in sockets:
            s.sendall(b"POST /mcp HTTP/1.1\r\n")
        print(f"trickle (200 connections, a byte every 2 s): {describe(lifetime(server, sockets, 2.0), 90)}")
    finally:
        server.stop()


def stalled_body(binary):
    server = Server(binary)
    try:
        sockets = [server.connect() for _ in range(20)]
        for s in sockets:
            s.sendall(server.head(b"Content-Length: 100\r\n\r\n{\"jsonrpc\":"))
        print(f"stalled body (20 connections): {describe(lifetime(server, sockets), 90)}")
    finally:
        server.stop()


def idle(binary):
    server = Server(binary)
    try:
        sockets = [server.connect() for _ in range(20)]
        print(f"idle (20 connections, nothing sent): {describe(lifetime(server, sockets, limit=120), 120)}")
    finally:
        server.stop()


def fd_limit(binary):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 2048:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(2048, hard), hard))
    server = Server(binary, nofile=1024)
    try:
        crowd, failed = [], 0
        for _ in range(1100):
            try:
                crowd.append(server.connect())
            except OSError:
                failed += 1
        time.sleep(1)
        before = cpu_seconds(server.process.pid)
        served = 0
        t0 = time.monotonic()
        for _ in range(5):
            try:
                s = server.connect()
                s.sendall(server.head(b"Content-Length: 2\r\n\r\n{}", token=True))
                served += read_status(s, 10) is not None
                s.close()
            except OSError:
                pass
        elapsed = time.monotonic() - t0
        time.sleep(3)
        busy = (cpu_seconds(server.process.pid) - before) / (elapsed + 4) * 100
        print(f"1,100 idle connections at a 1,024 fd limit: {len(crowd)} connected ({failed} failed); "
              f"{served}/5 new clients answered in {elapsed:.1f} s; server CPU meanwhile {busy:.0f}% of a core")
        for s in crowd:
            s.close()
    finally:
        server.stop()


ATTACKS = {"huge-chunk": huge_chunk, "lf-head": lf_head, "empty-objects": empty_objects, "trickle": trickle,
           "stalled-body": stalled_body, "idle": idle, "fd-limit": fd_limit}

if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    for name in sys.argv[2:] or ATTACKS:
        ATTACKS[name](sys.argv[1])
