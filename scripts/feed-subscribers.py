#!/usr/bin/env python3
"""What idle change-feed subscribers cost `ferry serve` (issue 50, item 3).

Starts `ferry serve` on a temporary root with one store, opens N subscribers to its feed
(`GET /v1/stores/alice/feed`), waits until every one has its response head, then measures the
server's CPU over a window (from /proc/<pid>/stat) and its resident memory (VmRSS), and checks
that one commit still reaches a sample of them. Linux only.

    swift build -c release
    scripts/feed-subscribers.py --ferry .build/release/ferry --subscribers 10000 --seconds 10
"""
import argparse, os, resource, selectors, socket, subprocess, sys, tempfile, time


def raise_open_files(wanted):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, wanted)), hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def status(pid, key):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key + ":"):
            return line.split(":", 1)[1].strip()
    return "?"


def subscribe(port, token):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(f"GET /v1/stores/alice/feed HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
              "Accept: text/event-stream\r\n\r\n".encode())
    return s


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ferry", default=".build/release/ferry")
    parser.add_argument("--subscribers", type=int, default=10000)
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    limit = raise_open_files(args.subscribers + 1024)
    if limit < args.subscribers + 64:
        sys.exit(f"error: the open-file limit ({limit}) is too low for {args.subscribers} subscribers")
    root = tempfile.mkdtemp(prefix="ferry-feed-bench")
    token = os.urandom(32).hex()
    env = dict(os.environ, FERRY_TOKEN=token)
    os.makedirs(f"{root}/served")
    serve = subprocess.Popen([args.ferry, "serve", f"{root}/served", "--port", "0"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        port = None
        for line in serve.stdout:
            if "http://127.0.0.1:" in line:
                port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
                break
        subprocess.run([args.ferry, "init", f"{root}/a"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([args.ferry, "put", f"{root}/a", "Note", "n1", "--json", '{"n": 1}'], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([args.ferry, "sync", f"{root}/a", f"http://127.0.0.1:{port}/alice"], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        threads_before = int(status(serve.pid, "Threads"))
        started = time.monotonic()
        sockets, heads = [], selectors.DefaultSelector()
        pending = 0

        def read_heads(until):
            nonlocal pending
            while pending > until:
                for key, _ in heads.select(timeout=30) or exit("error: the server stopped answering subscriptions"):
                    key.data.append(key.fileobj.recv(4096))
                    got = b"".join(key.data)
                    if b"\r\n\r\n" in got:
                        if not got.startswith(b"HTTP/1.1 200"):
                            exit(f"error: a subscription was answered {got.splitlines()[0]!r}")
                        heads.unregister(key.fileobj)
                        pending -= 1

        # In waves: the server takes 64 connections at a time from one address, and a
        # subscription's connection counts until its handshake thread hands the socket to the
        # feed, a moment after the head was sent; with 48 waiting, those not yet handed over
        # made a 65th now and then (503 "too many connections from this address").
        for _ in range(args.subscribers):
            s = subscribe(port, token)
            sockets.append(s)
            heads.register(s, selectors.EVENT_READ, [])
            pending += 1
            read_heads(16)
        read_heads(0)
        subscribed = time.monotonic() - started
        time.sleep(4)  # the handshakes' handler threads end after 3 idle seconds
        cpu0, t0 = cpu_seconds(serve.pid), time.monotonic()
        time.sleep(args.seconds)
        cpu1, t1 = cpu_seconds(serve.pid), time.monotonic()
        cpu = 100 * (cpu1 - cpu0) / (t1 - t0)
        rss = status(serve.pid, "VmRSS")
        threads = int(status(serve.pid, "Threads"))
        # A commit still reaches them: the first 100 hear of it.
        subprocess.run([args.ferry, "put", f"{root}/a", "Note", "n2", "--json", '{"n": 2}'], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([args.ferry, "sync", f"{root}/a", f"http://127.0.0.1:{port}/alice"], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        heard = 0
        for s in sockets[:100]:
            s.settimeout(10)
            data = b""
            while b"event: changes" not in data:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
            heard += b"event: changes" in data
        print(f"{args.subscribers} idle subscribers (subscribed in {subscribed:.1f} s): "
              f"server CPU {cpu:.2f}% of a core over {t1 - t0:.0f} s, RSS {rss}, "
              f"threads {threads} ({threads_before} before), a commit heard by {heard}/100")
    finally:
        serve.terminate()
        serve.wait()


if __name__ == "__main__":
    main()
