#!/usr/bin/python3
"""Unit test of bench/peer_stats.py against a fake scx_stats server that
answers like the peers do: each request on a connection reports the interval
since the previous one. Run by `make unit-test`."""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def serve(path, replies):
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    conn, _ = srv.accept()
    f = conn.makefile("r")
    for reply in replies:
        req = json.loads(f.readline())
        assert req["req"] == "stats", req
        conn.sendall((json.dumps(reply) + "\n").encode())
    conn.close()
    srv.close()


def run_client(path, replies):
    t = threading.Thread(target=serve, args=(path, replies), daemon=True)
    # the client must wait for a server that starts late
    p = subprocess.Popen([sys.executable, os.path.join(HERE, "peer_stats.py"), path],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.7)
    t.start()
    assert p.stdout.readline().strip() == "ready"
    p.send_signal(signal.SIGUSR1)
    out, err = p.communicate(timeout=20)
    return p.returncode, out, err


def main():
    d = tempfile.mkdtemp()
    ok = {"errno": 0, "args": {"resp": {"nr_sched": 5}}}
    rc, out, err = run_client(os.path.join(d, "a"), [
        ok,
        {"errno": 0, "args": {"resp": {"nr_sched": 42, "pc_lc": 1.5, "name": "x",
                                       "flag": True, "per_dom": {"0": 1}}}},
    ])
    assert rc == 0, err
    # the second (interval) reply only, numbers only, no booleans or nested maps
    assert out.splitlines() == ["nr_sched 42", "pc_lc 1.5"], out

    rc, out, err = run_client(os.path.join(d, "b"), [ok, {"errno": 22, "args": {"resp": "bad"}}])
    assert rc == 1 and "stats request failed" in err and len(err.splitlines()) == 1, (rc, err)
    print("peer_stats: 2 tests passed")


if __name__ == "__main__":
    main()
