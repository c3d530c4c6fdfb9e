#!/usr/bin/python3
"""A peer scheduler's own counters over one workload run, for arbor bench.

Usage: peer_stats.py [SOCKET]   (default /var/run/scx/root/stats)

The peers (bpfland, cosmos, lavd, p2dq, rusty) serve their statistics with
scx_stats: JSON requests over a unix socket, where each "stats" request on a
connection answers for the interval since the previous one. So: connect
(retrying while the scheduler starts its server), send one request to open
the interval, print "ready", sleep until SIGUSR1 (no CPU used during the
run), send a second request and print "NAME VALUE" for every numeric
top-level field: the scheduler's own figures over exactly the run.
Errors go to stderr with exit 1; the caller then just has no counters.
"""
import json
import signal
import socket
import sys
import time


def request(sock, reader):
    sock.sendall(b'{"req": "stats", "args": {}}\n')
    line = reader.readline()
    if not line:
        raise RuntimeError("the stats server closed the connection")
    resp = json.loads(line)
    if resp.get("errno", 0) != 0:
        raise RuntimeError(f"stats request failed: {resp}")
    return resp.get("args", {}).get("resp", {})


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "/var/run/scx/root/stats"
    # block SIGUSR1 before saying ready, so that an early signal waits for sigwait
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    deadline = time.monotonic() + 30
    while True:
        try:
            sock.connect(path)
            break
        except OSError as e:
            if time.monotonic() > deadline:
                raise RuntimeError(f"cannot connect to {path}: {e}")
            time.sleep(0.5)
    sock.settimeout(30)
    reader = sock.makefile("r")
    request(sock, reader)
    print("ready", flush=True)
    signal.sigwait([signal.SIGUSR1])
    stats = request(sock, reader)
    if not isinstance(stats, dict):
        raise RuntimeError(f"unexpected stats reply: {stats!r}")
    for k, v in stats.items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            print(k, v)


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # one line, the bench goes on without counters
        print(f"peer_stats: {e}", file=sys.stderr)
        sys.exit(1)
