# Stream-K against persistent blocks of the same tiles (waves.json.xz):
# each pair's measured ratio against its ideal (whole waves / waves), the
# time beyond persistent time x waves / whole waves, and how a constant
# cost C orders the pairs.  python3 waves_fit.py waves.json.xz
import json, lzma, math, sys
d=json.load(lzma.open(sys.argv[1]))
G=132
rows=[]
for r in d['rows']:
    M,N,K=r['m'],r['n'],r['k']; S=math.ceil(K/64)
    v=r['variants']
    for tn in (256,192):
        p=v.get(f'p{tn}'); s=v.get(f'sk{tn}')
        if not p or not s or not p.get('ms') or not s.get('ms'): continue
        T=math.ceil(M/128)*math.ceil(N/tn); w=T/G; c=math.ceil(w)
        tp=p['ms']*1e3; ts=s['ms']*1e3
        flops=2*M*N*K
        ideal=tp*w/c
        rows.append(dict(case=f"{M}x{N}x{K} {r['dtype']}",tn=tn,T=T,w=w,c=c,S=S,tp=tp,ts=ts,ratio=tp/ts,ideal=c/w,
            rate_p=flops/tp/1e6,rate_s=flops/ts/1e6, rule=v['rule']['ms']*1e3, rk=v['rule']['knobs']))
for x in sorted(rows,key=lambda x:(x['w']-math.floor(x['w']))):
    print(f"{x['case']:24s} {x['tn']} T={x['T']:3d} w={x['w']:.2f} S={x['S']:3d} p={x['tp']:6.1f} sk={x['ts']:6.1f} meas={x['ratio']:.3f} ideal={x['ideal']:.3f} TF p={x['rate_p']:.0f} sk={x['rate_s']:.0f} rule={x['rule']:.1f} sk/rule={x['rule']/x['ts']:.3f}")
print()
import statistics
for x in sorted(rows,key=lambda x:x['S']):
    tile=x['tp']/x['c']  # one tile's time (wave)
    ov=x['ts']-x['tp']*x['w']/x['c']
    x['ov']=ov; x['ovt']=ov/tile
    print(f"{x['case']:24s} {x['tn']} w={x['w']:.2f} S={x['S']:3d} tile={tile:6.1f}us over={ov:6.1f}us over/tile={ov/tile:.3f} over/step={ov/tile*x['S']:.1f}")
print()
for C in (8,10,12,14,16):
    errs=[]; right=0; n=0; regret=[]
    for x in rows:
        pred=x['tp']*x['w']/x['c']+C
        errs.append(x['ts']/pred)
        choose_sk = pred < x['tp']
        best_sk = x['ts'] < x['tp']
        right += choose_sk==best_sk; n+=1
        got = x['ts'] if choose_sk else x['tp']
        regret.append(min(x['ts'],x['tp'])/got)
    g=math.exp(sum(map(math.log,regret))/len(regret))
    print(C, 'median meas/pred', round(statistics.median(errs),3), 'right', right, '/', n, 'geomean regret', round(g,4), 'worst', round(min(regret),3))
