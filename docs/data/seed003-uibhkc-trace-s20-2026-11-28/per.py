import csv,sys,collections
d=collections.defaultdict(dict); tp={}
for r in csv.DictReader(open(sys.argv[1]+'/paths.csv')):
    if r['side']!='client' or r['role']!='foreground': continue
    k='%s>%s'%(r['local_addr'].split('.')[1], r['remote_addr'].split('.')[1][-1])
    d[int(r['run'])][k]=int(r['bytes_sent'])
for r in csv.DictReader(open(sys.argv[1]+'/flows.csv')):
    if r.get('role','foreground')=='foreground': tp[int(r['run'])]=r.get('throughput_mbit')
for run in sorted(d):
    t=sum(d[run].values()); s=d[run]
    p2=(s.get('2>1',0)+s.get('2>2',0))/t
    print(run, 'tp',tp.get(run), 'share2 %.3f'%p2, ' '.join('%s %.3f'%(k,v/t) for k,v in sorted(s.items())), 'tot MB %.2f'%(t/1e6))
