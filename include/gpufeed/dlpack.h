/* Handing gpufeed's memory to a framework without a copy: DLPack, the
 * exchange format PyTorch (torch.from_dlpack), NumPy (np.from_dlpack),
 * CuPy and JAX read (https://dmlc.github.io/dlpack/latest/c_api.html).
 *
 * The structs below have the layout of dlpack.h's DLManagedTensor (ABI of
 * DLPack 0.8, the "dltensor" capsule every consumer takes), under gpufeed's
 * own names so a program may also include dlpack.h.  A tensor keeps its
 * memory alive: gf_buf_free / gf_devbuf_free give up the owner's share,
 * and the memory goes when the last tensor's deleter has run too.
 *
 *     struct gf_dl_managed_tensor *t;
 *     int64_t shape[2] = { 256, 1024 };
 *     gf_buf_dlpack(buf, 0, GF_DL_DTYPE(GF_DL_FLOAT, 32), 2, shape, &t);
 *     // hand t to a consumer (a PyCapsule named "dltensor"); it calls
 *     // t->deleter(t) when done
 */
#ifndef GPUFEED_DLPACK_H
#define GPUFEED_DLPACK_H

#include <stddef.h>
#include <stdint.h>
#include <gpufeed/buf.h>
#include <gpufeed/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* DLDeviceType */
enum { GF_DL_CPU = 1, GF_DL_CUDA = 2, GF_DL_CUDA_HOST = 3 };
/* DLDataTypeCode */
enum { GF_DL_INT = 0, GF_DL_UINT = 1, GF_DL_FLOAT = 2, GF_DL_BFLOAT = 4 };

struct gf_dl_device {
	int32_t device_type;		/* GF_DL_CPU, GF_DL_CUDA, GF_DL_CUDA_HOST */
	int32_t device_id;		/* the CUDA ordinal for GF_DL_CUDA, else 0 */
};
struct gf_dl_dtype {
	uint8_t code;			/* GF_DL_INT ... */
	uint8_t bits;			/* 8, 16, 32, 64 */
	uint16_t lanes;			/* 1 */
};
#define GF_DL_DTYPE(code, bits) ((struct gf_dl_dtype){ (code), (bits), 1 })

struct gf_dl_tensor {
	void *data;			/* the buffer's start (byte_offset past it) */
	struct gf_dl_device device;
	int32_t ndim;
	struct gf_dl_dtype dtype;
	int64_t *shape;
	int64_t *strides;		/* NULL: compact, row-major */
	uint64_t byte_offset;
};
struct gf_dl_managed_tensor {
	struct gf_dl_tensor dl_tensor;
	void *manager_ctx;
	void (*deleter)(struct gf_dl_managed_tensor *self);
};

#define GF_DL_NDIM_MAX 8

/* A tensor of dtype and shape (ndim from 1 to GF_DL_NDIM_MAX, every extent
 * > 0) viewing the buffer from offset, which must hold it.  Host memory is
 * GF_DL_CPU, pinned or not (PyTorch refuses GF_DL_CUDA_HOST and finds
 * pinned memory pinned by itself: tensor.is_pinned()); device memory
 * GF_DL_CUDA with its CUDA ordinal.  0, or -EINVAL with a message (a shape past the
 * buffer's end, an offset not aligned to the element, a dtype that is not
 * whole bytes), -ENOMEM. */
GF_API int gf_buf_dlpack(struct gf_buf *b, size_t offset, struct gf_dl_dtype dtype, int ndim, const int64_t *shape,
			 struct gf_dl_managed_tensor **out);
GF_API int gf_devbuf_dlpack(struct gf_devbuf *d, size_t offset, struct gf_dl_dtype dtype, int ndim,
			    const int64_t *shape, struct gf_dl_managed_tensor **out);

#ifdef __cplusplus
}
#endif
#endif
