/* Loading the embedded PTX (see cuda_kernels.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "vendor/cuda/cuda_device.h"
#include "vendor/cuda/cuda_kernels.h"

const struct gf_ptx_image *gf_ptx_find(const char *name)
{
	for (int i = 0; i < gf_ptx_nimages; i++)
		if (!strcmp(gf_ptx_images[i].name, name))
			return &gf_ptx_images[i];
	return NULL;
}

/* The ".version 9.0" line of a PTX text, for the message when the driver
 * is older than the compiler that wrote it. */
static void ptx_version(const char *text, char *out, size_t size)
{
	const char *v = strstr(text, ".version ");

	snprintf(out, size, "%.*s", v ? (int)strcspn(v + 9, "\n") : 1, v ? v + 9 : "?");
}

int gf_cuda_kernel_load(const struct gf_cuda_ops *ops, const char *image, const char *entry,
			struct gf_cuda_kernel *k)
{
	const struct gf_ptx_image *img = gf_ptx_find(image);
	char what[96], ver[16];
	gf_cu_result r;
	int ret;

	memset(k, 0, sizeof(*k));
	if (!img)
		return gf_error(-ENOENT, "no PTX image '%s' in this build", image);
	r = ops->module_load_data(&k->module, img->text);
	if (r == GF_CUDA_ERROR_UNSUPPORTED_PTX_VERSION || r == GF_CUDA_ERROR_INVALID_PTX) {
		ptx_version(img->text, ver, sizeof(ver));
		return gf_error(gf_cuda_errno(r), "cuModuleLoadData %s.ptx: %s (PTX ISA %s: the driver must be "
				"as new as the nvcc that wrote it)", image, gf_cuda_strerror(ops, r), ver);
	}
	snprintf(what, sizeof(what), "cuModuleLoadData %s.ptx", image);
	ret = gf_cuda_check(ops, r, what);
	if (ret)
		return ret;
	snprintf(what, sizeof(what), "cuModuleGetFunction %s", entry);
	ret = gf_cuda_check(ops, ops->module_get_function(&k->fn, k->module, entry), what);
	if (ret)
		gf_cuda_kernel_unload(ops, k);
	return ret;
}

void gf_cuda_kernel_unload(const struct gf_cuda_ops *ops, struct gf_cuda_kernel *k)
{
	if (k->module)
		ops->module_unload(k->module);
	k->module = NULL;
	k->fn = NULL;
}
