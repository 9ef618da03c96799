/* gpufeed's device code: gpu/kernels/<name>.cu, compiled to PTX (`make
 * ptx`), committed, and embedded into the library by scripts/embed-ptx.sh.
 * The driver JIT-compiles the PTX for the GPU at cuModuleLoadData. */
#ifndef GF_VENDOR_CUDA_KERNELS_H
#define GF_VENDOR_CUDA_KERNELS_H

#include <stddef.h>
#include "vendor/cuda/cuda.h"

struct gf_ptx_image {
	const char *name;	/* "copy": gpu/kernels/copy.ptx */
	const char *text;	/* NUL-terminated PTX */
	size_t len;		/* without the NUL */
};

/* The embedded images (generated: $(BUILD)/gen/ptx_images.c). */
extern const struct gf_ptx_image gf_ptx_images[];
extern const int gf_ptx_nimages;

/* The image called name, or NULL. */
const struct gf_ptx_image *gf_ptx_find(const char *name);

/* A loaded kernel: its module and function, in the current context. */
struct gf_cuda_kernel {
	gf_cu_module module;
	gf_cu_function fn;
};

/* Loads image `image` into the current context and looks up `entry`
 * ("gf_copy" from image "copy").  -ENOENT for an unknown image or entry;
 * a PTX newer than the driver is -ENOSYS "... (the PTX needs a newer
 * driver: ...)". */
int gf_cuda_kernel_load(const struct gf_cuda_ops *ops, const char *image, const char *entry,
			struct gf_cuda_kernel *k);
void gf_cuda_kernel_unload(const struct gf_cuda_ops *ops, struct gf_cuda_kernel *k);

#endif
