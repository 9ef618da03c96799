/* CUDA devices by PCI address, cuInit's outcomes as errno, CUresult as
 * errno (see cuda_device.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/pciaddr.h"
#include "core/strutil.h"
#include "vendor/cuda/cuda_device.h"
#include "vendor/nvml/nvml.h"

int gf_cuda_errno(gf_cu_result r)
{
	switch (r) {
	case GF_CUDA_SUCCESS:
		return 0;
	case GF_CUDA_ERROR_OUT_OF_MEMORY:
		return -ENOMEM;
	case GF_CUDA_ERROR_NO_DEVICE:
	case GF_CUDA_ERROR_INVALID_DEVICE:
	case GF_CUDA_ERROR_DEVICE_UNAVAILABLE:
		return -ENODEV;
	case GF_CUDA_ERROR_INVALID_VALUE:
	case GF_CUDA_ERROR_INVALID_HANDLE:
	case GF_CUDA_ERROR_INVALID_CONTEXT:
		return -EINVAL;
	case GF_CUDA_ERROR_NOT_SUPPORTED:
	case GF_CUDA_ERROR_PEER_ACCESS_UNSUPPORTED:
		return -EOPNOTSUPP;
	case GF_CUDA_ERROR_NOT_PERMITTED:
		return -EPERM;
	case GF_CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED:
	case GF_CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED:
		return -EEXIST;
	case GF_CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED:
	case GF_CUDA_ERROR_NOT_FOUND:
		return -ENOENT;
	case GF_CUDA_ERROR_NOT_READY:
		return -EAGAIN;
	/* The driver cannot run here at all: "not available", like no library. */
	case GF_CUDA_ERROR_STUB_LIBRARY:
	case GF_CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER:
	case GF_CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
	case GF_CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
		return -ENOSYS;
	default:
		return -EIO;
	}
}

int gf_cuda_check(const struct gf_cuda_ops *ops, gf_cu_result r, const char *what)
{
	if (r == GF_CUDA_SUCCESS)
		return 0;
	return gf_error(gf_cuda_errno(r), "%s: %s", what, gf_cuda_strerror(ops, r));
}

int gf_cuda_init(const struct gf_cuda_ops **ops, int *ndev)
{
	char why[384];
	gf_cu_result r;
	int ret = gf_cuda_load(ops, why, sizeof(why));

	*ndev = 0;
	if (ret)
		return ret;	/* gf_dl_load set "CUDA not available: ..." */
	/* cuInit is cheap after the first call, and calling it each time lets
	 * a test change the stand-in's scenario between cases. */
	r = (*ops)->init(0);
	if (r == GF_CUDA_ERROR_NO_DEVICE)
		return gf_error(-ENODEV, "CUDA not available: no GPU (cuInit: %s)", gf_cuda_strerror(*ops, r));
	if (r != GF_CUDA_SUCCESS)
		return gf_error(gf_cuda_errno(r) == -EIO ? -ENODEV : gf_cuda_errno(r),
				"CUDA not available: cuInit: %s", gf_cuda_strerror(*ops, r));
	ret = gf_cuda_check(*ops, (*ops)->device_count(ndev), "cuDeviceGetCount");
	if (ret)
		return ret;
	if (*ndev <= 0)
		return gf_error(-ENODEV, "CUDA not available: no GPU (cuDeviceGetCount: 0 devices)");
	return 0;
}

/* The device's PCI address in sysfs form, from cuDeviceGetPCIBusId. */
static int pci_of(const struct gf_cuda_ops *ops, gf_cu_device dev, char *out, size_t size)
{
	char raw[GF_CU_PCI_BUS_ID_SIZE + 16] = "";
	int ret = gf_cuda_check(ops, ops->device_pci_bus_id(raw, (int)sizeof(raw), dev), "cuDeviceGetPCIBusId");

	if (ret)
		return ret;
	if (!gf_pci_normalize(raw, out, size))
		return gf_error(-EBADMSG, "cuDeviceGetPCIBusId: not a PCI address: '%s'", raw);
	return 0;
}

int gf_cuda_ordinal_of_pci(const struct gf_cuda_ops *ops, const char *pci, int *ordinal)
{
	char want[16], have[16];
	int n = 0, ret;

	if (!gf_pci_normalize(pci, want, sizeof(want)))
		return gf_error(-EINVAL, "not a PCI address: '%s'", pci);
	ret = gf_cuda_check(ops, ops->device_count(&n), "cuDeviceGetCount");
	for (int i = 0; !ret && i < n; i++) {
		gf_cu_device dev;

		ret = gf_cuda_check(ops, ops->device_get(&dev, i), "cuDeviceGet");
		if (!ret)
			ret = pci_of(ops, dev, have, sizeof(have));
		if (!ret && !strcmp(have, want)) {
			*ordinal = i;
			return 0;
		}
	}
	return ret ? ret : gf_error(-ENODEV, "no CUDA device at %s (%d CUDA devices)", want, n);
}

static int attribute(const struct gf_cuda_dev *d, int attrib, int *value)
{
	return gf_cuda_check(d->ops, d->ops->device_attribute(value, attrib, d->dev), "cuDeviceGetAttribute");
}

/* The facts a benchmark prints beside its figures. */
static int describe(struct gf_cuda_dev *d)
{
	int ret = attribute(d, GF_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &d->cc_major);

	if (!ret)
		ret = attribute(d, GF_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &d->cc_minor);
	if (!ret)
		ret = attribute(d, GF_CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, &d->async_engines);
	if (!ret)
		ret = attribute(d, GF_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &d->sm_count);
	if (!ret && d->ops->device_name &&
	    d->ops->device_name(d->name, (int)sizeof(d->name), d->dev) != GF_CUDA_SUCCESS)
		d->name[0] = '\0';
	return ret;
}

int gf_cuda_dev_open_pci(const char *pci, struct gf_cuda_dev *d)
{
	const struct gf_cuda_ops *ops;
	int n, ret;

	memset(d, 0, sizeof(*d));
	d->ordinal = -1;
	ret = gf_cuda_init(&ops, &n);
	if (!ret)
		ret = gf_cuda_ordinal_of_pci(ops, pci, &d->ordinal);
	if (!ret)
		ret = gf_cuda_check(ops, ops->device_get(&d->dev, d->ordinal), "cuDeviceGet");
	if (ret)
		return ret;
	d->ops = ops;
	gf_pci_normalize(pci, d->pci, sizeof(d->pci));
	ret = gf_cuda_check(ops, ops->primary_ctx_retain(&d->ctx, d->dev), "cuDevicePrimaryCtxRetain");
	if (ret) {
		d->ctx = NULL;
		return ret;
	}
	ret = gf_cuda_dev_make_current(d);
	if (!ret)
		ret = describe(d);
	if (ret)
		gf_cuda_dev_close(d);
	return ret;
}

int gf_cuda_dev_open_nvml(unsigned int idx, struct gf_cuda_dev *d)
{
	const struct gf_nvml_ops *nv;
	struct gf_nvml_pci_info pci;
	gf_nvml_device h;
	char why[384];
	int r, ret = gf_nvml_load(&nv, why, sizeof(why));

	memset(d, 0, sizeof(*d));
	if (ret)
		return ret;
	r = nv->init();
	if (r == GF_NVML_SUCCESS) {
		r = nv->device_by_index(idx, &h);
		if (r == GF_NVML_SUCCESS)
			r = nv->pci_info(h, &pci);
		nv->shutdown();
	}
	if (r != GF_NVML_SUCCESS)
		return gf_error(-ENODEV, "NVML GPU %u: %s", idx, gf_nvml_strerror(nv, r));
	return gf_cuda_dev_open_pci(pci.bus_id, d);
}

int gf_cuda_dev_make_current(const struct gf_cuda_dev *d)
{
	return gf_cuda_check(d->ops, d->ops->ctx_set_current(d->ctx), "cuCtxSetCurrent");
}

void gf_cuda_dev_close(struct gf_cuda_dev *d)
{
	if (d->ops && d->ctx)
		d->ops->primary_ctx_release(d->dev);
	d->ctx = NULL;
	d->ops = NULL;
}
