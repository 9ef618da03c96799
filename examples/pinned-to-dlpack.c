/* Pinned host memory on a GPU's NUMA node, handed out as a DLPack tensor
 * (what torch.from_dlpack and np.from_dlpack read without a copy); the
 * tensor keeps the memory alive after the owner lets go.
 *
 *     pinned-to-dlpack [GPU]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gpufeed/gpufeed.h>

int main(int argc, char **argv)
{
	struct gf_topo_options to = GF_TOPO_OPTS_INIT;
	struct gf_buf_opts o = GF_BUF_OPTS_INIT;
	struct gf_dl_managed_tensor *t;
	int64_t shape[2] = { 256, 1024 };
	struct gf_topo *model;
	struct gf_buf *b;
	int g;

	o.gpu = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
	if (gf_topo_discover(&to, &model)) {
		fprintf(stderr, "pinned-to-dlpack: %s\n", gf_last_error());
		return 1;
	}
	/* The GPU's own node, as the model says (-1: no placement). */
	for (g = 0; g < model->ngpus && model->gpus[g].index != (int)o.gpu; g++)
		;
	o.numa_node = g < model->ngpus ? model->gpus[g].numa_node : -1;
	gf_topo_free(model);
	o.size = (size_t)shape[0] * (size_t)shape[1] * sizeof(float);
	o.flags = GF_BUF_PINNED;
	if (gf_buf_alloc(&o, &b)) {
		fprintf(stderr, "pinned-to-dlpack: %s\n", gf_last_error());
		return 4;
	}
	memset(b->data, 0, b->size);
	if (gf_buf_dlpack(b, 0, GF_DL_DTYPE(GF_DL_FLOAT, 32), 2, shape, &t)) {
		fprintf(stderr, "pinned-to-dlpack: %s\n", gf_last_error());
		gf_buf_free(b);
		return 1;
	}
	gf_buf_free(b);		/* the tensor holds it now */
	printf("tensor %lldx%lld float32 on device type %d (%s), %zu bytes pinned on node %d\n",
	       (long long)t->dl_tensor.shape[0], (long long)t->dl_tensor.shape[1], t->dl_tensor.device.device_type,
	       t->dl_tensor.device.device_type == GF_DL_CPU ? "CPU" : "other", o.size, o.numa_node);
	t->deleter(t);		/* what a consumer does when it is done */
	return 0;
}
