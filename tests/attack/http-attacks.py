#!/usr/bin/env python3
"""Attacks on the HTTP transport, against the real switchboard binary on loopback.

Each attack starts a fresh headless switchboard (port 0, a temporary state directory), runs for a
bounded time with a bounded number of connections, and prints what it measured: the server's peak
resident memory (VmHWM) against its size at rest, its resident size a few seconds later (memory
given back), how long hostile connections live, and whether new clients still get in.

    tests/attack/http-attacks.py build/ci/app/switchboard [attack ...]

Attacks (default: all):
  issue 8:  huge-chunk lf-head empty-objects trickle stalled-body idle fd-limit
  issue 23 (local denial of service; each prints how many of a legitimate client's calls, each on
  a new connection, are answered out of LEGIT_CALLS while the attack runs):
    half-heads     a process without the token keeps 300 half-sent request heads open and
                   reconnects whenever one is closed
    half-heads-2000  the same from four processes keeping 500 each (more than the server's 512
                   connections in all)
    waiting-calls  another client (with the token) holds 256 calls waiting for a person
    session-burst  300 initialize calls under 300 new client names; then the legitimate client
                   uses the session it opened before the burst
Loopback only; nothing here needs or sends the token except where a session is required.
"""
import collections
import http.client
import json
import multiprocessing
import os
import re
import resource
import selectors
import socket
import subprocess
import sys
import tempfile
import threading
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
        # Headless prints a line per call: read them, or a full pipe would stall the server.
        threading.Thread(target=self.process.stdout.read, daemon=True).start()
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


LEGIT_CALLS = 100
LEGIT_INTERVAL = 0.12
PROTOCOL = "2025-06-18"


def mcp_headers(port, session=None):
    headers = {"Host": f"127.0.0.1:{port}", "Content-Type": "application/json",
               "Accept": "application/json, text/event-stream", "Authorization": f"Bearer {TOKEN}"}
    if session:
        headers.update({"Mcp-Session-Id": session, "MCP-Protocol-Version": PROTOCOL})
    return headers


def post(port, body, session=None, timeout=10.0):
    """One POST on a new connection: (HTTP status or the exception's name, response headers, body)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("POST", "/mcp", json.dumps(body), mcp_headers(port, session))
        response = connection.getresponse()
        return response.status, dict((k.lower(), v) for k, v in response.getheaders()), response.read()
    except (OSError, http.client.HTTPException) as error:
        return type(error).__name__, {}, b""
    finally:
        connection.close()


def initialize(port, name):
    status, headers, _ = post(port, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": name, "version": "1"}}})
    session = headers.get("mcp-session-id")
    if session:
        post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    return status, session


def legitimate_calls(port, session, count=LEGIT_CALLS, interval=LEGIT_INTERVAL):
    """`count` echo calls, one every `interval` seconds (so that the attack runs throughout, past the
    server's 10 s head deadline), each on a new connection (as a client without a connection pool
    makes them): how many were answered, and what the others got."""
    outcomes = collections.Counter()
    for i in range(count):
        time.sleep(interval)
        status, _, body = post(port, {"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                                      "params": {"name": "echo", "arguments": {"message": f"call {i}"}}}, session)
        answered = status == 200 and b'"result"' in body and f"call {i}".encode() in body
        outcomes["answered" if answered else str(status)] += 1
    return outcomes


def describe_outcomes(outcomes, count=LEGIT_CALLS):
    others = ", ".join(f"{n} {what}" for what, n in sorted(outcomes.items()) if what != "answered")
    return f"{outcomes['answered']}/{count} answered" + (f" ({others})" if others else "")


def keep_half_heads(port, count, stop, opened, closed):
    """Holds `count` connections, each with half a request head and no token; opens a new one as
    soon as the server closes one (or refuses it)."""
    selector = selectors.DefaultSelector()

    def open_one():
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            s.setblocking(False)
            selector.register(s, selectors.EVENT_READ)
            opened.value += 1
        except OSError:
            time.sleep(0.01)

    while not stop.is_set():
        while len(selector.get_map()) < count and not stop.is_set():
            open_one()
        for key, _ in selector.select(0.05):
            selector.unregister(key.fileobj)
            key.fileobj.close()
            closed.value += 1
    for key in list(selector.get_map().values()):
        key.fileobj.close()


def half_heads(binary, processes=1, per_process=300):
    server = Server(binary)
    try:
        _, session = initialize(server.port, "legitimate-client")
        stop = multiprocessing.Event()
        opened, closed = multiprocessing.Value("l", 0), multiprocessing.Value("l", 0)
        attackers = [multiprocessing.Process(target=keep_half_heads, args=(server.port, per_process, stop, opened, closed))
                     for _ in range(processes)]
        for attacker in attackers:
            attacker.start()
        while opened.value < processes * per_process and all(a.is_alive() for a in attackers):
            time.sleep(0.05)
        time.sleep(1)
        outcomes = legitimate_calls(server.port, session)
        stop.set()
        for attacker in attackers:
            attacker.join(30)
        print(f"half-heads ({processes} x {per_process} half-sent heads without the token, reopened when closed): "
              f"legitimate client {describe_outcomes(outcomes)}; the attacker opened {opened.value} connections, "
              f"{closed.value} closed by the server")
    finally:
        server.stop()


def waiting_calls(binary):
    server = Server(binary)
    try:
        _, legitimate = initialize(server.port, "legitimate-client")
        _, greedy = initialize(server.port, "greedy-client")
        held = []
        for i in range(256):
            body = json.dumps({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {
                "name": "request_connection",
                "arguments": {"provider": "github", "kind": "api_key", "reason": f"waiting call {i}"}}}).encode()
            s = server.connect()
            head = "".join(f"{k}: {v}\r\n" for k, v in mcp_headers(server.port, greedy).items())
            s.sendall(f"POST /mcp HTTP/1.1\r\n{head}Content-Length: {len(body)}\r\n\r\n".encode() + body)
            held.append(s)
        time.sleep(2)
        greedy_outcomes = collections.Counter()
        for s in held:
            s.settimeout(0.01)
            try:
                data = s.recv(4096)
                match = re.match(rb"HTTP/1\.1 (\d+)", data)
                greedy_outcomes["closed" if not data else match.group(1).decode() if match else "?"] += 1
            except socket.timeout:
                greedy_outcomes["waiting"] += 1
            except OSError:
                greedy_outcomes["reset"] += 1
        outcomes = legitimate_calls(server.port, legitimate)
        print(f"waiting-calls (another client holds 256 calls waiting for a person): legitimate client "
              f"{describe_outcomes(outcomes)}; the other client's 256 calls: "
              + ", ".join(f"{n} {what}" for what, n in sorted(greedy_outcomes.items())))
        for s in held:
            s.close()
    finally:
        server.stop()


def session_burst(binary):
    server = Server(binary)
    try:
        _, session = initialize(server.port, "legitimate-client")
        burst = collections.Counter()
        for i in range(300):
            status, _ = initialize(server.port, f"burst-client-{i}")
            burst[str(status)] += 1
        outcomes = legitimate_calls(server.port, session)
        print(f"session-burst (300 initialize calls under new client names): legitimate client "
              f"{describe_outcomes(outcomes)} on its session opened before the burst; the burst's initialize "
              "calls: " + ", ".join(f"{n} got {what}" for what, n in sorted(burst.items())))
    finally:
        server.stop()


ATTACKS = {"huge-chunk": huge_chunk, "lf-head": lf_head, "empty-objects": empty_objects, "trickle": trickle,
           "stalled-body": stalled_body, "idle": idle, "fd-limit": fd_limit,
           "half-heads": half_heads, "waiting-calls": waiting_calls, "session-burst": session_burst,
           "half-heads-2000": lambda binary: half_heads(binary, processes=4, per_process=500)}

if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    for name in sys.argv[2:] or ATTACKS:
        ATTACKS[name](sys.argv[1])
