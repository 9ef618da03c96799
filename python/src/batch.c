/* gpufeed.Batch: one batch of a Loader, handed to frameworks through
 * DLPack (__dlpack__ / __dlpack_device__), and gpufeed.Tensor, one DLPack
 * tensor (a batch's offsets) for the same protocol.
 *
 * The protocol (https://dmlc.github.io/dlpack/latest/python_spec.html):
 * __dlpack__ returns a PyCapsule named "dltensor" holding a
 * DLManagedTensor (gf_dl_managed_tensor has its layout); a consumer that
 * takes it renames it "used_dltensor" and calls its deleter when done, and
 * a capsule nobody took deletes its tensor itself.  A tensor keeps the
 * batch's slot alive, so the bytes stay valid after the Batch is released
 * or the Loader closed. */
#include "gfpy.h"

#include <errno.h>
#include <string.h>

PyObject *gfpy_batch_type;
PyObject *gfpy_tensor_type;

struct gfpy_batch {
	PyObject_HEAD
	PyObject *loader;	/* a strong reference: the loader outlives its batches */
	struct gf_batch *b;	/* NULL once released */
	/* Kept for repr and the properties after release. */
	uint64_t epoch, position;
	unsigned count;
	size_t bytes, record_size;
	int dev_type, dev_id;	/* the data tensor's device; dev_type 0 until known */
};

struct gfpy_tensor {
	PyObject_HEAD
	struct gf_dl_managed_tensor *t;	/* NULL once handed over */
};

static void capsule_destructor(PyObject *capsule)
{
	struct gf_dl_managed_tensor *t;
	PyObject *type, *value, *tb;

	if (PyCapsule_IsValid(capsule, "used_dltensor"))
		return;	/* a consumer took it and owns the tensor */
	PyErr_Fetch(&type, &value, &tb);
	t = PyCapsule_GetPointer(capsule, "dltensor");
	if (t) {
		if (t->deleter)
			t->deleter(t);
	} else {
		PyErr_WriteUnraisable(capsule);
	}
	PyErr_Restore(type, value, tb);
}

PyObject *gfpy_dlpack_capsule(struct gf_dl_managed_tensor *t)
{
	PyObject *capsule = PyCapsule_New(t, "dltensor", capsule_destructor);

	if (!capsule && t->deleter)
		t->deleter(t);
	return capsule;
}

/* The DLPack 1.0 keywords a newer consumer may pass: a legacy "dltensor"
 * capsule answers max_version; a copy cannot be made here. */
static int check_dlpack_kwargs(PyObject *copy)
{
	int want = copy == Py_None ? 0 : PyObject_IsTrue(copy);

	if (want < 0)
		return -1;
	if (want) {
		PyErr_SetString(PyExc_BufferError, "gpufeed batches are exported without a copy (copy=True refused)");
		return -1;
	}
	return 0;
}

/* ---- gpufeed.Tensor ---- */

PyObject *gfpy_tensor_new(struct gf_dl_managed_tensor *t)
{
	PyTypeObject *tp = (PyTypeObject *)gfpy_tensor_type;
	allocfunc alloc = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);
	struct gfpy_tensor *self = (struct gfpy_tensor *)alloc(tp, 0);

	if (!self) {
		if (t->deleter)
			t->deleter(t);
		return NULL;
	}
	self->t = t;
	return (PyObject *)self;
}

static void tensor_dealloc(PyObject *o)
{
	struct gfpy_tensor *self = (struct gfpy_tensor *)o;

	if (self->t && self->t->deleter)
		self->t->deleter(self->t);
	self->t = NULL;
	gfpy_free_instance(o);
}

static PyObject *tensor_dlpack(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "stream", "max_version", "dl_device", "copy", NULL };
	struct gfpy_tensor *self = (struct gfpy_tensor *)o;
	PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None, *copy = Py_None, *capsule;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O$OOO:__dlpack__", kwlist, &stream, &max_version, &dl_device,
					 &copy) ||
	    check_dlpack_kwargs(copy))
		return NULL;
	if (!self->t) {
		PyErr_SetString(PyExc_BufferError, "this gpufeed.Tensor was already exported (__dlpack__ hands it over once)");
		return NULL;
	}
	capsule = gfpy_dlpack_capsule(self->t);
	self->t = NULL;
	return capsule;
}

static PyObject *tensor_dlpack_device(PyObject *o, PyObject *unused)
{
	struct gfpy_tensor *self = (struct gfpy_tensor *)o;

	(void)unused;
	if (!self->t) {
		PyErr_SetString(PyExc_BufferError, "this gpufeed.Tensor was already exported");
		return NULL;
	}
	return Py_BuildValue("(ii)", (int)self->t->dl_tensor.device.device_type, (int)self->t->dl_tensor.device.device_id);
}

static PyMethodDef tensor_methods[] = {
	{ "__dlpack__", (PyCFunction)(void (*)(void))tensor_dlpack, METH_VARARGS | METH_KEYWORDS,
	  "__dlpack__(stream=None) -> PyCapsule\n\nThe tensor as a DLPack capsule; once." },
	{ "__dlpack_device__", tensor_dlpack_device, METH_NOARGS,
	  "__dlpack_device__() -> (device_type, device_id)" },
	{ NULL, NULL, 0, NULL },
};

static PyType_Slot tensor_slots[] = {
	{ Py_tp_dealloc, tensor_dealloc },
	{ Py_tp_methods, tensor_methods },
	{ Py_tp_doc, "One DLPack tensor (a batch's offsets): pass it to numpy.from_dlpack or\n"
		     "torch.from_dlpack, once.  It keeps its batch's slot alive until then." },
	{ 0, NULL },
};

static PyType_Spec tensor_spec = {
	.name = "gpufeed.Tensor",
	.basicsize = sizeof(struct gfpy_tensor),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
	.slots = tensor_slots,
};

/* ---- gpufeed.Batch ---- */

PyObject *gfpy_batch_new(PyObject *loader, struct gf_batch *b)
{
	PyTypeObject *tp = (PyTypeObject *)gfpy_batch_type;
	allocfunc alloc = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);
	struct gfpy_batch *self = (struct gfpy_batch *)alloc(tp, 0);

	if (!self) {
		gfpy_loader_release(loader, b);
		return NULL;
	}
	Py_INCREF(loader);
	self->loader = loader;
	self->b = b;
	self->epoch = b->epoch;
	self->position = b->position;
	self->count = b->count;
	self->bytes = b->bytes;
	self->record_size = b->record_size;
	gfpy_loader_track(loader, (PyObject *)self);
	return (PyObject *)self;
}

void gfpy_batch_release(PyObject *o)
{
	struct gfpy_batch *self = (struct gfpy_batch *)o;
	struct gf_batch *b = self->b;

	if (!b)
		return;
	self->b = NULL;
	gfpy_loader_untrack(self->loader, o);
	gfpy_loader_release(self->loader, b);
}

static void batch_dealloc(PyObject *o)
{
	struct gfpy_batch *self = (struct gfpy_batch *)o;

	gfpy_batch_release(o);
	Py_CLEAR(self->loader);
	gfpy_free_instance(o);
}

static struct gf_batch *live(struct gfpy_batch *self)
{
	if (!self->b)
		PyErr_SetString(PyExc_ValueError, gfpy_loader_closed(self->loader) ?
				"the batch's loader is closed" : "the batch was released");
	return self->b;
}

/* The payload's tensor (and the offsets' with offsets not NULL). */
static int make_tensors(struct gfpy_batch *self, struct gf_dl_managed_tensor **data,
			struct gf_dl_managed_tensor **offsets)
{
	struct gf_batch *b = live(self);
	int ret;

	if (!b)
		return -1;
	Py_BEGIN_ALLOW_THREADS
	ret = gf_batch_dlpack(b, data, offsets);
	Py_END_ALLOW_THREADS
	if (ret) {
		gfpy_raise(ret);
		return -1;
	}
	self->dev_type = (*data)->dl_tensor.device.device_type;
	self->dev_id = (*data)->dl_tensor.device.device_id;
	return 0;
}

static PyObject *batch_dlpack(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "stream", "max_version", "dl_device", "copy", NULL };
	struct gfpy_batch *self = (struct gfpy_batch *)o;
	PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None, *copy = Py_None;
	struct gf_dl_managed_tensor *data;
	struct gf_batch *b;
	long long s = 1;	/* None: CUDA's legacy default stream (CU_STREAM_LEGACY) */
	int ret = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O$OOO:__dlpack__", kwlist, &stream, &max_version, &dl_device,
					 &copy) ||
	    check_dlpack_kwargs(copy))
		return NULL;
	b = live(self);
	if (!b)
		return NULL;
	if (stream != Py_None && gfpy_int_arg(stream, "stream", -1, (long long)INTPTR_MAX, &s))
		return NULL;
	/* The consumer's stream waits for the copy into GPU memory; -1 asks
	 * for no synchronization.  A host batch is ready as it is. */
	if (b->dev && s != -1) {
		Py_BEGIN_ALLOW_THREADS
		ret = gf_batch_wait_stream(b, (void *)(intptr_t)s);
		Py_END_ALLOW_THREADS
		if (ret)
			return gfpy_raise(ret);
	}
	if (make_tensors(self, &data, NULL))
		return NULL;
	return gfpy_dlpack_capsule(data);
}

static PyObject *batch_dlpack_device(PyObject *o, PyObject *unused)
{
	struct gfpy_batch *self = (struct gfpy_batch *)o;
	struct gf_dl_managed_tensor *data;

	(void)unused;
	if (!self->dev_type) {
		if (make_tensors(self, &data, NULL))
			return NULL;
		if (data->deleter)
			data->deleter(data);
	}
	return Py_BuildValue("(ii)", self->dev_type, self->dev_id);
}

static PyObject *batch_offsets_dlpack(PyObject *o, PyObject *unused)
{
	struct gfpy_batch *self = (struct gfpy_batch *)o;
	struct gf_dl_managed_tensor *data, *offsets;

	(void)unused;
	if (make_tensors(self, &data, &offsets))
		return NULL;
	if (data->deleter)
		data->deleter(data);
	return gfpy_tensor_new(offsets);
}

static PyObject *numpy_call(const char *fn, PyObject *arg, const char *dtype)
{
	PyObject *numpy = PyImport_ImportModule("numpy"), *r;

	if (!numpy)
		return NULL;
	r = dtype ? PyObject_CallMethod(numpy, fn, "Os", arg, dtype) : PyObject_CallMethod(numpy, fn, "O", arg);
	Py_DECREF(numpy);
	return r;
}

static PyObject *batch_offsets(PyObject *o, void *closure)
{
	PyObject *t = batch_offsets_dlpack(o, NULL), *arr;

	(void)closure;
	if (!t)
		return NULL;
	arr = numpy_call("from_dlpack", t, NULL);
	Py_DECREF(t);
	return arr;
}

static PyObject *batch_samples(PyObject *o, void *closure)
{
	struct gfpy_batch *self = (struct gfpy_batch *)o;
	struct gf_batch *b = live(self);
	PyObject *bytes, *arr;

	(void)closure;
	if (!b)
		return NULL;
	/* A copy: count numbers, and the array then holds no slot. */
	bytes = PyByteArray_FromStringAndSize((const char *)b->samples, (Py_ssize_t)(b->count * sizeof(uint64_t)));
	if (!bytes)
		return NULL;
	arr = numpy_call("frombuffer", bytes, "uint64");
	Py_DECREF(bytes);
	return arr;
}

static PyObject *batch_tobytes(PyObject *o, PyObject *unused)
{
	struct gfpy_batch *self = (struct gfpy_batch *)o;
	struct gf_batch *b = live(self);

	(void)unused;
	if (!b)
		return NULL;
	return PyBytes_FromStringAndSize(b->host, (Py_ssize_t)b->bytes);
}

static PyObject *batch_release(PyObject *o, PyObject *unused)
{
	(void)unused;
	gfpy_batch_release(o);
	Py_RETURN_NONE;
}

static PyObject *batch_exit(PyObject *o, PyObject *args)
{
	(void)args;
	gfpy_batch_release(o);
	Py_RETURN_FALSE;
}

static PyObject *batch_repr(PyObject *o)
{
	struct gfpy_batch *self = (struct gfpy_batch *)o;

	return PyUnicode_FromFormat("<gpufeed.Batch epoch=%llu position=%llu count=%u nbytes=%zu%s>",
				    (unsigned long long)self->epoch, (unsigned long long)self->position, self->count,
				    self->bytes, self->b ? "" : " released");
}

static Py_ssize_t batch_len(PyObject *o)
{
	return ((struct gfpy_batch *)o)->count;
}

#define BATCH_GETTER(field, conv)                                                   \
	static PyObject *batch_get_##field(PyObject *o, void *closure)              \
	{                                                                           \
		(void)closure;                                                      \
		return conv(((struct gfpy_batch *)o)->field);                       \
	}
BATCH_GETTER(epoch, PyLong_FromUnsignedLongLong)
BATCH_GETTER(position, PyLong_FromUnsignedLongLong)
BATCH_GETTER(count, PyLong_FromUnsignedLong)
BATCH_GETTER(bytes, PyLong_FromSize_t)
BATCH_GETTER(record_size, PyLong_FromSize_t)

static PyObject *batch_get_released(PyObject *o, void *closure)
{
	(void)closure;
	return PyBool_FromLong(((struct gfpy_batch *)o)->b == NULL);
}

static PyObject *batch_get_ptr(PyObject *o, void *closure)
{
	struct gf_batch *b = live((struct gfpy_batch *)o);

	(void)closure;
	if (!b)
		return NULL;
	return PyLong_FromUnsignedLongLong(b->dev ? b->dev : (uint64_t)(uintptr_t)b->host);
}

static PyObject *batch_get_stream(PyObject *o, void *closure)
{
	struct gf_batch *b = live((struct gfpy_batch *)o);

	(void)closure;
	if (!b)
		return NULL;
	return PyLong_FromUnsignedLongLong((uint64_t)(uintptr_t)b->stream);
}

static PyGetSetDef batch_getset[] = {
	{ "epoch", batch_get_epoch, NULL, "The epoch this batch belongs to.", NULL },
	{ "position", batch_get_position, NULL, "This rank's position of the batch's first sample in the epoch.", NULL },
	{ "count", batch_get_count, NULL, "Samples in the batch (fewer than batch_size only for the last).", NULL },
	{ "nbytes", batch_get_bytes, NULL, "Payload bytes.", NULL },
	{ "record_size", batch_get_record_size, NULL,
	  "Bytes per sample when every sample has the same size (the payload is then\n"
	  "count x record_size), 0 when sizes vary.", NULL },
	{ "offsets", batch_offsets, NULL,
	  "numpy int64 array of count + 1 byte offsets of the samples in the payload\n"
	  "(host memory, no copy: it keeps the batch's slot alive while it lives).", NULL },
	{ "samples", batch_samples, NULL, "numpy uint64 array: the dataset-wide numbers of the batch's samples.", NULL },
	{ "ptr", batch_get_ptr, NULL, "The payload's address: GPU memory (CUdeviceptr) or host memory.", NULL },
	{ "stream", batch_get_stream, NULL, "The CUstream the copy to the GPU was queued on (0 for host batches).", NULL },
	{ "released", batch_get_released, NULL, "Whether release() ran (or the loader was closed).", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyMethodDef batch_methods[] = {
	{ "__dlpack__", (PyCFunction)(void (*)(void))batch_dlpack, METH_VARARGS | METH_KEYWORDS,
	  "__dlpack__(stream=None) -> PyCapsule\n\n"
	  "The payload as a DLPack tensor, without a copy: uint8 [count, record_size]\n"
	  "for fixed-size records, uint8 [nbytes] otherwise, on the GPU when the loader\n"
	  "copies there.  stream (CUDA): the consumer's stream, made to wait for the\n"
	  "copy (None: the legacy default stream, -1: no wait).  The tensor keeps the\n"
	  "batch's slot until the consumer deletes it." },
	{ "__dlpack_device__", batch_dlpack_device, METH_NOARGS,
	  "__dlpack_device__() -> (device_type, device_id)\n\n(1, 0) for host memory, (2, ordinal) for a CUDA GPU." },
	{ "offsets_dlpack", batch_offsets_dlpack, METH_NOARGS,
	  "offsets_dlpack() -> gpufeed.Tensor\n\nThe offsets as a DLPack tensor (int64 [count + 1], host memory), for\n"
	  "torch.from_dlpack." },
	{ "tobytes", batch_tobytes, METH_NOARGS, "tobytes() -> bytes\n\nA copy of the payload." },
	{ "release", batch_release, METH_NOARGS,
	  "release()\n\nGives the batch's slot back to the loader (tensors made from it keep it\n"
	  "until they are deleted).  Also done by `with batch:` and when the Batch is\n"
	  "deleted; a second call does nothing." },
	{ "__enter__", gfpy_enter, METH_NOARGS, NULL },
	{ "__exit__", batch_exit, METH_VARARGS, NULL },
	{ NULL, NULL, 0, NULL },
};

static PyType_Slot batch_slots[] = {
	{ Py_tp_dealloc, batch_dealloc },
	{ Py_tp_repr, batch_repr },
	{ Py_tp_methods, batch_methods },
	{ Py_tp_getset, batch_getset },
	{ Py_sq_length, batch_len },
	{ Py_tp_doc, "One batch of a gpufeed.Loader.  numpy.from_dlpack(batch) and\n"
		     "torch.from_dlpack(batch) take its payload without a copy." },
	{ 0, NULL },
};

static PyType_Spec batch_spec = {
	.name = "gpufeed.Batch",
	.basicsize = sizeof(struct gfpy_batch),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
	.slots = batch_slots,
};

int gfpy_batch_init(PyObject *module)
{
	gfpy_batch_type = PyType_FromSpec(&batch_spec);
	gfpy_tensor_type = PyType_FromSpec(&tensor_spec);
	if (!gfpy_batch_type || !gfpy_tensor_type)
		return -1;
	if (PyModule_AddObjectRef(module, "Batch", gfpy_batch_type) ||
	    PyModule_AddObjectRef(module, "Tensor", gfpy_tensor_type))
		return -1;
	return 0;
}
