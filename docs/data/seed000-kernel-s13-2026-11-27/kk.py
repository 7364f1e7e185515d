#!/usr/bin/env python3
"""Kernel old vs kernel new, same run index and seed, per cell: the emulator's change
(and the load) without the simulator. usage: kk.py OLD_REJUDGED NEW_REJUDGED"""
import json, sys, math, collections
def runs(p):
    k = json.load(open(p)); out = {}
    for c in k['cells']:
        if c['status'] != 'ran': continue
        for r in c['metrics'][0]['runs']:
            if r['kernel'] is not None:
                out[(c['experiment'], c['point'], r['run'])] = (r['kernel'], r.get('seed'))
    return out
o, n = runs(sys.argv[1]), runs(sys.argv[2])
groups = collections.defaultdict(list)
for key in sorted(set(o) & set(n)):
    (ko, so), (kn, sn) = o[key], n[key]
    if so is not None and sn is not None and so != sn:
        print('SEED MISMATCH', key); continue
    exp = key[0].split('/')[1]
    kind = exp.split('-')[0] if not exp.startswith('nornet') else 'nornet-' + exp.split('-')[1]
    bg = 'bg' if 'enabled=true' in key[1] else 'nobg'
    path = ('3g' if ('3g3g' in exp or ('wlan3g' in exp and 'path=2' in key[1])) else 'wlan')
    groups[(kind.replace('nornet-',''), path, bg)].append(math.log(kn / ko))
    if '-v' in sys.argv: print(key, round(ko,1), round(kn,1), round(kn/ko,3))
print('group (app, path, background): n, geo-mean new/old, new slower in, mean |log|')
allv = []
for g in sorted(groups):
    v = groups[g]; allv += v
    print(g, len(v), f'x{math.exp(sum(v)/len(v)):.3f}', sum(1 for x in v if x > 0), f'{sum(abs(x) for x in v)/len(v):.3f}')
print('all', len(allv), f'x{math.exp(sum(allv)/len(allv)):.3f}', sum(1 for x in allv if x > 0))
