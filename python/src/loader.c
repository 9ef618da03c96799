/* gpufeed.Loader: gf_loader_* (include/gpufeed/loader.h) as a Python
 * iterator of gpufeed.Batch.
 *
 * The loader is for one consumer thread.  gf_loader_next runs without the
 * GIL, so another Python thread may meanwhile drop a Batch: its release is
 * then kept here and made when next() returns (the C loader never sees two
 * threads at once), and a second next() from another thread is refused. */
#include "gfpy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

PyObject *gfpy_loader_type;

struct gfpy_loader {
	PyObject_HEAD
	struct gf_loader *l;	/* NULL once closed */
	struct gf_loader_opts opts;
	int visible;		/* the CUDA device asked for, as numbered here; -1 cpu */
	PyObject *path;		/* bytes */
	bool busy;		/* a call runs without the GIL */
	bool exhausted;		/* next() reached the end of the epoch */
	/* Batches taken and not released (borrowed: each holds a reference
	 * on the loader, so none outlives it). */
	PyObject **live;
	size_t nlive, live_cap;
	/* Releases that came while busy, made when the call returns. */
	struct gf_batch **pending;
	size_t npending, pending_cap;
	/* transform=: the callable the loader's threads call with the GIL
	 * taken, and the first exception it raised, for next() to raise. */
	PyObject *transform;
	PyObject *exc_type, *exc_value, *exc_tb;
	struct gfpy_loader *next_transforming, **prev_transforming;
};

/* Loaders with a Python transform: closed by gpufeed's atexit handler,
 * while the interpreter can still give their threads the GIL. */
static struct gfpy_loader *transforming;
/* The loader whose transform this thread (a loader thread) is running: it
 * must not close a loader, which would join the threads, its own too. */
static _Thread_local struct gfpy_loader *in_transform;

static struct gfpy_loader *as_loader(PyObject *o)
{
	return (struct gfpy_loader *)o;
}

bool gfpy_loader_closed(PyObject *o)
{
	return as_loader(o)->l == NULL;
}

static int grow(void *arrayp, size_t *cap, size_t n, size_t elem)
{
	void **array = arrayp;
	size_t ncap = *cap ? *cap * 2 : 8;
	void *p;

	if (n < *cap)
		return 0;
	p = PyMem_Realloc(*array, ncap * elem);
	if (!p)
		return -1;
	*array = p;
	*cap = ncap;
	return 0;
}

void gfpy_loader_track(PyObject *o, PyObject *batch)
{
	struct gfpy_loader *self = as_loader(o);

	/* Tracking only serves close(); without memory for it, close() leaves
	 * this batch to its own release. */
	if (grow(&self->live, &self->live_cap, self->nlive, sizeof(*self->live)) == 0)
		self->live[self->nlive++] = batch;
}

void gfpy_loader_untrack(PyObject *o, PyObject *batch)
{
	struct gfpy_loader *self = as_loader(o);

	for (size_t i = 0; i < self->nlive; i++)
		if (self->live[i] == batch) {
			self->live[i] = self->live[--self->nlive];
			return;
		}
}

void gfpy_loader_release(PyObject *o, struct gf_batch *b)
{
	struct gfpy_loader *self = as_loader(o);
	int ret;

	if (!self->l)
		return;
	if (self->busy) {
		if (grow(&self->pending, &self->pending_cap, self->npending, sizeof(*self->pending)) == 0) {
			self->pending[self->npending++] = b;
			return;
		}
		/* No memory to defer: the slot stays taken until close(). */
		PyErr_WriteUnraisable(o);
		return;
	}
	/* Hands the slot back: bookkeeping under the loader's lock, no wait. */
	ret = gf_loader_release(self->l, b);
	if (ret) {
		PyObject *type, *value, *tb;

		PyErr_Fetch(&type, &value, &tb);
		gfpy_raise(ret);
		PyErr_WriteUnraisable(o);
		PyErr_Restore(type, value, tb);
	}
}

static void flush_pending(struct gfpy_loader *self)
{
	while (self->npending)
		gfpy_loader_release((PyObject *)self, self->pending[--self->npending]);
}

/* Starts a call that runs without the GIL: 0, or -1 with RuntimeError when
 * another thread is in one. */
static int enter(struct gfpy_loader *self)
{
	if (!self->l) {
		PyErr_SetString(PyExc_ValueError, "the loader is closed");
		return -1;
	}
	if (self->busy) {
		PyErr_SetString(PyExc_RuntimeError,
				"gpufeed.Loader is used by another thread (it serves one consumer thread)");
		return -1;
	}
	self->busy = true;
	return 0;
}

static void leave(struct gfpy_loader *self)
{
	self->busy = false;
	flush_pending(self);
}

/* ---- transform= ---- */

/* The loader's transform hook, on a loader thread: the sample as a
 * writable memoryview, released after the call so nothing keeps a view
 * into a slot that will be reused. */
static int py_transform(void *user, uint64_t sample, void *data, size_t *len, size_t cap)
{
	struct gfpy_loader *self = user;
	PyGILState_STATE gil = PyGILState_Ensure();
	PyObject *view, *r = NULL, *released;
	Py_buffer out;
	int rc = -ECANCELED;

	in_transform = self;

	view = PyMemoryView_FromMemory(data, (Py_ssize_t)*len, PyBUF_WRITE);
	if (view)
		r = PyObject_CallFunction(self->transform, "KO", (unsigned long long)sample, view);
	if (r == Py_None || (r && r == view)) {
		rc = 0;
	} else if (r && PyObject_GetBuffer(r, &out, PyBUF_SIMPLE) == 0) {
		if ((size_t)out.len <= cap) {
			memmove(data, out.buf, (size_t)out.len);
			*len = (size_t)out.len;
			rc = 0;
		} else {
			PyErr_Format(PyExc_ValueError, "transform: sample %llu became %zd bytes, past its room of %zu",
				     (unsigned long long)sample, out.len, cap);
		}
		PyBuffer_Release(&out);
	} else if (r) {
		PyErr_Format(PyExc_TypeError, "transform: return None or a bytes-like object, not %R", (PyObject *)Py_TYPE(r));
	}
	Py_XDECREF(r);
	if (rc && !self->exc_type)
		PyErr_Fetch(&self->exc_type, &self->exc_value, &self->exc_tb);
	PyErr_Clear();
	if (view) {
		released = PyObject_CallMethod(view, "release", NULL);
		if (!released)
			PyErr_Clear();	/* still exported (the callable kept a buffer): let it live */
		Py_XDECREF(released);
		Py_DECREF(view);
	}
	in_transform = NULL;
	PyGILState_Release(gil);
	return rc;
}

static void forget_exception(struct gfpy_loader *self)
{
	Py_CLEAR(self->exc_type);
	Py_CLEAR(self->exc_value);
	Py_CLEAR(self->exc_tb);
}

static void unlist_transforming(struct gfpy_loader *self)
{
	if (!self->prev_transforming)
		return;
	*self->prev_transforming = self->next_transforming;
	if (self->next_transforming)
		self->next_transforming->prev_transforming = self->prev_transforming;
	self->prev_transforming = NULL;
	self->next_transforming = NULL;
}

/* ---- arguments ---- */

/* An int from the environment (RANK, WORLD_SIZE, LOCAL_RANK), or def. */
static int env_int(const char *name, long long def, long long min, long long max, long long *out)
{
	const char *s = getenv(name);
	char *end;
	long long v;

	if (!s || !*s) {
		*out = def;
		return 0;
	}
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < min || v > max) {
		PyErr_Format(PyExc_ValueError, "%s='%s' in the environment: want an integer in %lld..%lld", name, s, min,
			     max);
		return -1;
	}
	*out = v;
	return 0;
}

/* rank or world_size: the argument, else the environment's, else def. */
static int rank_arg(PyObject *o, const char *name, const char *env, long long def, long long min, long long *out)
{
	if (o == Py_None)
		return env_int(env, def, min, UINT32_MAX, out);
	return gfpy_int_arg(o, name, min, UINT32_MAX, out);
}

/* The NVML index (what gf_loader_opts.gpu takes) of CUDA device `visible`
 * as this process sees it: CUDA_VISIBLE_DEVICES's entry of that number
 * (an index, or a UUID or PCI address the machine model resolves), or the
 * same number when the variable is unset (CUDA's order is PCI order, as
 * NVML's, with CUDA_DEVICE_ORDER=PCI_BUS_ID, which gpufeed run and launch
 * set).  0, or -1 with an exception. */
static int nvml_index(long long *visiblep, bool from_local_rank, int *gpu)
{
	long long visible = *visiblep;
	const char *env = getenv("CUDA_VISIBLE_DEVICES");
	char entry[128];
	const char *p, *end;
	long long n = 0, i;
	struct gf_topo_options o = GF_TOPO_OPTS_INIT;
	struct gf_topo *t = NULL;
	int ret, pos = -1;
	char *num_end;

	if (!env) {
		*gpu = (int)visible;
		return 0;
	}
	for (p = env; *p; p++)
		n += *p == ',';
	n += *env != 0;
	/* gpufeed launch shows each rank its own GPU alone, as cuda:0. */
	if (from_local_rank && n == 1)
		*visiblep = visible = 0;
	if (visible >= n) {
		PyErr_Format(PyExc_ValueError, "device: CUDA device %lld%s, but CUDA_VISIBLE_DEVICES='%s' shows %lld", visible,
			     from_local_rank ? " (LOCAL_RANK)" : "", env, n);
		return -1;
	}
	for (p = env, i = 0; i < visible; i++)
		p = strchr(p, ',') + 1;
	end = strchr(p, ',');
	if (!end)
		end = p + strlen(p);
	snprintf(entry, sizeof(entry), "%.*s", (int)(end - p), p);
	errno = 0;
	i = strtoll(entry, &num_end, 10);
	if (*entry && !*num_end && !errno && i >= 0 && i <= INT32_MAX) {
		*gpu = (int)i;
		return 0;
	}
	o.omit = GF_TOPO_OMIT_CPU_DETAIL | GF_TOPO_OMIT_STORAGE;
	Py_BEGIN_ALLOW_THREADS
	ret = gf_topo_discover(&o, &t);
	if (!ret)
		pos = gf_topo_find_gpu(t, entry);
	Py_END_ALLOW_THREADS
	if (ret || pos < 0) {
		gf_topo_free(t);
		gfpy_raise(ret ? ret : pos);
		return -1;
	}
	*gpu = t->gpus[pos].index;
	gf_topo_free(t);
	return 0;
}

/* device: "cpu" (host memory), or a CUDA device as torch numbers them in
 * this process: "cuda:N", N or a torch.device; "cuda" is LOCAL_RANK's (as
 * torchrun and gpufeed launch set it).  *visible: that number, -1 for cpu. */
static int device_arg(PyObject *o, int *gpu, int *visible)
{
	PyObject *str = NULL;
	long long v = -1;
	bool local = false;
	const char *s;
	char *end;

	*gpu = *visible = -1;
	if (o == Py_None)
		return 0;
	if (PyLong_Check(o)) {
		if (gfpy_int_arg(o, "device", 0, INT32_MAX, &v))
			return -1;
	} else {
		str = PyObject_Str(o);	/* a str, or a torch.device ("cuda:1") */
		s = str ? PyUnicode_AsUTF8AndSize(str, NULL) : NULL;
		if (!s)
			return -1;
		if (!strcmp(s, "cpu")) {
			Py_DECREF(str);
			return 0;
		}
		if (!strcmp(s, "cuda")) {
			local = true;
			if (env_int("LOCAL_RANK", 0, 0, INT32_MAX, &v))
				goto fail;
		} else if (!strncmp(s, "cuda:", 5) && s[5] >= '0' && s[5] <= '9') {
			errno = 0;
			v = strtoll(s + 5, &end, 10);
			if (errno || *end || v > INT32_MAX)
				v = -1;
		}
		if (v < 0) {
			PyErr_Format(PyExc_ValueError, "device='%s': want 'cpu', 'cuda', 'cuda:N' or an int", s);
			goto fail;
		}
	}
	if (nvml_index(&v, local, gpu))
		goto fail;
	*visible = (int)v;
	Py_XDECREF(str);
	return 0;
fail:
	Py_XDECREF(str);
	return -1;
}

static int uneven_arg(const char *s, enum gf_loader_uneven *out)
{
	if (!strcmp(s, "pad"))
		*out = GF_LOADER_PAD;
	else if (!strcmp(s, "drop"))
		*out = GF_LOADER_DROP;
	else {
		PyErr_Format(PyExc_ValueError, "uneven='%s': want 'pad' or 'drop'", s);
		return -1;
	}
	return 0;
}

static PyObject *loader_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "batch_size", "rank", "world_size", "seed", "shuffle", "drop_last",
				  "device", "threads", "slots", "block_bytes", "window_blocks", "verify", "buffered",
				  "uneven", "numa_node", "transform", NULL };
	PyObject *path, *rank = Py_None, *world = Py_None, *seed = Py_None, *device = Py_None, *threads = Py_None,
		 *slots = Py_None, *block = Py_None, *window = Py_None, *node = Py_None, *transform = Py_None;
	int shuffle = 1, drop_last = 0, verify = 0, buffered = 0, ret;
	const char *uneven = "pad";
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gfpy_loader *self;
	long long v, r, w;
	int visible;
	allocfunc alloc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&L|$OOOppOOOOOppsOO:Loader", kwlist, PyUnicode_FSConverter,
					 &path, &v, &rank, &world, &seed, &shuffle, &drop_last, &device, &threads, &slots,
					 &block, &window, &verify, &buffered, &uneven, &node, &transform))
		return NULL;
	if (transform != Py_None && !PyCallable_Check(transform)) {
		PyErr_SetString(PyExc_TypeError, "transform: a callable (sample, data) is needed");
		goto fail;
	}
	if (v < 1 || v > UINT32_MAX) {
		PyErr_Format(PyExc_ValueError, "batch_size=%lld: want 1..%u", v, UINT32_MAX);
		goto fail;
	}
	o.batch_size = (unsigned)v;
	if (rank_arg(world, "world_size", "WORLD_SIZE", 1, 1, &w) || rank_arg(rank, "rank", "RANK", 0, 0, &r))
		goto fail;
	if (r >= w) {
		PyErr_Format(PyExc_ValueError, "rank=%lld is not below world_size=%lld%s", r, w,
			     rank == Py_None || world == Py_None ? " (RANK / WORLD_SIZE from the environment)" : "");
		goto fail;
	}
	o.rank = (unsigned)r;
	o.world_size = (unsigned)w;
	if (seed != Py_None) {
		o.seed = PyLong_Check(seed) ? PyLong_AsUnsignedLongLong(seed) : (PyErr_SetString(PyExc_TypeError,
											      "seed: an int is needed"), 0);
		if (PyErr_Occurred())
			goto fail;
	}
	o.shuffle = shuffle;
	o.drop_last = drop_last;
	o.verify = verify;
	o.buffered = buffered;
	if (device_arg(device, &o.gpu, &visible) || uneven_arg(uneven, &o.uneven))
		goto fail;
	/* None keeps the library's default (0 in the options). */
	if (threads != Py_None) {
		if (gfpy_int_arg(threads, "threads", 1, 1024, &v))
			goto fail;
		o.threads = (unsigned)v;
	}
	if (slots != Py_None) {
		if (gfpy_int_arg(slots, "slots", 2, 65536, &v))
			goto fail;
		o.slots = (unsigned)v;
	}
	if (block != Py_None) {
		if (gfpy_int_arg(block, "block_bytes", 1, INT64_MAX, &v))
			goto fail;
		o.block_bytes = (size_t)v;
	}
	if (window != Py_None) {
		if (gfpy_int_arg(window, "window_blocks", 1, UINT32_MAX, &v))
			goto fail;
		o.window_blocks = (unsigned)v;
	}
	if (node != Py_None) {
		if (gfpy_int_arg(node, "numa_node", -1, 4095, &v))
			goto fail;
		o.numa_node = (int)v;
	}

	alloc = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);
	self = (struct gfpy_loader *)alloc(tp, 0);
	if (!self)
		goto fail;
	self->path = path;
	self->visible = visible;
	if (transform != Py_None) {
		Py_INCREF(transform);
		self->transform = transform;
		o.transform = py_transform;
		o.transform_user = self;
	}
	self->opts = o;
	Py_BEGIN_ALLOW_THREADS
	ret = gf_loader_open(PyBytes_AsString(path), &o, &self->l);
	Py_END_ALLOW_THREADS
	if (ret) {
		self->l = NULL;
		Py_DECREF(self);
		return gfpy_raise(ret);
	}
	if (self->transform) {
		self->next_transforming = transforming;
		if (transforming)
			transforming->prev_transforming = &self->next_transforming;
		self->prev_transforming = &transforming;
		transforming = self;
	}
	return (PyObject *)self;
fail:
	Py_DECREF(path);
	return NULL;
}

/* Gives back every live batch, then stops the threads and frees the
 * loader (tensors already handed out keep their memory). */
static void close_loader(struct gfpy_loader *self)
{
	struct gf_loader *l = self->l;

	if (!l)
		return;
	if (in_transform == self) {
		/* On one of its own threads (its last reference dropped in its
		 * transform): closing would join this thread.  Left open. */
		PyErr_WarnEx(PyExc_ResourceWarning, "gpufeed.Loader dropped inside a transform is left open", 1);
		PyErr_Clear();
		return;
	}
	flush_pending(self);
	while (self->nlive)
		gfpy_batch_release(self->live[self->nlive - 1]);
	self->l = NULL;
	unlist_transforming(self);
	Py_BEGIN_ALLOW_THREADS
	gf_loader_close(l);
	Py_END_ALLOW_THREADS
}

static void loader_dealloc(PyObject *o)
{
	struct gfpy_loader *self = as_loader(o);

	PyObject_GC_UnTrack(o);
	close_loader(self);
	if (self->l)
		return;	/* left open (above): its threads still call into self, so it stays */
	PyMem_Free(self->live);
	PyMem_Free(self->pending);
	Py_CLEAR(self->path);
	Py_CLEAR(self->transform);
	forget_exception(self);
	gfpy_free_instance(o);
}

/* The transform may refer to its loader (a closure): a cycle the
 * collector breaks by closing the loader, then dropping the callable. */
static int loader_traverse(PyObject *o, visitproc visit, void *arg)
{
	Py_VISIT(as_loader(o)->transform);
	Py_VISIT(Py_TYPE(o));
	return 0;
}

static int loader_clear(PyObject *o)
{
	struct gfpy_loader *self = as_loader(o);

	/* Busy, or collected on one of its own threads: left for a later
	 * collection elsewhere (closing here would wait on this very call). */
	if (self->busy || in_transform == self)
		return 0;
	close_loader(self);
	Py_CLEAR(self->transform);
	return 0;
}

static PyObject *close_transforming(PyObject *module, PyObject *unused)
{
	(void)module;
	(void)unused;
	while (transforming)
		close_loader(transforming);
	Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
	{ "_close_transforming", close_transforming, METH_NOARGS,
	  "Closes every loader with a Python transform (gpufeed's atexit handler)." },
	{ NULL, NULL, 0, NULL },
};

static PyObject *loader_close(PyObject *o, PyObject *unused)
{
	struct gfpy_loader *self = as_loader(o);

	(void)unused;
	if (self->busy) {
		PyErr_SetString(PyExc_RuntimeError, "gpufeed.Loader.close: another thread is in next()");
		return NULL;
	}
	close_loader(self);
	Py_RETURN_NONE;
}

static PyObject *loader_exit(PyObject *o, PyObject *args)
{
	PyObject *r = loader_close(o, NULL);

	(void)args;
	if (!r)
		return NULL;
	Py_DECREF(r);
	Py_RETURN_FALSE;
}

static int set_epoch(struct gfpy_loader *self, uint64_t epoch)
{
	int ret;

	if (enter(self))
		return -1;
	Py_BEGIN_ALLOW_THREADS
	ret = gf_loader_set_epoch(self->l, epoch);
	Py_END_ALLOW_THREADS
	leave(self);
	if (ret) {
		gfpy_raise(ret);
		return -1;
	}
	self->exhausted = false;
	forget_exception(self);	/* the loader forgets its error too */
	return 0;
}

static int get_state(struct gfpy_loader *self, struct gf_loader_state *st)
{
	int ret;

	if (!self->l) {
		PyErr_SetString(PyExc_ValueError, "the loader is closed");
		return -1;
	}
	ret = gf_loader_state(self->l, st);
	if (ret) {
		gfpy_raise(ret);
		return -1;
	}
	return 0;
}

/* iter(loader): the epoch in progress, or the next one once this one was
 * read to its end, so `for batch in loader` once per epoch walks epochs
 * 0, 1, 2, ... (set_epoch picks another). */
static PyObject *loader_iter(PyObject *o)
{
	struct gfpy_loader *self = as_loader(o);
	struct gf_loader_state st;

	if (self->exhausted) {
		if (get_state(self, &st) || set_epoch(self, st.epoch + 1))
			return NULL;
	}
	Py_INCREF(o);
	return o;
}

static PyObject *loader_next(PyObject *o)
{
	struct gfpy_loader *self = as_loader(o);
	struct gf_batch *b = NULL;
	int ret;

	if (enter(self))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	ret = gf_loader_next(self->l, &b);
	Py_END_ALLOW_THREADS
	leave(self);
	if (ret == 1) {
		self->exhausted = true;
		return NULL;	/* StopIteration */
	}
	if (ret < 0 && self->exc_type) {
		/* The transform's own exception, as it raised it. */
		Py_INCREF(self->exc_type);
		Py_XINCREF(self->exc_value);
		Py_XINCREF(self->exc_tb);
		PyErr_Restore(self->exc_type, self->exc_value, self->exc_tb);
		return NULL;
	}
	if (ret)
		return gfpy_raise(ret);
	return gfpy_batch_new(o, b);
}

static PyObject *loader_set_epoch(PyObject *o, PyObject *arg)
{
	unsigned long long e = PyLong_Check(arg) ? PyLong_AsUnsignedLongLong(arg) : 0;

	if (!PyLong_Check(arg))
		PyErr_SetString(PyExc_TypeError, "set_epoch: an int is needed");
	if (PyErr_Occurred() || set_epoch(as_loader(o), e))
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *loader_state_dict(PyObject *o, PyObject *unused)
{
	struct gf_loader_state st;

	(void)unused;
	if (get_state(as_loader(o), &st))
		return NULL;
	return Py_BuildValue("{sKsKsKsIsI}", "seed", (unsigned long long)st.seed, "epoch",
			     (unsigned long long)st.epoch, "position", (unsigned long long)st.position, "world_size",
			     st.world_size, "batch_size", st.batch_size);
}

/* A state_dict key as an unsigned integer; def when absent (def < 0: required). */
static int state_key(PyObject *d, const char *key, long long def, unsigned long long max, unsigned long long *out)
{
	PyObject *v = PyMapping_GetItemString(d, key);
	unsigned long long x;

	if (!v) {
		if (!PyErr_ExceptionMatches(PyExc_KeyError))
			return -1;
		PyErr_Clear();
		if (def < 0) {
			PyErr_Format(PyExc_ValueError, "load_state_dict: no '%s' (a dict from state_dict() is needed)", key);
			return -1;
		}
		*out = (unsigned long long)def;
		return 0;
	}
	x = PyLong_Check(v) ? PyLong_AsUnsignedLongLong(v) : (unsigned long long)-1;
	Py_DECREF(v);
	if (PyErr_Occurred() || x > max) {
		PyErr_Clear();
		PyErr_Format(PyExc_ValueError, "load_state_dict: '%s' is not an integer in 0..%llu", key, max);
		return -1;
	}
	*out = x;
	return 0;
}

static PyObject *loader_load_state_dict(PyObject *o, PyObject *d)
{
	struct gfpy_loader *self = as_loader(o);
	struct gf_loader_state st;
	unsigned long long seed, epoch, position, world, batch;
	int ret;

	if (!PyMapping_Check(d)) {
		PyErr_SetString(PyExc_TypeError, "load_state_dict: a dict from state_dict() is needed");
		return NULL;
	}
	if (state_key(d, "seed", -1, UINT64_MAX, &seed) || state_key(d, "epoch", -1, UINT64_MAX, &epoch) ||
	    state_key(d, "position", -1, UINT64_MAX, &position) ||
	    state_key(d, "world_size", self->opts.world_size, UINT32_MAX, &world) ||
	    state_key(d, "batch_size", self->opts.batch_size, UINT32_MAX, &batch))
		return NULL;
	memset(&st, 0, sizeof(st));
	st.seed = seed;
	st.epoch = epoch;
	st.position = position;
	st.world_size = (unsigned)world;
	st.batch_size = (unsigned)batch;
	if (enter(self))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	ret = gf_loader_load_state(self->l, &st);
	Py_END_ALLOW_THREADS
	leave(self);
	if (ret)
		return gfpy_raise(ret);
	self->exhausted = false;
	Py_RETURN_NONE;
}

static PyObject *loader_counters(PyObject *o, PyObject *unused)
{
	struct gfpy_loader *self = as_loader(o);
	struct gf_loader_counters c;
	int ret;

	(void)unused;
	if (!self->l) {
		PyErr_SetString(PyExc_ValueError, "the loader is closed");
		return NULL;
	}
	/* Relaxed atomic reads: safe beside a next() in another thread. */
	ret = gf_loader_counters(self->l, &c);
	if (ret)
		return gfpy_raise(ret);
	return Py_BuildValue("{sKsKsKsKsKsIsIsIsKsK}", "wait_ns", (unsigned long long)c.wait_ns, "next_calls",
			     (unsigned long long)c.next_calls, "bytes_read", (unsigned long long)c.bytes_read,
			     "samples_delivered", (unsigned long long)c.samples_delivered, "batches_delivered",
			     (unsigned long long)c.batches_delivered, "batches_ready", c.batches_ready, "slots_in_use",
			     c.slots_in_use, "slots", c.slots, "read_ns", (unsigned long long)c.read_ns, "copy_ns",
			     (unsigned long long)c.copy_ns);
}

static PyObject *loader_shuffle_quality(PyObject *o, PyObject *unused)
{
	struct gfpy_loader *self = as_loader(o);
	double score = 0, full = 0;
	int ret;

	(void)unused;
	if (enter(self))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	ret = gf_loader_shuffle_quality(self->l, &score, &full);
	Py_END_ALLOW_THREADS
	leave(self);
	if (ret)
		return gfpy_raise(ret);
	return Py_BuildValue("{sdsd}", "score", score, "full", full);
}

static Py_ssize_t loader_len(PyObject *o)
{
	struct gfpy_loader *self = as_loader(o);
	uint64_t n;

	if (!self->l) {
		PyErr_SetString(PyExc_ValueError, "the loader is closed");
		return -1;
	}
	n = gf_loader_batches(self->l);
	return n > PY_SSIZE_T_MAX ? PY_SSIZE_T_MAX : (Py_ssize_t)n;
}

static PyObject *loader_get_samples(PyObject *o, void *closure)
{
	struct gfpy_loader *self = as_loader(o);

	(void)closure;
	if (!self->l) {
		PyErr_SetString(PyExc_ValueError, "the loader is closed");
		return NULL;
	}
	return PyLong_FromUnsignedLongLong(gf_loader_samples(self->l));
}

static PyObject *loader_get_state_field(PyObject *o, void *closure)
{
	struct gf_loader_state st;

	if (get_state(as_loader(o), &st))
		return NULL;
	return PyLong_FromUnsignedLongLong(closure ? st.position : st.epoch);
}

static PyObject *loader_get_opt(PyObject *o, void *closure)
{
	const struct gf_loader_opts *opts = &as_loader(o)->opts;
	const char *which = closure;

	if (!strcmp(which, "batch_size"))
		return PyLong_FromUnsignedLong(opts->batch_size);
	if (!strcmp(which, "rank"))
		return PyLong_FromUnsignedLong(opts->rank);
	if (!strcmp(which, "world_size"))
		return PyLong_FromUnsignedLong(opts->world_size);
	if (!strcmp(which, "seed"))
		return PyLong_FromUnsignedLongLong(opts->seed);
	if (!strcmp(which, "device"))
		return opts->gpu < 0 ? PyUnicode_FromString("cpu") : PyUnicode_FromFormat("cuda:%d", as_loader(o)->visible);
	if (!strcmp(which, "gpu"))
		return PyLong_FromLong(opts->gpu);
	if (!strcmp(which, "closed"))
		return PyBool_FromLong(as_loader(o)->l == NULL);
	return PyUnicode_DecodeFSDefault(PyBytes_AsString(as_loader(o)->path));
}

static PyObject *loader_repr(PyObject *o)
{
	struct gfpy_loader *self = as_loader(o);

	return PyUnicode_FromFormat("<gpufeed.Loader %R batch_size=%u rank=%u/%u%s>", self->path, self->opts.batch_size,
				    self->opts.rank, self->opts.world_size, self->l ? "" : " closed");
}

static PyGetSetDef loader_getset[] = {
	{ "batch_size", loader_get_opt, NULL, "Samples per batch.", "batch_size" },
	{ "rank", loader_get_opt, NULL, "This loader's rank.", "rank" },
	{ "world_size", loader_get_opt, NULL, "The number of ranks the epoch is split among.", "world_size" },
	{ "seed", loader_get_opt, NULL, "The seed of the order.", "seed" },
	{ "device", loader_get_opt, NULL, "'cpu' or 'cuda:N' (as torch numbers CUDA devices here): where batches go.",
	  "device" },
	{ "gpu", loader_get_opt, NULL, "The GPU's NVML index (gpufeed's numbering, as nvidia-smi's); -1 for cpu.", "gpu" },
	{ "path", loader_get_opt, NULL, "The dataset as opened.", "path" },
	{ "closed", loader_get_opt, NULL, "Whether close() ran.", "closed" },
	{ "epoch", loader_get_state_field, NULL, "The current epoch.", NULL },
	{ "position", loader_get_state_field, NULL,
	  "The global position in the epoch: samples delivered to all ranks together.", "position" },
	{ "samples_per_epoch", loader_get_samples, NULL, "Samples this rank delivers in a whole epoch.", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyMethodDef loader_methods[] = {
	{ "close", loader_close, METH_NOARGS,
	  "close()\n\nStops the loader's threads and frees its memory, mid-epoch too.  Batches\n"
	  "still alive are released; tensors made from them stay valid." },
	{ "set_epoch", loader_set_epoch, METH_O,
	  "set_epoch(epoch)\n\nStarts epoch `epoch` at position 0 (what was prefetched is discarded)." },
	{ "state_dict", loader_state_dict, METH_NOARGS,
	  "state_dict() -> dict\n\n{'seed', 'epoch', 'position', 'world_size', 'batch_size'}: where the run is.\n"
	  "position is global (samples delivered to all ranks together), so the state\n"
	  "resumes on any number of ranks." },
	{ "load_state_dict", loader_load_state_dict, METH_O,
	  "load_state_dict(state)\n\nResumes at a state_dict(): the next batch starts at its global position,\n"
	  "whatever this loader's world_size, without reading what came before.  A\n"
	  "seed other than this loader's is an Error (EINVAL)." },
	{ "counters", loader_counters, METH_NOARGS,
	  "counters() -> dict\n\nwait_ns, next_calls, bytes_read, samples_delivered, batches_delivered,\n"
	  "batches_ready, slots_in_use, slots, read_ns, copy_ns: a snapshot, safe from\n"
	  "any thread." },
	{ "shuffle_quality", loader_shuffle_quality, METH_NOARGS,
	  "shuffle_quality() -> dict\n\n{'score', 'full'}: the mean entropy (bits) of the blocks each batch's\n"
	  "samples come from in this epoch's order, and that of a full random\n"
	  "permutation of the same samples." },
	{ "__enter__", gfpy_enter, METH_NOARGS, NULL },
	{ "__exit__", loader_exit, METH_VARARGS, NULL },
	{ NULL, NULL, 0, NULL },
};

static PyType_Slot loader_slots[] = {
	{ Py_tp_new, loader_new },
	{ Py_tp_dealloc, loader_dealloc },
	{ Py_tp_repr, loader_repr },
	{ Py_tp_iter, loader_iter },
	{ Py_tp_iternext, loader_next },
	{ Py_tp_methods, loader_methods },
	{ Py_tp_getset, loader_getset },
	{ Py_mp_length, loader_len },
	{ Py_tp_traverse, loader_traverse },
	{ Py_tp_clear, loader_clear },
	{ Py_tp_doc,
	  "Loader(path, batch_size, *, rank=None, world_size=None, seed=0, shuffle=True,\n"
	  "       drop_last=False, device='cpu', threads=None, slots=None, block_bytes=None,\n"
	  "       window_blocks=None, verify=False, buffered=False, uneven='pad',\n"
	  "       numa_node=None, transform=None)\n\n"
	  "Batches of the dataset at path (a directory made by gpufeed pack, its\n"
	  "manifest.json, or a Megatron .bin/.idx prefix), read by threads on the\n"
	  "GPU's NUMA node into a fixed pool of `slots` pinned buffers.  Iterating\n"
	  "yields gpufeed.Batch objects for this rank; `for b in loader` once per\n"
	  "epoch walks epochs 0, 1, 2, ... (set_epoch picks one).\n\n"
	  "rank / world_size: None reads RANK / WORLD_SIZE (torchrun, gpufeed launch),\n"
	  "else 0 and 1.  device: 'cpu' (host memory), or a CUDA device numbered as\n"
	  "torch numbers them in this process ('cuda:N', N, a torch.device: entry N\n"
	  "of CUDA_VISIBLE_DEVICES when it is set); 'cuda' is LOCAL_RANK's (the only\n"
	  "one when CUDA_VISIBLE_DEVICES shows one, as under gpufeed launch).  uneven: 'pad' repeats the epoch's first samples so\n"
	  "every rank gets as many, 'drop' leaves the last (samples mod world_size)\n"
	  "out.  threads, slots, block_bytes, window_blocks: None keeps the library's\n"
	  "defaults (2, 4, 4 MiB, 16).  verify checks every sample's checksum;\n"
	  "buffered reads through the page cache instead of O_DIRECT.\n\n"
	  "transform(sample, data): called on the loader's threads for each sample\n"
	  "after it is read (and checked), with the GIL taken: data is a writable\n"
	  "memoryview of its bytes, valid during the call; return None (data changed\n"
	  "in place or not at all) or a bytes-like object to put in its place (up to\n"
	  "the dataset's largest sample size).  An exception it raises is raised by\n"
	  "next().  It serialises the loader's threads on the GIL: a C transform\n"
	  "(the library's) is the fast path.\n\n"
	  "A batch, and any tensor made from it, holds one slot until released or\n"
	  "deleted: keep fewer than `slots` alive, or next() raises Error (ENOBUFS)." },
	{ 0, NULL },
};

static PyType_Spec loader_spec = {
	.name = "gpufeed.Loader",
	.basicsize = sizeof(struct gfpy_loader),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
	.slots = loader_slots,
};

int gfpy_loader_init(PyObject *module)
{
	gfpy_loader_type = PyType_FromSpec(&loader_spec);
	if (!gfpy_loader_type || PyModule_AddFunctions(module, module_methods))
		return -1;
	return PyModule_AddObjectRef(module, "Loader", gfpy_loader_type);
}
