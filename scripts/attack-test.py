#!/usr/bin/env python3
"""Attacks `ferry serve` on loopback while a normal client reads and writes (issue 21).

    python3 scripts/attack-test.py /path/to/ferry

Each attack runs for a few seconds from a loopback address of its own (127.0.0.2 and up), so
the per-address cap applies to it and not to the normal client on 127.0.0.1:

1. anonymous bodies: 60 connections without a token announcing 64 MiB pushes and sending them;
2. silent sockets: 300 connections that say nothing and reconnect when closed;
3. slowloris: 256 connections sending one header byte a second;
4. read-token floods: 16 concurrent 44 MiB `POST …/changes` bodies;
5. push floods: 16 write-token connections streaming 60 MiB pushes of well-formed changes;
6. checkpoint spam with a read token, and a rename of another replica's checkpoint;
7. a planted change claiming counter 1000 of another replica;
8. 600 new stores, with the server's open-file limit at 1,024.

And the patient attacker of issue 49, each from loopback addresses of its own:

9. slow bodies: 4 read-write connections announce 64 MiB pushes, send `{"changes":[`, then a
   space every 3 s (the server must cut them by their rate, and hold only what arrived);
10. slow read-only queries: 4 addresses x 64 connections of `POST …/changes` (1 MiB announced)
    with one read token, a byte every 3 s, reconnecting when answered;
11. amplification: one 40 MiB push and three concurrent 20 MiB pushes whose document is
    `{"a":[{"":0},{"":0},…]}` (15-30 times its size once parsed);
12. silent sockets from 10 addresses (50 each, under the per-address cap), reconnecting;
13. slowloris from 8 addresses (32 each);
14. the log flood: one address reconnecting 300 silent sockets must not write more than a few
    lines a second to the server's log;
15. secrets: while `ferry sync … --token T` waits on a server, T is not in any process's
    argv (`ps` shows argv to every local user); `s3://KEY:SECRET@bucket` is refused unechoed.

It passes when every request of the normal client succeeded with a p99 under one second, the
server's resident memory stayed under 400 MB and fell under 100 MB a minute after the attacks,
every refusal had its status, and every store verifies afterwards. Bounded in time (about four
minutes) and in connections.
"""

import hashlib
import http.client
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

FERRY = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else "ferry"
MEMORY_LIMIT_MB = 400
AFTER_MEMORY_LIMIT_MB = 100
P99_LIMIT = 1.0
failures = []


STARTED = time.monotonic()


def log(message):
    print("attack-test: [%5.1f s] %s" % (time.monotonic() - STARTED, message), file=sys.stderr, flush=True)


def fail(message):
    failures.append(message)
    log("FAILED: " + message)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    def __init__(self, root, tokens):
        self.port = free_port()

        def lower_limit():
            resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))  # systemd's default soft limit

        self.log_path = os.path.join(root, "..", "serve.log")
        self.process = subprocess.Popen(
            [FERRY, "serve", root, "--port", str(self.port), "--tokens", tokens],
            stdout=subprocess.PIPE, stderr=open(self.log_path, "w"), text=True,
            preexec_fn=lower_limit)
        line = self.process.stdout.readline()
        if "serving" not in line:
            raise SystemExit("ferry serve did not start: %r" % line)
        self.peak_mb = 0.0
        self.watching = True
        threading.Thread(target=self.watch_memory, daemon=True).start()

    def rss_mb(self):
        try:
            with open("/proc/%d/status" % self.process.pid) as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            pass
        return 0.0

    def watch_memory(self):
        while self.watching:
            self.peak_mb = max(self.peak_mb, self.rss_mb())
            time.sleep(0.05)

    def stop(self):
        self.watching = False
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()


def connect(port, source, timeout=10):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    return sock


def status_of(sock):
    """The status code of the response on `sock`, or None."""
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    except OSError:
        return None
    try:
        return int(data.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return None


def signed_change(origin, counter, parent, entity, record, doc, vv):
    change = {"counter": counter, "doc": doc, "entity": entity, "hlc": "%d.0" % (time.time() * 1000), "id": record,
              "op": "put", "origin": origin, "parent": parent, "vv": vv}
    canonical = json.dumps(change, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    change["digest"] = hashlib.sha256(canonical.encode()).hexdigest()
    return change


class NormalClient:
    """Reads (knowledge) and writes (put + ferry sync) in a loop, timing every request."""

    def __init__(self, work, port, token):
        self.port, self.token = port, token
        self.store = os.path.join(work, "normal")
        subprocess.run([FERRY, "init", self.store], check=True, stdout=subprocess.DEVNULL)
        self.timings, self.errors, self.running = [], [], True
        self.env = dict(os.environ, FERRY_TOKEN=token)
        self.threads = [threading.Thread(target=self.read_loop, daemon=True), threading.Thread(target=self.write_loop, daemon=True)]
        for thread in self.threads:
            thread.start()

    def read_loop(self):
        while self.running:
            started = time.monotonic()
            try:
                connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
                connection.request("GET", "/v1/stores/normal/knowledge", headers={"Authorization": "Bearer " + self.token})
                response = connection.getresponse()
                body = response.read()
                connection.close()
                if response.status not in (200, 404):
                    self.errors.append("knowledge: %d" % response.status)
                    log("normal client: knowledge got %d: %s" % (response.status, body[:120]))
            except Exception as error:  # noqa: BLE001 - any failure counts
                self.errors.append("knowledge: %s" % error)
                log("normal client: knowledge failed: %s" % error)
            self.timings.append(time.monotonic() - started)
            time.sleep(0.05)

    def write_loop(self):
        index = 0
        while self.running:
            index += 1
            subprocess.run([FERRY, "put", self.store, "Note", "n%d" % index, "--json", '{"n": %d}' % index],
                           stdout=subprocess.DEVNULL, check=True)
            started = time.monotonic()
            result = subprocess.run([FERRY, "sync", self.store, "http://127.0.0.1:%d/normal" % self.port, "--no-commit"],
                                    capture_output=True, text=True, env=self.env)
            self.timings.append(time.monotonic() - started)
            if result.returncode != 0:
                self.errors.append("sync: %s" % result.stderr.strip())
                log("normal client: sync failed: %s" % result.stderr.strip()[:200])
            time.sleep(0.1)

    def stop(self):
        self.running = False
        for thread in self.threads:
            thread.join(timeout=30)


def run_for(seconds, target, count):
    stop = time.monotonic() + seconds
    threads = [threading.Thread(target=target, args=(stop, n), daemon=True) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds + 30)


def attack_anonymous_bodies(port):
    statuses = []

    def one(stop, n):
        try:
            sock = connect(port, "127.0.0.2")
            sock.sendall(b"POST /v1/stores/normal/push HTTP/1.1\r\nHost: x\r\nContent-Length: 67108864\r\n\r\n")
            sock.settimeout(2)
            chunk = b"x" * 65536
            sent = 0
            try:
                while sent < (64 << 20) - 1024 and time.monotonic() < stop:
                    sock.sendall(chunk)
                    sent += len(chunk)
            except OSError:
                pass  # the server answered and closed: the body is not wanted
            sock.settimeout(5)
            statuses.append(status_of(sock))
            sock.close()
        except OSError as error:
            statuses.append(str(error))

    run_for(8, one, 60)
    if any(status not in (401, None) for status in statuses if not isinstance(status, str)):
        fail("anonymous 64 MiB pushes got %s, not 401" % sorted(set(map(str, statuses))))
    log("anonymous 64 MiB bodies: %s" % sorted(set(map(str, statuses))))


def attack_silent_sockets(port):
    def one(stop, n):
        while time.monotonic() < stop:
            try:
                sock = connect(port, "127.0.0.3", timeout=3)
                sock.recv(1)  # wait until the server closes it, then come back
                sock.close()
            except OSError:
                time.sleep(0.05)

    run_for(10, one, 300)
    log("300 silent sockets for 10 s: done")


def attack_slowloris(port):
    def one(stop, n):
        try:
            sock = connect(port, "127.0.0.4", timeout=3)
            for byte in b"GET /v1/stores/normal HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100:
                if time.monotonic() > stop:
                    break
                sock.sendall(bytes([byte]))
                time.sleep(1)
            sock.close()
        except OSError:
            pass

    run_for(10, one, 256)
    log("256 slowloris connections for 10 s: done")


def attack_read_floods(port, read_token):
    statuses = []

    def one(stop, n):
        try:
            sock = connect(port, "127.0.0.5")
            sock.sendall(("POST /v1/stores/normal/changes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
                          "Content-Length: %d\r\n\r\n" % (read_token, 44 << 20)).encode())
            sock.settimeout(5)
            statuses.append(status_of(sock))
            sock.close()
        except OSError as error:
            statuses.append(str(error))

    run_for(5, one, 16)
    if any(status != 413 for status in statuses):
        fail("44 MiB knowledge queries got %s, not 413" % sorted(set(map(str, statuses))))
    log("16 read-token 44 MiB queries: %s" % sorted(set(map(str, statuses))))


def attack_push_floods(port, token):
    """A co-writer streams 60 MiB pushes of well-formed changes on 16 connections: the server
    parses them as they arrive and counts the parsed changes against its body budget, so each
    is refused (400 past 100,000 changes, 413 or 503 when the budget is spent) and memory stays
    bounded."""
    statuses = []
    origin = str(uuid.uuid4())
    change = signed_change(origin, 1, "0" * 64, "Flood", "f", {"text": "x" * 400}, {origin: 1})
    piece = (json.dumps(change, separators=(",", ":")) + ",").encode() * 100

    def one(stop, n):
        try:
            sock = connect(port, "127.0.0.8")
            sock.sendall(("POST /v1/stores/flood%d/push HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
                          "Content-Length: %d\r\n\r\n" % (n, token, 60 << 20)).encode() + b'{"changes":[')
            sent = len(b'{"changes":[')
            try:
                # Sends the whole body (padded with spaces to its length) unless refused first.
                while sent < 60 << 20:
                    part = piece if sent + len(piece) <= 60 << 20 else b" " * ((60 << 20) - sent)
                    sock.sendall(part)
                    sent += len(part)
            except OSError:
                pass  # refused and closed while sending
            sock.settimeout(10)
            statuses.append(status_of(sock))
            sock.close()
        except OSError as error:
            statuses.append(str(error))

    run_for(10, one, 16)
    if any(status not in (400, 413, 503) for status in statuses):
        fail("60 MiB streamed pushes got %s, not 400/413/503" % sorted(set(map(str, statuses))))
    log("16 write-token 60 MiB streamed pushes: %s" % sorted(set(map(str, statuses))))


def slow_sender(port, sources, head, first, statuses, stop, pause=3.0):
    """Connects from one of `sources`, sends `head` and `first`, then a space every `pause`
    seconds until answered (its status recorded) or cut, and comes back, until `stop`."""
    n = 0
    while time.monotonic() < stop:
        source = sources[n % len(sources)]
        n += 1
        try:
            sock = connect(port, source, timeout=pause)
            sock.sendall(head + first)
            opened = time.monotonic()
            answered = None
            while time.monotonic() < stop and answered is None:
                try:
                    data = sock.recv(4096)
                    answered = data.split(b" ", 2)[1].decode() if data.startswith(b"HTTP/") else "closed"
                except socket.timeout:
                    try:
                        sock.sendall(b" ")
                    except OSError:
                        answered = "reset"
                except OSError:
                    answered = "reset"
            if answered is None:
                # Still sending when the attack ended: held too long only if it began well
                # before (the rate's grace is 3 s).
                answered = "held to the end" if time.monotonic() - opened > 8 else "under way at the end"
            statuses.append(answered)
            sock.close()
        except OSError as error:
            statuses.append(type(error).__name__)
            time.sleep(0.05)


def attack_slow_bodies(port, token):
    """Issue 49, 1: slow 64 MiB pushes must not hold the body budget (the normal client pushes
    meanwhile) and are cut by the minimum rate."""
    statuses = []
    head = ("POST /v1/stores/slow/push HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
            "Content-Length: %d\r\n\r\n" % (token, 64 << 20)).encode()
    run_for(15, lambda stop, n: slow_sender(port, ["127.0.0.9"], head, b'{"changes":[', statuses, stop), 4)
    if "held to the end" in statuses or not any(status == "408" for status in statuses):
        fail("slow 64 MiB pushes were not cut by the rate: %s" % sorted(set(statuses)))
    log("4 slow 64 MiB pushes for 15 s: %s" % summary(statuses))


def attack_slow_reads(port, read_token):
    """Issue 49, 2: 256 slow read-only queries from 4 addresses must not take every slot."""
    statuses = []
    head = ("POST /v1/stores/normal/changes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
            "Content-Length: %d\r\n\r\n" % (read_token, 1 << 20)).encode()
    sources = ["127.0.0.%d" % n for n in range(10, 14)]
    run_for(15, lambda stop, n: slow_sender(port, [sources[n % 4]], head, b"{", statuses, stop), 256)
    if "held to the end" in statuses:
        fail("slow read-only queries held their slots: %s" % summary(statuses))
    log("256 slow read-only queries from 4 addresses for 15 s: %s" % summary(statuses))


def summary(statuses):
    counts = {}
    for status in statuses:
        counts[str(status)] = counts.get(str(status), 0) + 1
    return ", ".join("%s x%d" % (status, count) for status, count in sorted(counts.items()))


def attack_amplification(port, token, server):
    """Issue 49, 3: documents of tiny values (15-30 times their size once parsed): the server
    counts what the parse takes as the bytes arrive, and refuses what would not fit."""
    def push(megabytes, store, statuses):
        origin = str(uuid.uuid4())
        elements = (megabytes << 20) // 7
        doc = {"a": [{"": 0}] * elements}
        change = signed_change(origin, 1, "0" * 64, "Amp", "a", doc, {origin: 1})
        body = json.dumps({"changes": [change]}, separators=(",", ":")).encode()
        try:
            sock = connect(port, "127.0.0.14", timeout=30)
            sock.sendall(("POST /v1/stores/%s/push HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
                          "Content-Length: %d\r\n\r\n" % (store, token, len(body))).encode())
            try:
                sock.sendall(body)
            except OSError:
                pass  # refused while sending
            statuses.append(status_of(sock))
            sock.close()
        except OSError as error:
            statuses.append(type(error).__name__)

    before = server.peak_mb
    server.peak_mb = 0.0
    statuses = []
    push(40, "amp-big", statuses)
    threads = [threading.Thread(target=push, args=(20, "amp-%d" % n, statuses)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    peak = server.peak_mb
    server.peak_mb = max(before, peak)
    if any(status not in (400, 413, 503) for status in statuses):
        fail("amplifying pushes got %s, not 400/413/503" % statuses)
    log("amplifying pushes (40 MiB, 3 x 20 MiB): %s, server peak %.0f MB meanwhile" % (statuses, peak))


def attack_silent_from_many(port):
    """Issue 49, 4: 500 silent sockets from 10 addresses (under the per-address cap)."""
    def one(stop, n):
        source = "127.0.0.%d" % (20 + n % 10)
        while time.monotonic() < stop:
            try:
                sock = connect(port, source, timeout=3)
                sock.recv(1)
                sock.close()
            except OSError:
                time.sleep(0.05)

    run_for(10, one, 500)
    log("500 silent sockets from 10 addresses for 10 s: done")


def attack_slowloris_from_many(port):
    def one(stop, n):
        source = "127.0.0.%d" % (30 + n % 8)
        while time.monotonic() < stop:
            try:
                sock = connect(port, source, timeout=3)
                for byte in b"GET /v1/stores/normal HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100:
                    if time.monotonic() > stop:
                        break
                    sock.sendall(bytes([byte]))
                    time.sleep(1)
                sock.close()
            except OSError:
                time.sleep(0.05)

    run_for(10, one, 256)
    log("256 slowloris connections from 8 addresses for 10 s: done")


def check_secrets(work):
    """Issue 49, 6: a token given with --token is not in the argv of the process that syncs
    (ferry hands the sync to ferry-remote); credentials in an s3:// URL are never echoed."""
    store = os.path.join(work, "secrets")
    subprocess.run([FERRY, "init", store], check=True, stdout=subprocess.DEVNULL)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(30)
    secret = "tok-" + uuid.uuid4().hex
    sync = subprocess.Popen([FERRY, "sync", store, "http://127.0.0.1:%d/x" % listener.getsockname()[1], "--token", secret],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        accepted, _ = listener.accept()  # the helper is running and waits for an answer
        seen = []
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    with open("/proc/%s/cmdline" % pid, "rb") as cmdline:
                        if secret.encode() in cmdline.read():
                            seen.append(pid)
                except OSError:
                    pass
        if seen:
            fail("the token is in the argv of process(es) %s" % seen)
        log("a sync waiting on a server: the token is in no process's argv")
        accepted.close()
    except socket.timeout:
        fail("the sync never reached the server")
    finally:
        sync.kill()
        sync.wait()
        listener.close()
    result = subprocess.run([FERRY, "sync", store, "s3://AKIAEXAMPLE:s3cr3tXYZ@bucket/notes"], capture_output=True, text=True)
    if result.returncode == 0 or "s3cr3tXYZ" in result.stderr + result.stdout or "AWS_SECRET_ACCESS_KEY" not in result.stderr:
        fail("s3 credentials in a URL: exit %d, %r" % (result.returncode, result.stderr))
    log("s3 credentials in a URL: refused, not echoed")


def checkpoint_files(peers):
    """The checkpoints in a peers folder; a temporary file that a concurrent sync is about to
    rename into place (`.tmp-<peer>.json-<pid>`) is not one."""
    return {name for name in os.listdir(peers) if name.endswith(".json") and not name.startswith(".")}


def attack_checkpoints(port, read_token, stores_root):
    peers = os.path.join(stores_root, "normal", ".ferry", "peers")
    before = checkpoint_files(peers)
    statuses = set()
    attackers = set()
    for n in range(300):
        replica = str(uuid.uuid4())
        attackers.add(replica + ".json")
        body = json.dumps({"peer": replica, "peerPosition": 0, "peerHash": "0" * 64, "localPosition": 0,
                           "localHash": "0" * 64, "time": "2026-11-24T00:00:00.000Z", "peerName": "alice-laptop"})
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=("127.0.0.6", 0))
        connection.request("PUT", "/v1/stores/normal/checkpoints/" + replica, body=body,
                           headers={"Authorization": "Bearer " + read_token, "Content-Type": "application/json"})
        statuses.add(connection.getresponse().status)
        connection.close()
    after = checkpoint_files(peers)
    planted = after & attackers
    # The normal client syncs meanwhile and may add its own checkpoint, never remove one.
    if statuses != {403} or planted or not before <= after:
        fail("read-token checkpoints: statuses %s, files %d -> %d, %d written for the attacker's replicas"
             % (statuses, len(before), len(after), len(planted)))
    log("300 read-token checkpoints: %s, checkpoint files %d -> %d, none for the attacker's replicas"
        % (sorted(statuses), len(before), len(after)))


def attack_planted_counter(port, token):
    origin = str(uuid.uuid4())
    change = signed_change(origin, 1000, "0" * 64, "Note", "planted", {"x": 1}, {origin: 1000})
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("POST", "/v1/stores/normal/push", body=json.dumps({"changes": [change]}),
                       headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    response = connection.getresponse()
    text = response.read().decode()
    if response.status != 422 or "in order" not in text:
        fail("a planted counter got %d: %s" % (response.status, text))
    log("planted change 1000: %d" % response.status)


def attack_many_stores(port, token):
    statuses = {}
    for n in range(600):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("POST", "/v1/stores/many-%d/push" % n, body='{"changes":[]}',
                           headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
        status = connection.getresponse().status
        statuses[status] = statuses.get(status, 0) + 1
        connection.close()
    if set(statuses) != {201}:
        fail("creating 600 stores: %s" % statuses)
    log("600 new stores under a 1,024 open-file limit: %s" % statuses)


def main():
    work = tempfile.mkdtemp(prefix="ferry-attack-")
    stores = os.path.join(work, "stores")
    os.makedirs(stores)
    token, read_token = uuid.uuid4().hex * 2, uuid.uuid4().hex * 2
    tokens = os.path.join(work, "tokens.json")
    with open(tokens, "w") as handle:
        json.dump({"tokens": [{"token": token, "stores": ["*"], "access": "read-write"},
                              {"token": read_token, "stores": ["*"], "access": "read"}]}, handle)
    server = Server(stores, tokens)
    normal = None
    try:
        normal = NormalClient(work, server.port, token)
        time.sleep(2)
        started = time.monotonic()
        attack_anonymous_bodies(server.port)
        log_before = os.path.getsize(server.log_path)
        flood_started = time.monotonic()
        attack_silent_sockets(server.port)
        flood_seconds = time.monotonic() - flood_started
        # Only the lines about the attacker's address (127.0.0.3) count: the normal client's
        # requests are logged too, one line each, and its rate varies from run to run.
        with open(server.log_path, "rb") as handle:
            handle.seek(log_before)
            grown = handle.read()
        flood_bytes = sum(len(line) + 1 for line in grown.split(b"\n") if b"127.0.0.3:" in line)
        log("the log grew by %d bytes (%d about the attacker) in %.0f s of reconnecting silent sockets"
            % (len(grown), flood_bytes, flood_seconds))
        if flood_bytes > 2000 * (flood_seconds + 1):
            fail("300 reconnecting silent sockets wrote %d bytes of log in %.0f s" % (flood_bytes, flood_seconds))
        attack_slowloris(server.port)
        attack_read_floods(server.port, read_token)
        attack_push_floods(server.port, token)
        attack_checkpoints(server.port, read_token, stores)
        attack_planted_counter(server.port, token)
        attack_many_stores(server.port, token)
        attack_slow_bodies(server.port, token)
        attack_slow_reads(server.port, read_token)
        attack_amplification(server.port, token, server)
        attack_silent_from_many(server.port)
        attack_slowloris_from_many(server.port)
        check_secrets(work)
        time.sleep(1)
        attacks_ended = time.monotonic()
        # A minute after the attacks (the normal client still at work), memory has gone back.
        while time.monotonic() < attacks_ended + 60:
            time.sleep(1)
        after_mb = server.rss_mb()
        normal.stop()
        log("attacks took %.0f s" % (time.monotonic() - started))
        timings = sorted(normal.timings)
        p99 = timings[int(len(timings) * 0.99) - 1] if timings else float("inf")
        log("normal client: %d requests, %d errors, p99 %.3f s, slowest %.3f s; server peak memory %.0f MB, "
            "%.0f MB a minute after the attacks"
            % (len(timings), len(normal.errors), p99, timings[-1] if timings else 0, server.peak_mb, after_mb))
        if after_mb >= AFTER_MEMORY_LIMIT_MB:
            fail("the server still held %.0f MB a minute after the attacks (limit %d MB)" % (after_mb, AFTER_MEMORY_LIMIT_MB))
        if normal.errors:
            fail("the normal client's requests failed: %s" % normal.errors[:5])
        if p99 >= P99_LIMIT:
            fail("the normal client's p99 was %.3f s (limit %.1f s)" % (p99, P99_LIMIT))
        if server.peak_mb >= MEMORY_LIMIT_MB:
            fail("the server's memory peaked at %.0f MB (limit %d MB)" % (server.peak_mb, MEMORY_LIMIT_MB))
    finally:
        if normal:
            normal.running = False
        server.stop()
    bad = []
    for name in sorted(os.listdir(stores)):
        result = subprocess.run([FERRY, "verify", os.path.join(stores, name)], capture_output=True, text=True)
        if result.returncode != 0:
            bad.append("%s: %s" % (name, (result.stdout + result.stderr).strip().splitlines()[-1:]))
    if bad:
        fail("stores that do not verify: %s" % bad[:5])
    log("%d stores verified" % (len(os.listdir(stores)) - len(bad)))
    shutil.rmtree(work, ignore_errors=True)
    if failures:
        log("%d failure(s)" % len(failures))
        return 1
    log("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
