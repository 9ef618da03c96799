#!/usr/bin/env python3
"""gpufeed's memory handed to PyTorch as DLPack tensors, on a real GPU.

Pinned host memory (GF_BUF_PINNED) and device memory (gf_devbuf_alloc) are
exported with gf_buf_dlpack / gf_devbuf_dlpack, wrapped in the PyCapsule
named "dltensor" the DLPack protocol defines, and read by
torch.from_dlpack without a copy: torch sees the bytes gpufeed wrote, writes
bytes gpufeed reads back, and keeps the memory alive after gpufeed's owner
lets go (the tensor's reference).  The library is loaded with ctypes from
GPUFEED_LIB (default build/libgpufeed.so).  Exit 77 without torch or CUDA.

    python3 tests/gpu/dlpack_torch.py
"""
import ctypes
import os
import sys

try:
    import torch
except ImportError:
    print("skip: no torch in this python")
    sys.exit(77)
if not torch.cuda.is_available():
    print("skip: torch sees no CUDA device")
    sys.exit(77)

lib = ctypes.CDLL(os.environ.get("GPUFEED_LIB", "build/libgpufeed.so"))


class BufOpts(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("size", ctypes.c_size_t), ("align", ctypes.c_size_t),
                ("numa_node", ctypes.c_int), ("flags", ctypes.c_uint), ("gpu", ctypes.c_uint)]


class Buf(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("size", ctypes.c_size_t), ("align", ctypes.c_size_t),
                ("numa_node", ctypes.c_int), ("placed", ctypes.c_bool), ("locked", ctypes.c_bool),
                ("huge", ctypes.c_bool), ("pinned", ctypes.c_bool)]


class DevBuf(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_uint64), ("size", ctypes.c_size_t), ("gpu", ctypes.c_uint),
                ("cuda_ordinal", ctypes.c_int), ("pci", ctypes.c_char * 16)]


class DType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


GF_BUF_PINNED = 0x20
GF_DL_FLOAT = 2
lib.gf_last_error.restype = ctypes.c_char_p
lib.gf_buf_dlpack.argtypes = [ctypes.POINTER(Buf), ctypes.c_size_t, DType, ctypes.c_int,
                              ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_void_p)]
lib.gf_devbuf_dlpack.argtypes = [ctypes.POINTER(DevBuf), ctypes.c_size_t, DType, ctypes.c_int,
                                 ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_void_p)]
capsule_new = ctypes.pythonapi.PyCapsule_New
capsule_new.restype = ctypes.py_object
capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
failures = 0


def check(ok, what):
    global failures
    print(("ok - " if ok else "not ok - ") + what)
    failures += not ok


def err():
    return lib.gf_last_error().decode()


class Capsule:
    """What torch.from_dlpack takes: an object with __dlpack__ and __dlpack_device__."""

    def __init__(self, tensor_ptr, device):
        self.cap = capsule_new(tensor_ptr, b"dltensor", None)
        self.device = device

    def __dlpack__(self, stream=None, **kwargs):
        return self.cap

    def __dlpack_device__(self):
        return self.device


rows, cols = 256, 1024
shape = (ctypes.c_int64 * 2)(rows, cols)

# Device memory: torch reads what gpufeed's buffer holds (zeroed by torch's
# own write first), writes into it, and the memory outlives gf_devbuf_free.
d = ctypes.POINTER(DevBuf)()
rc = lib.gf_devbuf_alloc(0, rows * cols * 4, ctypes.byref(d))
check(rc == 0, "gf_devbuf_alloc 1 MiB on GPU 0: %s" % ("" if rc == 0 else err()))
t = ctypes.c_void_p()
rc = lib.gf_devbuf_dlpack(d, 0, DType(GF_DL_FLOAT, 32, 1), 2, shape, ctypes.byref(t))
check(rc == 0, "gf_devbuf_dlpack: a 256x1024 float32 view")
x = torch.from_dlpack(Capsule(t.value, (2, d.contents.cuda_ordinal)))
check(x.is_cuda and tuple(x.shape) == (rows, cols) and x.dtype == torch.float32,
      "torch sees a CUDA float32 tensor of its shape: %s %s %s" % (x.device, tuple(x.shape), x.dtype))
check(x.data_ptr() == d.contents.ptr, "without a copy: torch's pointer is gpufeed's")
lib.gf_devbuf_free(d)
x.fill_(2.0)
torch.cuda.synchronize()
check(float(x.sum()) == 2.0 * rows * cols, "after gf_devbuf_free the tensor still owns its memory: sum %s" % float(x.sum()))
del x
torch.cuda.synchronize()

# Pinned host memory: a CPU tensor over page-locked memory, so torch copies
# it to the GPU asynchronously (non_blocking) from the very bytes gpufeed
# pinned.
o = BufOpts(ctypes.sizeof(BufOpts), rows * cols * 4, 0, -1, GF_BUF_PINNED, 0)
b = ctypes.POINTER(Buf)()
rc = lib.gf_buf_alloc(ctypes.byref(o), ctypes.byref(b))
check(rc == 0 and b.contents.pinned, "gf_buf_alloc GF_BUF_PINNED: %s" % ("pinned" if rc == 0 else err()))
ctypes.memset(b.contents.data, 0, rows * cols * 4)
rc = lib.gf_buf_dlpack(b, 0, DType(GF_DL_FLOAT, 32, 1), 2, shape, ctypes.byref(t))
check(rc == 0, "gf_buf_dlpack: a view of the pinned buffer")
dev_type = ctypes.cast(t, ctypes.POINTER(ctypes.c_int32 * 4)).contents[2]
try:
    h = torch.from_dlpack(Capsule(t.value, (dev_type, 0)))
    check(dev_type == 1, "exported as CPU memory (DLPack device type %d)" % dev_type)
    check(h.device.type == "cpu" and h.is_pinned(), "torch takes it as CPU memory and finds it pinned: %s, pinned %s"
          % (h.device, h.is_pinned()))
    check(h.data_ptr() == b.contents.data, "without a copy")
    lib.gf_buf_free(b)
    h.fill_(3.0)
    g = h.to("cuda", non_blocking=True)
    torch.cuda.synchronize()
    check(float(g.sum()) == 3.0 * rows * cols, "copied to the GPU from the pinned bytes after gf_buf_free: sum %s"
          % float(g.sum()))
    del h, g
except Exception as e:      # a consumer that refuses the device type says so here
    check(False, "torch.from_dlpack of pinned memory (DLPack device type %d): %s" % (dev_type, e))
sys.exit(1 if failures else 0)
