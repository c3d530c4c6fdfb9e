#!/usr/bin/env python3
"""merge.py BASE_DIR VARIANT_DIR OUT_DIR [NAME]: BASE's results.json with
arbor:default's rows replaced by VARIANT's arbor:default (all runs)."""
import json, sys, os
base, var, out = sys.argv[1:4]
name = sys.argv[4] if len(sys.argv) > 4 else 'arbor:default'
b = json.load(open(os.path.join(base, 'results.json')))
v = json.load(open(os.path.join(var, 'results.json')))
for k in ('raw', 'cells'):
    b[k] = [r for r in b[k] if r.get('scheduler') != 'arbor:default'] + \
           [dict(r, scheduler='arbor:default') for r in v[k] if r.get('scheduler') == name]
os.makedirs(out, exist_ok=True)
json.dump(b, open(os.path.join(out, 'results.json'), 'w'))
