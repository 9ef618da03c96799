/* gpufeed.Dataset (gf_dataset_*) and gpufeed.pack (gf_pack), over
 * include/gpufeed/dataset.h. */
#include "gfpy.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

PyObject *gfpy_dataset_type;

struct gfpy_dataset {
	PyObject_HEAD
	struct gf_dataset *d;	/* NULL once closed */
};

static struct gf_dataset *open_dataset(PyObject *o)
{
	struct gfpy_dataset *self = (struct gfpy_dataset *)o;

	if (!self->d)
		PyErr_SetString(PyExc_ValueError, "the dataset is closed");
	return self->d;
}

static PyObject *dataset_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", NULL };
	struct gfpy_dataset *self;
	PyObject *path;
	allocfunc alloc;
	int ret;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&:Dataset", kwlist, PyUnicode_FSConverter, &path))
		return NULL;
	alloc = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);
	self = (struct gfpy_dataset *)alloc(tp, 0);
	if (!self) {
		Py_DECREF(path);
		return NULL;
	}
	/* Opening maps and checks every shard's index: it works. */
	Py_BEGIN_ALLOW_THREADS
	ret = gf_dataset_open(PyBytes_AsString(path), &self->d);
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	if (ret) {
		self->d = NULL;
		Py_DECREF(self);
		return gfpy_raise(ret);
	}
	return (PyObject *)self;
}

static void dataset_dealloc(PyObject *o)
{
	struct gfpy_dataset *self = (struct gfpy_dataset *)o;

	gf_dataset_close(self->d);
	self->d = NULL;
	gfpy_free_instance(o);
}

static PyObject *dataset_close(PyObject *o, PyObject *unused)
{
	struct gfpy_dataset *self = (struct gfpy_dataset *)o;

	(void)unused;
	gf_dataset_close(self->d);
	self->d = NULL;
	Py_RETURN_NONE;
}

static PyObject *dataset_exit(PyObject *o, PyObject *args)
{
	(void)args;
	dataset_close(o, NULL);
	Py_RETURN_FALSE;
}

static PyObject *fs_str(const char *s)
{
	if (!s)
		Py_RETURN_NONE;
	return PyUnicode_DecodeFSDefault(s);
}

/* 0, or -1 with an exception set. */
static int get_info(PyObject *o, struct gf_dataset_info *in)
{
	struct gf_dataset *d = open_dataset(o);
	int ret;

	if (!d)
		return -1;
	ret = gf_dataset_info(d, in);
	if (ret) {
		gfpy_raise(ret);
		return -1;
	}
	return 0;
}

static PyObject *dataset_info(PyObject *o, void *closure)
{
	struct gf_dataset_info in;

	(void)closure;
	if (get_info(o, &in))
		return NULL;
	return Py_BuildValue("{sssNsNsKsIsKsKsnsKsKsssI}", "kind", gf_dataset_kind_name(in.kind), "path",
			     fs_str(in.path), "name", fs_str(in.name), "samples", (unsigned long long)in.samples,
			     "shards", in.shards, "data_bytes", (unsigned long long)in.data_bytes, "file_bytes",
			     (unsigned long long)in.file_bytes, "record_size", (Py_ssize_t)in.record_size, "min_size",
			     (unsigned long long)in.min_size, "max_size", (unsigned long long)in.max_size, "checksum",
			     gf_checksum_name(in.checksum), "align", in.align);
}

static PyObject *shard_dict(const struct gf_shard_info *s)
{
	return Py_BuildValue("{sNsNsKsKsKsKsI}", "data_path", fs_str(s->data_path), "index_path",
			     fs_str(s->index_path), "first_sample", (unsigned long long)s->first_sample, "samples",
			     (unsigned long long)s->samples, "data_bytes", (unsigned long long)s->data_bytes,
			     "file_bytes", (unsigned long long)s->file_bytes, "align", s->align);
}

static PyObject *dataset_shards(PyObject *o, void *closure)
{
	struct gf_dataset *d = open_dataset(o);
	struct gf_dataset_info in;
	struct gf_shard_info s;
	PyObject *list;
	int ret;

	(void)closure;
	if (get_info(o, &in))
		return NULL;
	list = PyList_New(0);
	for (unsigned i = 0; list && i < in.shards; i++) {
		PyObject *item;

		ret = gf_dataset_shard(d, i, &s);
		if (ret) {
			Py_CLEAR(list);
			return gfpy_raise(ret);
		}
		item = shard_dict(&s);
		if (!item || PyList_Append(list, item))
			Py_CLEAR(list);
		Py_XDECREF(item);
	}
	return list;
}

static Py_ssize_t dataset_len(PyObject *o)
{
	struct gf_dataset_info in;

	if (get_info(o, &in))
		return -1;
	return in.samples > PY_SSIZE_T_MAX ? PY_SSIZE_T_MAX : (Py_ssize_t)in.samples;
}

static int sample_arg(PyObject *arg, unsigned long long *i)
{
	*i = PyLong_Check(arg) ? PyLong_AsUnsignedLongLong(arg) : 0;
	if (!PyLong_Check(arg))
		PyErr_SetString(PyExc_TypeError, "a sample number (int) is needed");
	return PyErr_Occurred() ? -1 : 0;
}

static PyObject *dataset_sample(PyObject *o, PyObject *arg)
{
	struct gf_dataset *d = open_dataset(o);
	struct gf_sample_loc at;
	unsigned long long i;
	int ret;

	if (!d || sample_arg(arg, &i))
		return NULL;
	ret = gf_dataset_sample(d, i, &at);
	if (ret)
		return gfpy_raise(ret);
	return Py_BuildValue("{sIsKsKsKsK}", "shard", at.shard, "record", (unsigned long long)at.record, "offset",
			     (unsigned long long)at.offset, "size", (unsigned long long)at.size, "checksum",
			     (unsigned long long)at.checksum);
}

static PyObject *dataset_key(PyObject *o, PyObject *arg)
{
	struct gf_dataset *d = open_dataset(o);
	unsigned long long i;
	const char *key;
	size_t len;
	int ret;

	if (!d || sample_arg(arg, &i))
		return NULL;
	ret = gf_dataset_key(d, i, &key, &len);
	if (ret)
		return gfpy_raise(ret);
	return PyBytes_FromStringAndSize(len ? key : "", (Py_ssize_t)len);
}

/* Sample i's bytes, read from its shard's data file. */
static PyObject *dataset_read(PyObject *o, PyObject *arg)
{
	struct gf_dataset *d = open_dataset(o);
	struct gf_sample_loc at;
	struct gf_shard_info s;
	unsigned long long i;
	PyObject *bytes;
	ssize_t got = 0;
	int ret, fd, err = 0;
	char *buf;

	if (!d || sample_arg(arg, &i))
		return NULL;
	ret = gf_dataset_sample(d, i, &at);
	if (!ret)
		ret = gf_dataset_shard(d, at.shard, &s);
	if (ret)
		return gfpy_raise(ret);
	if (at.size > PY_SSIZE_T_MAX)
		return PyErr_NoMemory();
	bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)at.size);
	if (!bytes)
		return NULL;
	buf = PyBytes_AsString(bytes);
	Py_BEGIN_ALLOW_THREADS
	fd = open(s.data_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
	} else {
		while ((uint64_t)got < at.size) {
			ssize_t n = pread(fd, buf + got, at.size - (uint64_t)got, (off_t)(at.offset + (uint64_t)got));

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				err = n < 0 ? errno : EIO;
				break;
			}
			got += n;
		}
		close(fd);
	}
	Py_END_ALLOW_THREADS
	if (err) {
		Py_DECREF(bytes);
		errno = err;
		return PyErr_SetFromErrnoWithFilename(gfpy_error, s.data_path);
	}
	return bytes;
}

static PyObject *dataset_check(PyObject *o, PyObject *args)
{
	struct gf_dataset *d = open_dataset(o);
	unsigned long long i;
	Py_buffer view;
	int ret;

	if (!d || !PyArg_ParseTuple(args, "Ky*:check", &i, &view))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	ret = gf_dataset_check_sample(d, i, view.buf, (size_t)view.len);
	Py_END_ALLOW_THREADS
	PyBuffer_Release(&view);
	if (ret)
		return gfpy_raise(ret);
	Py_RETURN_NONE;
}

static PyObject *dataset_verify(PyObject *o, PyObject *unused)
{
	struct gf_dataset *d = open_dataset(o);
	int ret;

	(void)unused;
	if (!d)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	ret = gf_dataset_verify(d, NULL, NULL);
	Py_END_ALLOW_THREADS
	if (ret)
		return gfpy_raise(ret);
	Py_RETURN_NONE;
}

static PyGetSetDef dataset_getset[] = {
	{ "info", dataset_info, NULL,
	  "dict: kind ('gpufeed' or 'megatron'), path, name, samples, shards,\n"
	  "data_bytes, file_bytes, record_size (0 when sizes vary), min_size,\n"
	  "max_size, checksum, align.", NULL },
	{ "shards", dataset_shards, NULL,
	  "list of dicts: data_path, index_path, first_sample, samples, data_bytes,\n"
	  "file_bytes, align.", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyMethodDef dataset_methods[] = {
	{ "sample", dataset_sample, METH_O,
	  "sample(i) -> dict\n\nWhere sample i is: shard, record, offset, size, checksum." },
	{ "key", dataset_key, METH_O, "key(i) -> bytes\n\nSample i's key (b'' when the format has none)." },
	{ "read", dataset_read, METH_O, "read(i) -> bytes\n\nSample i's bytes, read from its shard." },
	{ "check", dataset_check, METH_VARARGS,
	  "check(i, data)\n\nChecks data (bytes-like) against sample i's size and checksum; Error\n"
	  "(EBADMSG) naming the shard, record and offset on a mismatch." },
	{ "verify", dataset_verify, METH_NOARGS,
	  "verify()\n\nReads every record and checks its checksum and every index against its\n"
	  "data file: Error naming the shard and record at the first mismatch." },
	{ "close", dataset_close, METH_NOARGS, "close()" },
	{ "__enter__", gfpy_enter, METH_NOARGS, NULL },
	{ "__exit__", dataset_exit, METH_VARARGS, NULL },
	{ NULL, NULL, 0, NULL },
};

static PyType_Slot dataset_slots[] = {
	{ Py_tp_new, dataset_new },
	{ Py_tp_dealloc, dataset_dealloc },
	{ Py_tp_methods, dataset_methods },
	{ Py_tp_getset, dataset_getset },
	{ Py_mp_length, dataset_len },
	{ Py_tp_doc, "Dataset(path)\n\n"
		     "A dataset opened read-only: a directory made by gpufeed pack (or its\n"
		     "manifest.json), or a Megatron .bin/.idx prefix.  Opening checks the\n"
		     "manifest and every index against the data files' sizes; len() is the\n"
		     "number of samples." },
	{ 0, NULL },
};

static PyType_Spec dataset_spec = {
	.name = "gpufeed.Dataset",
	.basicsize = sizeof(struct gfpy_dataset),
	.flags = Py_TPFLAGS_DEFAULT,
	.slots = dataset_slots,
};

/* ---- pack() ---- */

static PyObject *pack(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "inputs", "outdir", "input", "record_size", "shard_size", "align", "checksum",
				  "name", NULL };
	PyObject *inputs, *outdir, *record = Py_None, *shard = Py_None, *align = Py_None, *name = Py_None;
	PyObject *seq = NULL, **paths = NULL, *name_bytes = NULL, *result = NULL;
	const char *input = "auto", *checksum = "xxh3", **argv = NULL;
	struct gf_pack_opts o = GF_PACK_OPTS_INIT;
	struct gf_pack_result r;
	Py_ssize_t n = 0, i;
	long long v;
	int ret;

	(void)self;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&|$sOOOsO:pack", kwlist, &inputs, PyUnicode_FSConverter,
					 &outdir, &input, &record, &shard, &align, &checksum, &name))
		return NULL;
	if (gf_pack_input_parse(input, &o.input) || gf_checksum_parse(checksum, &o.checksum)) {
		gfpy_raise(-EINVAL);
		goto out;
	}
	if ((record != Py_None && gfpy_int_arg(record, "record_size", 1, INT64_MAX, &v)) ||
	    (shard != Py_None && gfpy_int_arg(shard, "shard_size", 1, INT64_MAX, &v)) ||
	    (align != Py_None && gfpy_int_arg(align, "align", 1, 1 << 20, &v)))
		goto out;
	if (record != Py_None)
		o.record_size = (size_t)PyLong_AsLongLong(record);
	if (shard != Py_None)
		o.shard_bytes = (uint64_t)PyLong_AsLongLong(shard);
	if (align != Py_None)
		o.align = (unsigned)PyLong_AsLongLong(align);
	if (name != Py_None) {
		if (!PyUnicode_Check(name)) {
			PyErr_SetString(PyExc_TypeError, "pack: name is a str");
			goto out;
		}
		name_bytes = PyUnicode_AsUTF8String(name);
		if (!name_bytes)
			goto out;
		o.name = PyBytes_AsString(name_bytes);
	}
	/* One path, or a sequence of them. */
	if (PyUnicode_Check(inputs) || PyBytes_Check(inputs) || PyObject_HasAttrString(inputs, "__fspath__"))
		seq = PyTuple_Pack(1, inputs);
	else
		seq = PySequence_Tuple(inputs);
	if (!seq)
		goto out;
	n = PyTuple_Size(seq);
	if (n < 1 || n > UINT32_MAX) {
		PyErr_SetString(PyExc_ValueError, "pack: no inputs");
		goto out;
	}
	paths = PyMem_Calloc((size_t)n, sizeof(*paths));
	argv = PyMem_Calloc((size_t)n, sizeof(*argv));
	if (!paths || !argv) {
		PyErr_NoMemory();
		goto out;
	}
	for (i = 0; i < n; i++) {
		paths[i] = gfpy_fspath(PyTuple_GetItem(seq, i));
		if (!paths[i])
			goto out;
		argv[i] = PyBytes_AsString(paths[i]);
	}
	Py_BEGIN_ALLOW_THREADS
	ret = gf_pack(argv, (unsigned)n, PyBytes_AsString(outdir), &o, &r);
	Py_END_ALLOW_THREADS
	if (ret) {
		gfpy_raise(ret);
		goto out;
	}
	result = Py_BuildValue("{sKsKsKsK}", "samples", (unsigned long long)r.samples, "shards",
			       (unsigned long long)r.shards, "data_bytes", (unsigned long long)r.data_bytes,
			       "file_bytes", (unsigned long long)r.file_bytes);
out:
	for (i = 0; paths && i < n; i++)
		Py_XDECREF(paths[i]);
	PyMem_Free(paths);
	PyMem_Free(argv);
	Py_XDECREF(seq);
	Py_XDECREF(name_bytes);
	Py_DECREF(outdir);
	return result;
}

static PyMethodDef pack_method[] = {
	{ "pack", (PyCFunction)(void (*)(void))pack, METH_VARARGS | METH_KEYWORDS,
	  "pack(inputs, outdir, *, input='auto', record_size=None, shard_size=None,\n"
	  "     align=None, checksum='xxh3', name=None) -> dict\n\n"
	  "Packs inputs (a path or a list of them: a directory tree of files, .jsonl /\n"
	  ".txt lines, WebDataset .tar shards, or a flat file of record_size-byte\n"
	  "records) into outdir as gpufeed pack does: shards of shard_size bytes\n"
	  "(default 1 GiB) with records aligned to align (4096), an index each and\n"
	  "manifest.json.  input: 'auto', 'files', 'lines', 'tar', 'records';\n"
	  "checksum: 'xxh3' or 'crc32c'.  Returns {'samples', 'shards', 'data_bytes',\n"
	  "'file_bytes'}." },
	{ NULL, NULL, 0, NULL },
};

int gfpy_dataset_init(PyObject *module)
{
	gfpy_dataset_type = PyType_FromSpec(&dataset_spec);
	if (!gfpy_dataset_type || PyModule_AddObjectRef(module, "Dataset", gfpy_dataset_type))
		return -1;
	return PyModule_AddFunctions(module, pack_method);
}
