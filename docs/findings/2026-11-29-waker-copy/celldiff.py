#!/usr/bin/env python3
"""celldiff.py A.json B.json: how many cells (workload, metric, scheduler) of two
`arbor sim --out` results.json differ in value; the first few that do."""
import json, sys

a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
ka = {(c['workload'], c['metric'], c['scheduler']): c['mean'] for c in a['cells']}
kb = {(c['workload'], c['metric'], c['scheduler']): c['mean'] for c in b['cells']}
common = set(ka) & set(kb)
d = [k for k in common if ka[k] != kb[k]]
print(len(common), 'cells compared,', len(d), 'differ', sorted(d)[:4])
