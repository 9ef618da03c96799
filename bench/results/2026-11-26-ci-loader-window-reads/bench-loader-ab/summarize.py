import json,glob,statistics as st
def load(f):
    s=open(f).read(); return json.loads(s[s.index('{'):])
rows=[]
for r in (1,2,3):
    io=[load(f'ab/io-{r}.json')['gb_per_s'], load(f'ab/io-{r}-end.json')['gb_per_s']]
    print(f"round {r}: bench io seq O_DIRECT {io[0]:.3f} / {io[1]:.3f} GB/s (start/end)")
    for u in ('cold4k','cold128k','warm128k'):
        line=[]
        for t in ('before','after'):
            d=load(f'ab/{t}-{u}-{r}.json'); f=d['figures']
            br=sum(x['bytes_read'] for x in d['runs'])/sum(x['bytes'] for x in d['runs'])
            line.append(f"{t} GB/s {f['gb_per_s']['samples']} cpu s/GB {f['cpu_s_per_gb']['samples']} read/deliv {br:.2f} peakRSS {d['memory']['peak_rss_bytes']>>20}MiB")
        print(f"  {u}: "+" | ".join(line))
for u in ('cold4k','cold128k','warm128k'):
    for t in ('before','after'):
        g=[];c=[]
        for r in (1,2,3):
            d=load(f'ab/{t}-{u}-{r}.json'); g+=d['figures']['gb_per_s']['samples']; c+=d['figures']['cpu_s_per_gb']['samples']
        print(f"{u} {t}: GB/s median {st.median(g):.3f} ({min(g):.3f}-{max(g):.3f}), CPU s/GB median {st.median(c):.3f} ({min(c):.3f}-{max(c):.3f}), n={len(g)}")
io=[load(f)['gb_per_s'] for f in glob.glob('ab/io-*.json')]
print(f"bench io: median {st.median(io):.3f} ({min(io):.3f}-{max(io):.3f}) n={len(io)}")
