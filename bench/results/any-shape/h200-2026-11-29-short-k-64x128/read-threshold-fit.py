"""Which predictor separates reading misaligned rows in the kernel from
copying them, over the pairs of the same knobs in this directory's
short-k-*.json (run from the checkout's root): for each predictor, the
threshold that leaves the least geometric-mean time to the faster of each
pair, and that regret for always reading and always copying."""
import json,math
rows=[]
for f in ['bench/results/any-shape/h200-2026-11-29-short-k-64x128/short-k-read-or-copy.json','bench/results/any-shape/h200-2026-11-29-short-k-64x128/short-k-tiles.json','bench/results/any-shape/h200-2026-11-29-short-k-64x128/short-k-small-grids.json']:
    for r in json.load(open(f))['rows']: rows.append(r)
def reread(r,tm,tn):
    m,n,k=r['m'],r['n'],r['k']
    misA=k%8!=0; misB=(n%8!=0)
    return 2*((m*k*math.ceil(n/tn) if misA else 0)+(k*n*math.ceil(m/tm) if misB else 0))/1e6
pts=[]
for r in rows:
    v=r['variants']
    if r.get('weight')=='nk': continue
    for name,x in v.items():
        if name.startswith('read'):
            t=name[4:] or '64x128'; c='copy'+name[4:]
            if c in v and v[c].get('ms') and x.get('ms'):
                tm,tn=map(int,t.split('x'))
                pts.append((reread(r,tm,tn),v[c]['ms']/x['ms'],r,t))
    if 'copy' in v and v.get('rule',{}).get('launches')==1:
        k=v['rule']['knobs']; tm,tn=int(k['tile_m']),int(k['tile_n'])
        pts.append((reread(r,tm,tn),v['copy']['ms']/v['rule']['ms'],r,'%dx%d'%(tm,tn)))
def score2(f,th):
    L=[]
    for rr,ratio,r,t in pts:
        if ratio>3: continue
        tr,tc=1.0,ratio
        ch = tr if f(rr,r,t)<=th else tc
        L.append(math.log(ch/min(tr,tc)))
    return math.exp(sum(L)/len(L)), math.exp(max(L))
fs={'reread':lambda rr,r,t: rr,
    'reread/out':lambda rr,r,t: rr/(r['m']*r['n']*2/1e6),
    'reread/ksteps':lambda rr,r,t: rr/math.ceil(r['k']/64),
    'reread*ksteps':lambda rr,r,t: rr*math.ceil(r['k']/64)}
for name,f in fs.items():
    vals=sorted(set(f(rr,r,t) for rr,_,r,t in pts))
    best=min((score2(f,th),th) for th in vals)
    print(name,best, 'alwaysread',score2(f,1e18),'alwayscopy',score2(f,-1))
print(len(pts))
for th in [8,8.4,9,10]: print(th, score2(fs['reread'],th))
print("by steps")
def sc(sub,th):
    L=[]
    for rr,ratio,r,t in sub:
        if ratio>3: continue
        ch = 1.0 if rr<=th else ratio
        L.append(math.log(ch/min(1.0,ratio)))
    return math.exp(sum(L)/len(L)), len(L)
for name,cond in [('1step',lambda r:r['k']<=64),('multi',lambda r:r['k']>64)]:
    sub=[p for p in pts if cond(p[2])]
    for th in [6,8,9,10,12,15,20,30,40]:
        print(name,th,sc(sub,th))
print("combined")
for a,b in [(9,9),(9,15),(9,18),(9,20),(8,18),(10,18)]:
    L=[]
    for rr,ratio,r,t in pts:
        if ratio>3: continue
        th = b if r['k']<=64 else a
        ch = 1.0 if rr<=th else ratio
        L.append(math.log(ch/min(1.0,ratio)))
    print(a,b,math.exp(sum(L)/len(L)), math.exp(max(L)))
print("below/above 9 MB (copy time / read time):")
for name,sel in [('below',lambda rr:rr<=9),('above',lambda rr:rr>9)]:
    rs=[ratio for rr,ratio,r,t in pts if sel(rr) and ratio<3]
    print(name,len(rs),'geomean %.3f'%math.exp(sum(map(math.log,rs))/len(rs)),'min %.2f max %.2f'%(min(rs),max(rs)), 'read faster in',sum(x>1 for x in rs))
# Then with the one-step pairs of short-k-one-step.json added (306 in all,
# 305 counted: one pair whose copy ran 6x slower than its twins is left out).
for r in json.load(open('bench/results/any-shape/h200-2026-11-29-short-k-64x128/short-k-one-step.json'))['rows']:
    v=r['variants']
    pts.append((reread(r,64,128),v['copy']['ms']/v['read']['ms'],r,'64x128'))
print("one threshold, and a second for one K step (K <= 64):")
for a,b in [(9,9),(9,16),(9,24)]:
    L=[]
    for rr,ratio,r,t in pts:
        if ratio>3: continue
        ch=1.0 if rr<=(b if r['k']<=64 else a) else ratio
        L.append(math.log(ch/min(1.0,ratio)))
    print(a,b,len(L),'%.4f'%math.exp(sum(L)/len(L)))
