#!/usr/bin/env bash
# How much CPU scx_arbor's own daemon uses while wakeprobe runs,
# and what a crossbeam-style backoff (pauses + yields before a timed wait)
# costs under TCG, EEVDF vs scx_arbor. Guest side:
#   arbor vm -t 2s2c2t -- bench/daemon-cpu.sh
# ARBOR_BIN picks the scx_arbor build (default target/release/scx_arbor).
set -u
. "$(dirname "$0")/../tests/vm/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
# guest/wakeprobe.c and guest/backoff.c, as `make build` builds them
ln -s "$here/../target/guest/wakeprobe" "$ARBOR_TMP/wp" && [ -x "$ARBOR_TMP/wp" ] || { echo "make build first"; exit 1; }
ln -s "$here/../target/guest/backoff" "$ARBOR_TMP/backoff" && [ -x "$ARBOR_TMP/backoff" ] || { echo "make build first"; exit 1; }
ticks() { # utime+stime of every thread of $SPID, one line each
	local t f
	for t in /proc/$SPID/task/*; do read -r -a f <"$t/stat"; echo "  tid ${t##*/} ${f[1]} $((f[13] + f[14])) ticks"; done
}
backoff() { "$ARBOR_TMP/wp" -t 9 >/dev/null & local w=$!; nap 0.5; "$ARBOR_TMP/backoff" 0; "$ARBOR_TMP/backoff" 1; wait $w; }
echo "== EEVDF: timed waits beside wakeprobe"; backoff
start_sched -p stock || { cat "$SLOG"; exit 1; }
echo "== scx_arbor: timed waits beside wakeprobe"; backoff
echo "== scx_arbor daemon threads before a 4 s wakeprobe"; ticks
"$ARBOR_TMP/wp" -t 4
echo "== after"; ticks
perf record -q -a -F 499 -o "$ARBOR_TMP/daemon.data" -- "$ARBOR_TMP/wp" -t 4 >/dev/null 2>&1
echo "== perf, top symbols during wakeprobe"
perf report -i "$ARBOR_TMP/daemon.data" --stdio --no-children --sort comm,dso,sym 2>/dev/null | grep -v '^#' | grep -v '^$' | head -12
stop_sched
