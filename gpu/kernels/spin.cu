// gf_spin: keeps one SM busy for a number of GPU clock cycles, so a test can
// tell whether copies overlap with kernels (a copy issued beside a spin on
// another stream finishes before the spin does only if they overlap).
extern "C" __global__ void gf_spin(unsigned long long cycles)
{
	long long start = clock64();

	// clock64() is volatile: the loop is not folded away.
	while ((unsigned long long)(clock64() - start) < cycles) {
	}
}
