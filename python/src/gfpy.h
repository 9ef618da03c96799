/* gpufeed's Python binding (the _gpufeed extension): what its files share.
 *
 * Written against the limited C API of CPython 3.11 (Py_LIMITED_API, one
 * abi3 build for 3.11 and later) and gpufeed's public headers only.  Every
 * call into the library that reads, waits or computes runs with the GIL
 * released; gf_last_error() is per thread, and Py_BEGIN_ALLOW_THREADS keeps
 * the thread, so the message read after the call is that call's. */
#ifndef GFPY_H
#define GFPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>
#include <stdint.h>
#include <gpufeed/gpufeed.h>
#include <gpufeed/dataset.h>
#include <gpufeed/loader.h>

/* gpufeed.Error (an OSError): set from a -errno return and gf_last_error();
 * returns NULL so a caller can `return gfpy_raise(ret);`. */
extern PyObject *gfpy_error;
PyObject *gfpy_raise(int ret);

/* The module's other types, made in PyInit__gpufeed. */
extern PyObject *gfpy_loader_type;
extern PyObject *gfpy_batch_type;
extern PyObject *gfpy_tensor_type;
extern PyObject *gfpy_dataset_type;

int gfpy_loader_init(PyObject *module);
int gfpy_batch_init(PyObject *module);
int gfpy_dataset_init(PyObject *module);

/* Frees an instance of one of the module's heap types (its type's tp_free,
 * then the reference the instance held on its type). */
void gfpy_free_instance(PyObject *self);

/* __enter__ of the module's context managers: returns self. */
PyObject *gfpy_enter(PyObject *self, PyObject *unused);

/* The path in o (str, bytes or os.PathLike) as bytes in the file system's
 * encoding; NULL with an exception set. */
PyObject *gfpy_fspath(PyObject *o);

/* Calls json.loads on the text write() puts in a memory stream: the model
 * and the binding are handed to Python as the JSON documents the CLI
 * writes.  write returns 0 or -errno. */
PyObject *gfpy_json_from(int (*write)(const void *arg, FILE *f), const void *arg);

/* A C integer argument: o (an int) in [min, max]; -1 with ValueError naming
 * the argument, or TypeError. */
int gfpy_int_arg(PyObject *o, const char *name, long long min, long long max, long long *out);

/* A Batch for b, taken by loader (which it keeps alive). */
PyObject *gfpy_batch_new(PyObject *loader, struct gf_batch *b);
/* Gives a Batch's slot back, once (release(), deletion, the loader's close). */
void gfpy_batch_release(PyObject *batch);
/* The loader's side of a batch: give b back now, or later when the loader
 * is busy in another thread (gf_loader_next runs without the GIL). */
void gfpy_loader_release(PyObject *loader, struct gf_batch *b);
/* Whether the loader is closed (its batches are then gone with it). */
bool gfpy_loader_closed(PyObject *loader);
/* The live Batch objects of a loader: added on creation, removed on
 * release; close() releases those left. */
void gfpy_loader_track(PyObject *loader, PyObject *batch);
void gfpy_loader_untrack(PyObject *loader, PyObject *batch);
/* A tensor object (gpufeed.Tensor) owning t: __dlpack__ hands t over once. */
PyObject *gfpy_tensor_new(struct gf_dl_managed_tensor *t);
/* The "dltensor" capsule of t, whose destructor deletes t unless a
 * consumer renamed it "used_dltensor" (the DLPack protocol). */
PyObject *gfpy_dlpack_capsule(struct gf_dl_managed_tensor *t);

#endif
