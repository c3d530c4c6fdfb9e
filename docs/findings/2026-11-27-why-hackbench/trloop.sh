#!/bin/bash
# usage: trloop.sh TOPO WORKLOAD SEEDS SCHED...
topo=$1; w=$2; seeds=$3; shift 3
mkdir -p traces
for s in "$@"; do for seed in $seeds; do
  n=$(echo "$topo-$w-$s-$seed" | tr ':,=' '___')
  [ -f traces/$n.json ] || nice -n 10 ./arbor sim -t $topo -s $s -w $w -r 1 --seed $seed --trace traces/$n.json > /dev/null 2>&1
  python3 - traces/$n.json "$s" $seed <<'PY'
import json, sys, collections
f, s, seed = sys.argv[1:]
X = [e for e in json.load(open(f))['traceEvents'] if e['ph']=='X']
ncpu = len(set(e['tid'] for e in X))
end = max(e['ts']+e['dur'] for e in X)
fin = collections.defaultdict(float)
for e in X: fin[e['name']] = max(fin[e['name']], e['ts']+e['dur'])
snd = sorted(v for k, v in fin.items() if 'snd' in k or 'sender' in k)
rcv = [e for e in X if not ('snd' in e['name'] or 'sender' in e['name'])]
q = lambda a, p: a[min(len(a)-1, int(len(a)*p))]
half = q(snd, .5)
busy = sum(e['dur'] for e in X)
print(f"{s:40s} seed {seed}: time {end/1e3:6.2f} ms  snd fin p10 {q(snd,.1)/1e3:5.2f} p50 {half/1e3:5.2f} max {snd[-1]/1e3:5.2f} (p10->max {(snd[-1]-q(snd,.1))/1e3:4.2f})  rcv segs {len(rcv):5d}, after p50 snd {sum(1 for e in rcv if e['ts']>=half):5d}  busy {busy/(ncpu*end)*100:5.1f}%")
PY
done; done
