#!/usr/bin/env python3
"""merge2.py BASE_DIR NEW_DIR OUT_DIR: BASE's results.json (all seven schedulers) with
arbor:stock's and arbor:default's rows (raw and cells) replaced by NEW's, which ran only those two."""
import json, sys, os
base, new, out = sys.argv[1:4]
ours = ('arbor:stock', 'arbor:default')
b = json.load(open(os.path.join(base, 'results.json')))
v = json.load(open(os.path.join(new, 'results.json')))
for k in ('raw', 'cells'):
    b[k] = [r for r in b[k] if r.get('scheduler') not in ours] + [r for r in v[k] if r.get('scheduler') in ours]
b.setdefault('meta', {})
if isinstance(b['meta'], dict):
    b['meta']['assembled'] = f'arbor:stock and arbor:default from {new}, the peers from {base} (merge2.py)'
os.makedirs(out, exist_ok=True)
json.dump(b, open(os.path.join(out, 'results.json'), 'w'))
