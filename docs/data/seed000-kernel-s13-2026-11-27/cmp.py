#!/usr/bin/env python3
"""Per-cell comparison of two re-judged kernel.json files (old -> new).
usage: cmp.py OLD NEW [CSV]"""
import json, sys, csv

def cells(p):
    k = json.load(open(p))
    out = {}
    for c in k['cells']:
        if c['status'] != 'ran':
            continue
        m = c['metrics'][0]
        out[(c['experiment'], c['point'])] = dict(
            verdict=c['verdict'], ratio=m['ratio'], diff=m.get('diff'),
            n=m['kernel']['n'], kmed=m['kernel']['median'], smed=m['sim']['median'],
            runs=[(r['run'], r['kernel'], r['sim'], r['ratio']) for r in m['runs']],
            note=c.get('note'))
    return out

old, new = cells(sys.argv[1]), cells(sys.argv[2])
rows = []
for key in sorted(set(old) | set(new)):
    o, n = old.get(key), new.get(key)
    rows.append((key, o, n))
agree_o = sum(1 for _, o, _ in rows if o and o['verdict'] == 'agree')
agree_n = sum(1 for _, _, n in rows if n and n['verdict'] == 'agree')
print(f'old agree {agree_o} of {len(old)}; new agree {agree_n} of {len(new)}')
def f(x):
    return '' if x is None else f'{x:.3f}'
w = csv.writer(open(sys.argv[3], 'w', newline='')) if len(sys.argv) > 3 else None
if w:
    w.writerow(['experiment', 'point', 'old_kernel_runs', 'old_kernel_median', 'old_sim_median', 'old_ratio', 'old_verdict',
                'new_kernel_runs', 'new_kernel_median', 'new_sim_median', 'new_ratio', 'new_verdict', 'new_per_run_ratios'])
for key, o, n in rows:
    if w:
        w.writerow([key[0], key[1],
                    o and o['n'], o and f(o['kmed']), o and f(o['smed']), o and f(o['ratio']), o and o['verdict'],
                    n and n['n'], n and f(n['kmed']), n and f(n['smed']), n and f(n['ratio']), n and n['verdict'],
                    n and ' '.join(f(r[3]) if r[3] else 'NA' for r in n['runs'])])
    if (o and o['verdict'] != 'agree') or (n and n['verdict'] != 'agree') or '-v' in sys.argv:
        print(key[0].replace('seed000/', '').replace('seed003/', '').replace('seed002/', ''), key[1],
              '|', o and (o['verdict'], f(o['ratio']), o['n']), '->', n and (n['verdict'], f(n['ratio']), n['n'],
              [round(r[3], 2) if r[3] else None for r in n['runs']]))
