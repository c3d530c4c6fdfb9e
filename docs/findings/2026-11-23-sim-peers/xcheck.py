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
if sys.argv[1] == '--per-distance':
    pass
def per_run_table(sim):
    sim = sys.argv[1]
    print('| workload | VM default: bpfland / arbor:default migrations per run | VM default-2: same | sim 2s2c2t: same | sim per 1000 wake-ups, arbor:default (smt / llc / xnode) | sim per 1000 wake-ups, bpfland (smt / llc / xnode) |')
    print('|---|---|---|---|---|---|')
    for wl in wls:
        row = [f'`{wl}`']
        for vm in ['docs/findings/2026-11-22-default/results.json', 'docs/findings/2026-11-22-default-2/results.json']:
            a = per_rep(vm, 'arbor:default', wl, vm_mig); b = per_rep(vm, 'bpfland', wl, vm_mig)
            row.append(f'{b:.0f} / {a:.0f} = {b/a:.2f}')
        a = per_rep(sim, 'arbor:default', wl, sim_mig); b = per_rep(sim, 'bpfland', wl, sim_mig)
        row.append(f'{b:.0f} / {a:.0f} = {b/a:.2f}')
        for s in ['arbor:default', 'bpfland']:
            v = [per_rep(sim, s, wl, sim_rate(k)) for k in ['mig_smt_per_kwake', 'mig_llc_per_kwake', 'mig_xnode_per_kwake']]
            row.append(' / '.join(f'{x:.1f}' for x in v))
        print('| ' + ' | '.join(row) + ' |')

# Per distance (issue 14, item 4), with the VM's per-distance counts of the
# typed pipeline's default report (migr_{smt,llc,xnode}_per_s x wall_s) and
# the sim at full speed and at TCG's pace:
#   python3 xcheck.py --per-distance VM/results.json SIM_NATIVE/results.json SIM_TCG/results.json
def per_distance(vm, native, tcg):
    print('| workload | distance | VM arbor:default | VM bpfland | VM ratio | sim arbor:default | sim bpfland | sim ratio | sim ratio at TCG pace |')
    print('|---|---|---|---|---|---|---|---|---|')
    ratio = lambda a, b: f'{b / a:.2f}' if a else '-'
    for wl in wls:
        for d in ['smt', 'llc', 'xnode']:
            vmf = lambda m: m[f'migr_{d}_per_s'] * m['wall_s'] if f'migr_{d}_per_s' in m else None
            simf = lambda m: m[f'mig_{d}_per_kwake'] * m['wakeups'] / 1000
            a, b = per_rep(vm, 'arbor:default', wl, vmf), per_rep(vm, 'bpfland', wl, vmf)
            sa, sb = per_rep(native, 'arbor:default', wl, simf), per_rep(native, 'bpfland', wl, simf)
            ta, tb = per_rep(tcg, 'arbor:default', wl, simf), per_rep(tcg, 'bpfland', wl, simf)
            print(f'| `{wl}` | {d} | {a:.0f} | {b:.0f} | {ratio(a, b)} | {sa:.0f} | {sb:.0f} | {ratio(sa, sb)} | {ratio(ta, tb)} |')


# Every peer of the VM's all-schedulers default report against arbor:default,
# per distance (session 10):
#   python3 xcheck.py --per-distance-all VM/results.json SIM_NATIVE/results.json SIM_TCG/results.json
# A ratio's direction: more (> 1.1), fewer (< 0.9) or same; "agrees" when
# the VM's and the sim's (at TCG's pace) say the same.
def per_distance_all(vm, native, tcg):
    print('| peer | workload | distance | VM arbor:default | VM peer | VM ratio | sim ratio | sim ratio at TCG pace | direction (VM / sim at TCG pace) |')
    print('|---|---|---|---|---|---|---|---|---|')
    way = lambda r: '-' if r is None else ('more' if r > 1.1 else 'fewer' if r < 0.9 else 'same')
    agree = total = 0
    for peer in ['bpfland', 'cosmos', 'lavd', 'p2dq', 'rusty']:
        for wl in wls[:2]:
            for d in ['smt', 'llc', 'xnode']:
                vmf = lambda m: m[f'migr_{d}_per_s'] * m['wall_s'] if f'migr_{d}_per_s' in m else None
                simf = lambda m: m[f'mig_{d}_per_kwake'] * m['wakeups'] / 1000
                r = lambda a, b: b / a if a else None
                a, b = per_rep(vm, 'arbor:default', wl, vmf), per_rep(vm, peer, wl, vmf)
                rv = r(a, b)
                rn = r(per_rep(native, 'arbor:default', wl, simf), per_rep(native, peer, wl, simf))
                rt = r(per_rep(tcg, 'arbor:default', wl, simf), per_rep(tcg, peer, wl, simf))
                f = lambda x: '-' if x is None else f'{x:.2f}'
                ok = way(rv) == way(rt) and rv is not None and rt is not None
                total += rv is not None and rt is not None
                agree += ok
                print(f'| {peer} | `{wl}` | {d} | {a:.0f} | {b:.0f} | {f(rv)} | {f(rn)} | {f(rt)} | {way(rv)} / {way(rt)}{" (agrees)" if ok else ""} |')
    print(f'\n{agree} of {total} directions agree.')


if sys.argv[1] == '--per-distance':
    per_distance(*sys.argv[2:5])
elif sys.argv[1] == '--per-distance-all':
    per_distance_all(*sys.argv[2:5])
else:
    per_run_table(sys.argv[1])
