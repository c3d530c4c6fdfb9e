#!/usr/bin/env python3
# summarise results.json dirs: key metrics per (workload, scheduler)
import json, sys
ncpu_of = {}
for path in sys.argv[1:]:
    d = json.load(open(path + '/results.json'))
    ncpu = len(d['meta']['machine']['cpus'])
    cells = {}
    for c in d['cells']:
        cells[(c['workload'], c['scheduler'], c['metric'])] = c
    print(f"== {path}  ({d['meta']['platform']}, reps {d['meta']['reps']}, cost {d['meta']['cost']['bpf_call_ns']}/{d['meta']['cost']['bpf_callback_ns']})")
    for w in [x['workload'] for x in d['workloads']]:
        print(f"-- {w}")
        print(f"{'sched':46s} {'time_ms':>8s} {'chg%±ci':>13s} {'wakes':>6s} {'busy%':>6s} {'iwq%':>5s} {'rqw_us':>7s} {'p50':>6s} {'CPUms':>6s} {'dir':>5s} {'dir_us':>6s} {'que':>5s} {'que_us':>6s} {'prmpt':>5s} {'nidle':>5s} {'ipull':>5s}")
        for s in d['schedulers']:
            s = s if isinstance(s, str) else s.get('name', str(s))
            g = lambda m: cells.get((w, s, m), {}).get('mean')
            t = cells.get((w, s, 'time_s'))
            if not t: continue
            chg = '' if t['change_pct'] is None else f"{-t['change_pct']:+.1f}±{(t['ci_pct'][1]-t['ci_pct'][0])/2:.1f}"
            busy = g('busy_pct') or 0
            cpums = busy/100*ncpu*t['mean']*1e3
            wd, wdn, wq, wqn = g('c:wake_direct'), g('c:wake_direct_ns'), g('c:wake_queued'), g('c:wake_queued_ns')
            f = lambda v, fmt='{:.0f}': '-' if v is None else fmt.format(v)
            print(f"{s:46s} {t['mean']*1e3:8.3f} {chg:>13s} {f(g('wakeups')):>6s} {busy:6.1f} {f(g('idle_while_queued_pct'),'{:.2f}'):>5s} {f(g('rq_wait_us_per_wakeup'),'{:.1f}'):>7s} {f(g('wake_p50_us'),'{:.1f}'):>6s} {cpums:6.1f} {f(wd):>5s} {f(wdn/wd/1e3 if wd else None,'{:.1f}'):>6s} {f(wq):>5s} {f(wqn/wq/1e3 if wq else None,'{:.1f}'):>6s} {f(g('c:wake_preempts')):>5s} {f(g('c:newidle_pulls')):>5s} {f(g('c:idle_pulls')):>5s}")
