#!/usr/bin/env bash
# Asymmetric capacity on three hand-made machines (machines.sh writes them):
# a 4+4 hybrid laptop, a 4+2+2 phone, a 72-core one-LLC ARM server. The
# verdict's six workloads, 5 runs from seed 1. On the asymmetric two: stock,
# default and seeds; stock without the kernel's two asymmetric mechanisms
# (stock before this study) and without misfit; default with seed 004's
# wake_cap (default before, with its fixed pick); cosmos. On the server:
# stock, default, seeds, cosmos. summary.json gathers the three summaries.
# commit: see summary.json's git history; results.json records meta.commit
. "$(dirname "$0")/../lib.sh"
A=${BIN:-$A}
W="-w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench"
bash docs/findings/2026-12-06-asym-capacity/machines.sh "$OUT/machines"
S="-s arbor:stock -s arbor:default -s arbor:seeds"
MECH="-s arbor:stock:NO_ASYM_IDLE_CAPACITY,NO_ASYM_MISFIT -s arbor:stock:NO_ASYM_MISFIT -s arbor:default:ASYM_WAKE_CAP"
for m in laptop phone; do
	nice -n 10 $A sim --topology-from "$OUT/machines/$m" $S $MECH -s cosmos $W -r 5 --seed 1 \
		--no-charts --out "$OUT/$m" > "$OUT/$m.log" 2>&1
done
nice -n 10 $A sim --topology-from "$OUT/machines/arm72" $S -s cosmos $W -r 5 --seed 1 \
	--no-charts --out "$OUT/arm72" > "$OUT/arm72.log" 2>&1
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
# the machines' directory is named OUT, so that a rerun elsewhere compares equal
s = {m: json.loads(open(f"{out}/{m}/summary.json").read().replace(out, "OUT"))
     for m in ("laptop", "phone", "arm72")}
with open(f"{out}/summary.json", "w") as f:
    json.dump(s, f, indent=1, sort_keys=True)
    f.write("\n")
PY
