import csv,statistics as st,json,sys,collections
O=sys.argv[1]
K=[37.697969,104.441541,89.630412,80.31084,43.493046,56.402945,168.074735,784.93834,63.296616,44.779327,65.631825,138.170084,37.830993,209.731821,93.404466,614.585021,352.577437,77.658296,378.912068,73.303684]
ph=[0,250,500,750,1000,1250,1500,1750,2000,2250,2500,2750,3000,3250,3500,3750]
per=collections.defaultdict(list); meds=[]
for p in ph:
    m=collections.defaultdict(list)
    for r in csv.DictReader(open(f'{O}/p{p}/messages.csv')):
        if r['completed']=='true': m[int(r['run'])].append(float(r['delay_ms']))
    mm=[st.median(m[k]) for k in range(20)]
    for k in range(20): per[k].append(mm[k])
    meds.append(st.median(mm))
print('20-run medians over phases:', [round(x,1) for x in meds])
print('kernel 20-run median', round(st.median(K),1))
below=0; ranks=[]
for k in range(20):
    v=sorted(per[k]); r=sum(1 for x in v if x<K[k])+0.5*sum(1 for x in v if x==K[k])
    ranks.append(r/len(v))
    print(k,'kernel %.1f'%K[k],'sim over phases min %.1f med %.1f max %.1f'%(v[0],st.median(v),v[-1]),'kernel rank %.2f'%(r/len(v)))
print('mean rank of kernel within phase spread: %.3f'%(sum(ranks)/20), 'runs with rank<0.5:',sum(1 for r in ranks if r<0.5))
