// gf_chase: latency by dependent loads.  The chain is device pointers, each
// word holding the address of the next (the host builds it in a random
// order over a buffer larger than the caches), so every load waits for the
// one before.  One thread: the figure is latency, not bandwidth.
// __ldcg caches in L2 only (not L1), so over a peer's memory every step
// crosses the link unless the line is still in this GPU's L2.
extern "C" __global__ void gf_chase(const unsigned long long *start, unsigned long long steps,
				    unsigned long long *out)
{
	const unsigned long long *p = start;

	for (unsigned long long i = 0; i < steps; i++)
		p = (const unsigned long long *)__ldcg(p);
	// Stored so the chain cannot be optimised out; the host may check it.
	*out = (unsigned long long)p;
}
