#!/usr/bin/env python3
"""eqcmp.py NAME...: with the BPF cost set to 0, base-NAME (65504de) and d-NAME (this change)
must decide alike: every metric and counter of results.json compared, bpf:* (the cost) left out."""
import json,sys
def load(f):
    return {(r['rep'],r['scheduler'],r['workload'],r['metric']):r['value']
            for r in json.load(open(f))['raw']
            if not r['metric'].startswith('bpf:') and r['metric']!='bpf_ns_per_callback'}
for n in sys.argv[1:]:
    a=load(f'base-{n}/results.json'); b=load(f'd-{n}/results.json')
    diff=sorted(k for k in a if a[k]!=b.get(k))
    print(n, len(a), 'values;', len(diff), 'differ', '(' + ', '.join(sorted({k[3] for k in diff})) + ')' if diff else '')
