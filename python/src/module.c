/* The _gpufeed module: its errors, version(), topo() and bind(); the types
 * live in loader.c, batch.c and dataset.c. */
#include "gfpy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

PyObject *gfpy_error;

PyObject *gfpy_raise(int ret)
{
	int err = ret < 0 ? -ret : EIO;
	const char *msg = gf_last_error();
	PyObject *text, *exc;

	if (!msg || !*msg)
		msg = strerror(err);
	/* Messages name files: decode them as the file system does. */
	text = PyUnicode_DecodeFSDefault(msg);
	if (!text)
		return NULL;
	exc = PyObject_CallFunction(gfpy_error, "iO", err, text);
	Py_DECREF(text);
	if (exc) {
		PyErr_SetObject(gfpy_error, exc);
		Py_DECREF(exc);
	}
	return NULL;
}

void gfpy_free_instance(PyObject *self)
{
	PyTypeObject *tp = Py_TYPE(self);
	freefunc tp_free = (freefunc)PyType_GetSlot(tp, Py_tp_free);

	tp_free(self);
	Py_DECREF(tp);
}

PyObject *gfpy_enter(PyObject *self, PyObject *unused)
{
	(void)unused;
	Py_INCREF(self);
	return self;
}

PyObject *gfpy_fspath(PyObject *o)
{
	PyObject *bytes = NULL;

	if (!PyUnicode_FSConverter(o, &bytes))
		return NULL;
	return bytes;
}

int gfpy_int_arg(PyObject *o, const char *name, long long min, long long max, long long *out)
{
	long long v;

	if (!PyLong_Check(o)) {
		PyErr_Format(PyExc_TypeError, "%s: an int is needed", name);
		return -1;
	}
	v = PyLong_AsLongLong(o);
	if (v == -1 && PyErr_Occurred()) {
		if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
			PyErr_Clear();
			PyErr_Format(PyExc_ValueError, "%s out of range (%lld..%lld)", name, min, max);
		}
		return -1;
	}
	if (v < min || v > max) {
		PyErr_Format(PyExc_ValueError, "%s=%lld out of range (%lld..%lld)", name, v, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

PyObject *gfpy_json_from(int (*write)(const void *arg, FILE *f), const void *arg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	PyObject *json, *str, *obj = NULL;
	int ret;

	if (!f)
		return PyErr_NoMemory();
	ret = write(arg, f);
	if (fclose(f) && !ret)
		ret = -ENOMEM;
	if (ret) {
		free(text);
		return gfpy_raise(ret);
	}
	str = PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "surrogateescape");
	free(text);
	if (!str)
		return NULL;
	json = PyImport_ImportModule("json");
	if (json) {
		obj = PyObject_CallMethod(json, "loads", "O", str);
		Py_DECREF(json);
	}
	Py_DECREF(str);
	return obj;
}

static PyObject *version(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	return PyUnicode_FromString(gf_version());
}

static int nvml_mode(const char *s, enum gf_nvml_mode *out)
{
	if (!strcmp(s, "auto"))
		*out = GF_NVML_AUTO;
	else if (!strcmp(s, "off"))
		*out = GF_NVML_OFF;
	else if (!strcmp(s, "require"))
		*out = GF_NVML_REQUIRE;
	else {
		PyErr_Format(PyExc_ValueError, "nvml='%s': want 'auto', 'off' or 'require'", s);
		return -1;
	}
	return 0;
}

/* The model of the machine root names (None: this one); NULL with an
 * exception set.  root_bytes keeps the path alive as long as the model's
 * options need it. */
static struct gf_topo *discover(PyObject *root, const char *nvml, PyObject **root_bytes)
{
	struct gf_topo_options o = GF_TOPO_OPTS_INIT;
	struct gf_topo *t = NULL;
	int ret;

	*root_bytes = NULL;
	if (nvml_mode(nvml, &o.nvml))
		return NULL;
	if (root != Py_None) {
		*root_bytes = gfpy_fspath(root);
		if (!*root_bytes)
			return NULL;
		o.root = PyBytes_AsString(*root_bytes);
	}
	Py_BEGIN_ALLOW_THREADS
	ret = gf_topo_discover(&o, &t);
	Py_END_ALLOW_THREADS
	if (ret) {
		Py_CLEAR(*root_bytes);
		gfpy_raise(ret);
		return NULL;
	}
	return t;
}

static int write_topo(const void *arg, FILE *f)
{
	return gf_topo_write_json(arg, f);
}

static PyObject *topo(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "root", "nvml", NULL };
	PyObject *root = Py_None, *root_bytes, *obj;
	const char *nvml = "auto";
	struct gf_topo *t;

	(void)self;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O$s:topo", kwlist, &root, &nvml))
		return NULL;
	t = discover(root, nvml, &root_bytes);
	if (!t)
		return NULL;
	obj = gfpy_json_from(write_topo, t);
	gf_topo_free(t);
	Py_XDECREF(root_bytes);
	return obj;
}

struct bind_json {
	const struct gf_topo *t;
	const struct gf_binding *b;
};

static int write_binding(const void *arg, FILE *f)
{
	const struct bind_json *j = arg;

	return gf_bind_write_json(j->t, j->b, 0, NULL, f);
}

static PyObject *bind(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "gpu", "cpu", "mem", "mem_optional", "root", "apply", NULL };
	PyObject *gpu, *root = Py_None, *apply_obj = Py_None, *gpu_str = NULL, *root_bytes = NULL, *obj = NULL;
	const char *cpu = "node", *mem = "bind", *list;
	int mem_optional = 0, apply, ret, n;
	struct gf_bind_options o = GF_BIND_OPTS_INIT;
	struct gf_bind_target targets[GF_BIND_MAX_TARGETS];
	struct gf_binding *b = NULL;
	struct gf_topo *t = NULL;
	struct bind_json j;
	char warning_text[1024] = "";

	(void)self;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$sspOO:bind", kwlist, &gpu, &cpu, &mem, &mem_optional, &root,
					 &apply_obj))
		return NULL;
	/* A recording is previewed, never applied here: a binding computed
	 * for another machine's CPUs would be wrong on this one. */
	apply = apply_obj == Py_None ? root == Py_None : PyObject_IsTrue(apply_obj);
	if (apply < 0)
		return NULL;
	if (apply && root != Py_None) {
		PyErr_SetString(PyExc_ValueError,
				"bind: root= names a recording, whose binding is only previewed (apply=False)");
		return NULL;
	}
	if (gf_bind_cpu_mode_parse(cpu, &o.cpu) || gf_bind_mem_policy_parse(mem, &o.mem))
		return gfpy_raise(-EINVAL);
	o.mem_optional = mem_optional;
	o.allowed_from_model = root != Py_None;
	gpu_str = PyLong_Check(gpu) ? PyObject_Str(gpu) : (Py_INCREF(gpu), gpu);
	if (!gpu_str)
		return NULL;
	list = PyUnicode_Check(gpu_str) ? PyUnicode_AsUTF8AndSize(gpu_str, NULL) : NULL;
	if (!list) {
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_TypeError, "bind: gpu is an NVML index, a UUID, a PCI address or a list of them");
		goto out;
	}
	b = PyMem_Calloc(1, sizeof(*b));
	if (!b) {
		PyErr_NoMemory();
		goto out;
	}
	t = discover(root, "auto", &root_bytes);
	if (!t)
		goto out;
	Py_BEGIN_ALLOW_THREADS
	n = gf_bind_parse_targets(t, list, targets, GF_BIND_MAX_TARGETS);
	ret = n < 0 ? n : gf_bind_compute(t, targets, n, &o, b);
	if (!ret && apply)
		ret = gf_bind_apply(b, &o);
	if (ret == GF_BIND_WARNED)
		snprintf(warning_text, sizeof(warning_text), "%s", gf_last_error());
	Py_END_ALLOW_THREADS
	if (ret < 0) {
		gfpy_raise(ret);
		goto out;
	}
	j.t = t;
	j.b = b;
	obj = gfpy_json_from(write_binding, &j);
	if (obj && PyDict_Check(obj) && PyDict_SetItemString(obj, "applied", apply ? Py_True : Py_False))
		Py_CLEAR(obj);
	if (obj && ret == GF_BIND_WARNED) {
		/* Bound, but less than asked (the memory policy refused). */
		PyObject *warning = PyUnicode_DecodeFSDefault(warning_text);

		if (!warning || PyDict_SetItemString(obj, "warning", warning))
			Py_CLEAR(obj);
		Py_XDECREF(warning);
	}
out:
	gf_topo_free(t);
	PyMem_Free(b);
	Py_XDECREF(gpu_str);
	Py_XDECREF(root_bytes);
	return obj;
}

/* One marker a step: no GIL release, the call is a clock read and a few
 * atomic adds (and nothing when not under gpufeed diagnose). */
static PyObject *step(PyObject *self, PyObject *unused)
{
	int ret;

	(void)self;
	(void)unused;
	if ((ret = gf_step()))
		return gfpy_raise(ret);
	Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
	{ "version", version, METH_NOARGS, "version() -> str\n\nThe version of the gpufeed library loaded." },
	{ "topo", (PyCFunction)(void (*)(void))topo, METH_VARARGS | METH_KEYWORDS,
	  "topo(root=None, *, nvml='auto') -> dict\n\n"
	  "The machine model (docs/json-topo.md) of this machine, or of the recording\n"
	  "root names (a directory or a .tar.gz made by `gpufeed record`), as the\n"
	  "dict `gpufeed topo --json` prints.  nvml: 'auto', 'off' or 'require'." },
	{ "bind", (PyCFunction)(void (*)(void))bind, METH_VARARGS | METH_KEYWORDS,
	  "bind(gpu, *, cpu='node', mem='bind', mem_optional=False, root=None, apply=None) -> dict\n\n"
	  "Binds this process to the CPUs and memory nodes local to gpu (an NVML index,\n"
	  "a UUID, a PCI address, or a comma-separated list of them): the CPU affinity\n"
	  "of every thread and the calling thread's memory policy (inherited by\n"
	  "threads started after).  Returns the binding as `gpufeed run --dry-run\n"
	  "--json` prints it, with 'applied'.  The environment it lists (e.g.\n"
	  "CUDA_VISIBLE_DEVICES) is not set: a running process's CUDA ordinals\n"
	  "would change under it.  root= previews the binding on a recording\n"
	  "(apply must then be False, the default with root)." },
	{ "step", step, METH_NOARGS,
	  "step() -> None\n\n"
	  "Marks the end of one training step, for `gpufeed diagnose` (docs/diagnose.md):\n"
	  "call it at the same point of every step, from the training loop.  It does\n"
	  "nothing unless the process runs under diagnose (GPUFEED_DIAGNOSE set)." },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT,
	.m_name = "gpufeed._gpufeed",
	.m_doc = "gpufeed's C library seen from Python (use the gpufeed package).",
	.m_size = -1,
	.m_methods = methods,
};

PyMODINIT_FUNC PyInit__gpufeed(void);
PyMODINIT_FUNC PyInit__gpufeed(void)
{
	PyObject *m = PyModule_Create(&module_def);

	if (!m)
		return NULL;
	gfpy_error = PyErr_NewExceptionWithDoc("gpufeed.Error",
					       "An error from the gpufeed library: an OSError whose errno is the\n"
					       "library's and whose strerror is its message (gf_last_error()),\n"
					       "naming the file, shard or device.",
					       PyExc_OSError, NULL);
	if (!gfpy_error || PyModule_AddObjectRef(m, "Error", gfpy_error) || gfpy_batch_init(m) ||
	    gfpy_loader_init(m) || gfpy_dataset_init(m)) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
