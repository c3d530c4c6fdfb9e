# VM (arbor bench, 2s2c2t TCG) vs sim (2s2c2t): migrations per run of the
# fixed-work workloads, bpfland against arbor:default.
import json, statistics as st, sys
def per_rep(path, sched, wl, f):
    r = json.load(open(path))['raw']
    reps = {}
    for x in r:
        if x['scheduler'] == sched and x['workload'] == wl:
            reps.setdefault(x['rep'], {})[x['metric']] = x['value']
    vals = [f(m) for m in reps.values()]
    vals = [v for v in vals if v is not None]
    return st.mean(vals) if vals else None
vm_mig = lambda m: m['migr_per_s'] * m['wall_s'] if 'migr_per_s' in m and 'wall_s' in m else None
sim_mig = lambda m: sum(m.get(k, 0) for k in ['mig_smt_per_kwake', 'mig_llc_per_kwake', 'mig_xllc_per_kwake', 'mig_xnode_per_kwake']) * m['wakeups'] / 1000
sim_rate = lambda k: (lambda m: m[k])
wls = ['hackbench:g=2,l=100', 'perf-messaging:g=2,l=50,mode=thread', 'perf-pipe:l=5000']
sim = sys.argv[1]
print('| workload | VM default: bpfland / arbor:default migrations per run | VM default-2: same | sim 2s2c2t: same | sim per 1000 wake-ups, arbor:default (smt / llc / xnode) | sim per 1000 wake-ups, bpfland (smt / llc / xnode) |')
print('|---|---|---|---|---|---|')
for wl in wls:
    row = [f'`{wl}`']
    for vm in ['docs/results/2026-11-22-default/results.json', 'docs/results/2026-11-22-default-2/results.json']:
        a = per_rep(vm, 'arbor:default', wl, vm_mig); b = per_rep(vm, 'bpfland', wl, vm_mig)
        row.append(f'{b:.0f} / {a:.0f} = {b/a:.2f}')
    a = per_rep(sim, 'arbor:default', wl, sim_mig); b = per_rep(sim, 'bpfland', wl, sim_mig)
    row.append(f'{b:.0f} / {a:.0f} = {b/a:.2f}')
    for s in ['arbor:default', 'bpfland']:
        v = [per_rep(sim, s, wl, sim_rate(k)) for k in ['mig_smt_per_kwake', 'mig_llc_per_kwake', 'mig_xnode_per_kwake']]
        row.append(' / '.join(f'{x:.1f}' for x in v))
    print('| ' + ' | '.join(row) + ' |')
