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
};

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

/* device: "cpu" (host memory), "cuda" (LOCAL_RANK's GPU, as torchrun and
 * gpufeed launch set it), "cuda:N" or N: the GPU index. */
static int device_arg(PyObject *o, int *gpu)
{
	long long v;
	const char *s;
	char *end;

	if (o == Py_None) {
		*gpu = -1;
		return 0;
	}
	if (PyLong_Check(o)) {
		if (gfpy_int_arg(o, "device", 0, INT32_MAX, &v))
			return -1;
		*gpu = (int)v;
		return 0;
	}
	s = PyUnicode_Check(o) ? PyUnicode_AsUTF8AndSize(o, NULL) : NULL;
	if (!s) {
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_TypeError, "device: 'cpu', 'cuda', 'cuda:N' or an int");
		return -1;
	}
	if (!strcmp(s, "cpu")) {
		*gpu = -1;
		return 0;
	}
	if (!strcmp(s, "cuda")) {
		if (env_int("LOCAL_RANK", 0, 0, INT32_MAX, &v))
			return -1;
		*gpu = (int)v;
		return 0;
	}
	if (!strncmp(s, "cuda:", 5) && s[5] >= '0' && s[5] <= '9') {
		errno = 0;
		v = strtoll(s + 5, &end, 10);
		if (!errno && !*end && v <= INT32_MAX) {
			*gpu = (int)v;
			return 0;
		}
	}
	PyErr_Format(PyExc_ValueError, "device='%s': want 'cpu', 'cuda', 'cuda:N' or an int", s);
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
				  "uneven", "numa_node", NULL };
	PyObject *path, *rank = Py_None, *world = Py_None, *seed = Py_None, *device = Py_None, *threads = Py_None,
		 *slots = Py_None, *block = Py_None, *window = Py_None, *node = Py_None;
	int shuffle = 1, drop_last = 0, verify = 0, buffered = 0, ret;
	const char *uneven = "pad";
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gfpy_loader *self;
	long long v, r, w;
	allocfunc alloc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&L|$OOOppOOOOOppsO:Loader", kwlist, PyUnicode_FSConverter, &path,
					 &v, &rank, &world, &seed, &shuffle, &drop_last, &device, &threads, &slots,
					 &block, &window, &verify, &buffered, &uneven, &node))
		return NULL;
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
	if (device_arg(device, &o.gpu) || uneven_arg(uneven, &o.uneven))
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
	self->opts = o;
	Py_BEGIN_ALLOW_THREADS
	ret = gf_loader_open(PyBytes_AsString(path), &o, &self->l);
	Py_END_ALLOW_THREADS
	if (ret) {
		self->l = NULL;
		Py_DECREF(self);
		return gfpy_raise(ret);
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
	flush_pending(self);
	while (self->nlive)
		gfpy_batch_release(self->live[self->nlive - 1]);
	self->l = NULL;
	Py_BEGIN_ALLOW_THREADS
	gf_loader_close(l);
	Py_END_ALLOW_THREADS
}

static void loader_dealloc(PyObject *o)
{
	struct gfpy_loader *self = as_loader(o);

	close_loader(self);
	PyMem_Free(self->live);
	PyMem_Free(self->pending);
	Py_CLEAR(self->path);
	gfpy_free_instance(o);
}

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
		return opts->gpu < 0 ? PyUnicode_FromString("cpu") : PyUnicode_FromFormat("cuda:%d", opts->gpu);
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
	{ "device", loader_get_opt, NULL, "'cpu' or 'cuda:N': where batches are delivered.", "device" },
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
	{ Py_tp_doc,
	  "Loader(path, batch_size, *, rank=None, world_size=None, seed=0, shuffle=True,\n"
	  "       drop_last=False, device='cpu', threads=None, slots=None, block_bytes=None,\n"
	  "       window_blocks=None, verify=False, buffered=False, uneven='pad',\n"
	  "       numa_node=None)\n\n"
	  "Batches of the dataset at path (a directory made by gpufeed pack, its\n"
	  "manifest.json, or a Megatron .bin/.idx prefix), read by threads on the\n"
	  "GPU's NUMA node into a fixed pool of `slots` pinned buffers.  Iterating\n"
	  "yields gpufeed.Batch objects for this rank; `for b in loader` once per\n"
	  "epoch walks epochs 0, 1, 2, ... (set_epoch picks one).\n\n"
	  "rank / world_size: None reads RANK / WORLD_SIZE (torchrun, gpufeed launch),\n"
	  "else 0 and 1.  device: 'cpu' (host memory), 'cuda' (the GPU LOCAL_RANK\n"
	  "names), 'cuda:N' or N.  uneven: 'pad' repeats the epoch's first samples so\n"
	  "every rank gets as many, 'drop' leaves the last (samples mod world_size)\n"
	  "out.  threads, slots, block_bytes, window_blocks: None keeps the library's\n"
	  "defaults (2, 4, 4 MiB, 16).  verify checks every sample's checksum;\n"
	  "buffered reads through the page cache instead of O_DIRECT.\n\n"
	  "A batch, and any tensor made from it, holds one slot until released or\n"
	  "deleted: keep fewer than `slots` alive, or next() raises Error (ENOBUFS)." },
	{ 0, NULL },
};

static PyType_Spec loader_spec = {
	.name = "gpufeed.Loader",
	.basicsize = sizeof(struct gfpy_loader),
	.flags = Py_TPFLAGS_DEFAULT,
	.slots = loader_slots,
};

int gfpy_loader_init(PyObject *module)
{
	gfpy_loader_type = PyType_FromSpec(&loader_spec);
	if (!gfpy_loader_type)
		return -1;
	return PyModule_AddObjectRef(module, "Loader", gfpy_loader_type);
}
