# Summarizes ab/ (ab.sh): per round, bench io (start/end) and each arm's
# samples with its ratio to the round's bench io (mean of start and end);
# then medians (min-max) per arm over all rounds.
import json, statistics as st, sys
def load(f):
    s = open(f).read(); return json.loads(s[s.index('{'):])
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 4
arms = ('before', 'lazy', 'after')
allg = {t: [] for t in arms}; allr = {t: [] for t in arms}; allc = {t: [] for t in arms}; io_all = []
for r in range(1, rounds + 1):
    io = [load(f'ab/io-{r}.json')['gb_per_s'], load(f'ab/io-{r}-end.json')['gb_per_s']]
    io_all += io; ref = sum(io) / 2
    print(f"round {r}: bench io seq O_DIRECT {io[0]:.3f} / {io[1]:.3f} GB/s (start/end, mean {ref:.3f})")
    for t in arms:
        d = load(f'ab/{t}-cold4k-{r}.json'); f = d['figures']
        g = f['gb_per_s']['samples']; c = f['cpu_s_per_gb']['samples']
        br = sum(x['bytes_read'] for x in d['runs']) / sum(x['bytes'] for x in d['runs'])
        allg[t] += g; allc[t] += c; allr[t] += [x / ref for x in g]
        print(f"  {t:6s} GB/s {' '.join(f'{x:.3f}' for x in g)}  ratio to io {' '.join(f'{x/ref:.2f}' for x in g)}"
              f"  cpu s/GB {' '.join(f'{x:.3f}' for x in c)}  read/delivered {br:.3f}"
              f"  peak RSS {d['memory']['peak_rss_bytes'] >> 20} MiB")
print()
for t in arms:
    g, r_, c = allg[t], allr[t], allc[t]
    print(f"{t:6s}: GB/s median {st.median(g):.3f} ({min(g):.3f}-{max(g):.3f}), ratio to its round's bench io "
          f"median {st.median(r_):.2f} ({min(r_):.2f}-{max(r_):.2f}), CPU s/GB median {st.median(c):.3f} "
          f"({min(c):.3f}-{max(c):.3f}), n={len(g)}")
print(f"bench io: median {st.median(io_all):.3f} ({min(io_all):.3f}-{max(io_all):.3f}) n={len(io_all)}")
