// launch_plan.cpp: the usual wp.launch in one native call (issue 21 item 4: a launch under half a
// microsecond). A part of launch_module.cpp (included by it, after Python.h and cpu_runtime.cpp), not a
// header: native/ headers compile alone and under NVRTC, this needs CPython.
//
// Most launches of a simulation repeat the kernel's last launch: the same device, block_dim and
// kernel arguments of the same kinds, only the arrays and scalars new. For such a launch the Python
// launcher (launch/launcher.py) asks `launch_usual` first. It does what the Python path would do on
// the same launch, in the same order, with the same checks: the kernel's last launcher (its plan),
// the settings epoch, no Tape and no capture recording, the dim's cached bounds, and each argument
// checked as the generated Python packer checks it (an exact wp.array of the parameter's dtype,
// number of dimensions and device; a scalar of an exact Python type that fits) and written into the
// kernel's argument struct. Anything else, or anything that fails, answers False and the Python path
// runs the launch from the start, so every error a user sees is still the Python path's.
//
// A plan is made per launcher (launch/plan.py) and kept in Kernel.last_launch; it is immutable.

#include <float.h>
#include <math.h>
#include <string.h>

namespace plan {

enum Kind : unsigned char { ARRAY = 1, I32, U32, I64, U64, F32, F64, BOOL };

struct Slot {
    unsigned char kind;
    unsigned char ndim;  // ARRAY: dimensions
    int offset;          // in the argument struct
    PyObject* dtype;     // ARRAY: the parameter's dtype (compared by identity, as the packer does)
};

struct Plan {
    entry_fn fn;
    kernel_stats* stats;       // may be null
    const int* failed;         // checked code: the check state's `failed` word; else null
    long long epoch;           // wp.config.epoch the launcher was made under
    int nparams;
    int size;                  // bytes of the argument struct
    int tid_count;             // indices wp.tid() gives (the bounds of a launch of more dims are refitted)
    PyObject* device;          // the launcher's Device
    PyObject* pack;            // the Python packer, used when `general` (kinds the plan does not write)
    bool general;
    Slot slots[1];             // nparams of them
};

// What the launcher module gives once (setup): the dicts and objects the usual launch reads.
struct Globals {
    PyObject* config;      // warp_nb.config's __dict__: epoch, cpu_threads
    PyObject* recording;   // warp_nb.runtime.recording's __dict__: tape, capture
    PyObject* devices;     // warp_nb.runtime.devices' __dict__: _scopes_open, _default_device
    PyObject* bounds;      // launch.bounds.bounds_cache
    PyObject* array_type;  // warp_nb.array
    int cpu_count;
    PyObject *s_epoch, *s_cpu_threads, *s_tape, *s_capture, *s_scopes, *s_default, *s_last_launch, *s_dtype,
        *s_shape, *s_device, *s_desc;
};
Globals g = {};

constexpr int kMaxStruct = 2048;            // larger argument structs go through the Python packer
constexpr double kKeepGilBelowNs = 20000.0;  // a launch known to take less keeps the GIL

void destroy(PyObject* capsule) {
    Plan* p = (Plan*)PyCapsule_GetPointer(capsule, "wpnb.plan");
    if (!p) return;
    for (int k = 0; k < p->nparams; ++k) Py_XDECREF(p->slots[k].dtype);
    Py_XDECREF(p->device);
    Py_XDECREF(p->pack);
    PyMem_Free(p);
}

// make_plan(entry, stats, failed, epoch, tid_count, size, device, pack, general, kinds, offsets,
//           ndims, dtypes): kinds and ndims are bytes, offsets and dtypes tuples, one per parameter.
PyObject* make(PyObject*, PyObject* const* a, Py_ssize_t n) {
    if (n != 13 || !PyBytes_Check(a[9]) || !PyTuple_Check(a[10]) || !PyBytes_Check(a[11]) || !PyTuple_Check(a[12])) {
        PyErr_SetString(PyExc_TypeError, "make_plan: bad arguments");
        return nullptr;
    }
    const Py_ssize_t np = PyBytes_GET_SIZE(a[9]);
    if (PyTuple_GET_SIZE(a[10]) != np || PyBytes_GET_SIZE(a[11]) != np || PyTuple_GET_SIZE(a[12]) != np) {
        PyErr_SetString(PyExc_ValueError, "make_plan: one kind, offset, ndim and dtype per parameter");
        return nullptr;
    }
    Plan* p = (Plan*)PyMem_Calloc(1, sizeof(Plan) + sizeof(Slot) * (np > 0 ? np : 1));
    if (!p) return PyErr_NoMemory();
    p->fn = (entry_fn)PyLong_AsVoidPtr(a[0]);
    p->stats = (kernel_stats*)PyLong_AsVoidPtr(a[1]);
    p->failed = (const int*)PyLong_AsVoidPtr(a[2]);
    p->epoch = PyLong_AsLongLong(a[3]);
    p->tid_count = (int)PyLong_AsLong(a[4]);
    p->size = (int)PyLong_AsLong(a[5]);
    p->nparams = (int)np;
    p->general = PyObject_IsTrue(a[8]) == 1;
    const char* kinds = PyBytes_AS_STRING(a[9]);
    const char* ndims = PyBytes_AS_STRING(a[11]);
    for (Py_ssize_t k = 0; k < np; ++k) {
        p->slots[k].kind = (unsigned char)kinds[k];
        p->slots[k].ndim = (unsigned char)ndims[k];
        p->slots[k].offset = (int)PyLong_AsLong(PyTuple_GET_ITEM(a[10], k));
        p->slots[k].dtype = PyTuple_GET_ITEM(a[12], k);
        Py_INCREF(p->slots[k].dtype);
    }
    p->device = a[6];
    Py_INCREF(p->device);
    p->pack = a[7];
    Py_INCREF(p->pack);
    if (PyErr_Occurred() || p->size < 0 || (!p->general && p->size > kMaxStruct)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "make_plan: bad struct size");
        PyObject* tmp = PyCapsule_New(p, "wpnb.plan", destroy);  // (frees what it holds)
        Py_XDECREF(tmp);
        return nullptr;
    }
    return PyCapsule_New(p, "wpnb.plan", destroy);
}

// setup(config_dict, recording_dict, devices_dict, bounds_cache, array_type, cpu_count)
PyObject* setup(PyObject*, PyObject* const* a, Py_ssize_t n) {
    if (n != 6 || !PyDict_Check(a[0]) || !PyDict_Check(a[1]) || !PyDict_Check(a[2]) || !PyDict_Check(a[3]) ||
        !PyType_Check(a[4])) {
        PyErr_SetString(PyExc_TypeError, "setup: bad arguments");
        return nullptr;
    }
    PyObject** keep[] = {&g.config, &g.recording, &g.devices, &g.bounds, &g.array_type};
    for (int k = 0; k < 5; ++k) {
        Py_XDECREF(*keep[k]);
        *keep[k] = a[k];
        Py_INCREF(a[k]);
    }
    g.cpu_count = (int)PyLong_AsLong(a[5]);
    struct { PyObject** slot; const char* text; } names[] = {
        {&g.s_epoch, "epoch"}, {&g.s_cpu_threads, "cpu_threads"}, {&g.s_tape, "tape"}, {&g.s_capture, "capture"},
        {&g.s_scopes, "_scopes_open"}, {&g.s_default, "_default_device"}, {&g.s_last_launch, "last_launch"},
        {&g.s_dtype, "dtype"}, {&g.s_shape, "shape"}, {&g.s_device, "device"}, {&g.s_desc, "_desc"}};
    for (auto& name : names)
        if (!*name.slot && !(*name.slot = PyUnicode_InternFromString(name.text))) return nullptr;
    if (PyErr_Occurred()) return nullptr;
    Py_RETURN_NONE;
}

// An argument written into the struct, or false where the Python path must judge it.
inline bool put_array(const Plan* p, const Slot& s, PyObject* v, char* out) {
    if (Py_TYPE(v) != (PyTypeObject*)g.array_type) return false;
    bool ok = false;
    PyObject* dtype = PyObject_GetAttr(v, g.s_dtype);
    PyObject* shape = dtype == s.dtype ? PyObject_GetAttr(v, g.s_shape) : nullptr;
    PyObject* device = shape && PyTuple_Check(shape) && PyTuple_GET_SIZE(shape) == s.ndim
                           ? PyObject_GetAttr(v, g.s_device) : nullptr;
    PyObject* desc = device == p->device ? PyObject_GetAttr(v, g.s_desc) : nullptr;
    if (desc && PyTuple_CheckExact(desc) && PyTuple_GET_SIZE(desc) == 2 + 2 * s.ndim) {
        long long* words = (long long*)(out + s.offset);
        ok = true;
        for (int k = 0; k < 2 + 2 * s.ndim; ++k) {
            long long w = PyLong_AsLongLong(PyTuple_GET_ITEM(desc, k));
            if (w == -1 && PyErr_Occurred()) { ok = false; break; }
            memcpy(words + k, &w, sizeof w);  // (the offset of a field is 8-aligned; memcpy says so anyway)
        }
    }
    Py_XDECREF(dtype);
    Py_XDECREF(shape);
    Py_XDECREF(device);
    Py_XDECREF(desc);
    if (!ok && PyErr_Occurred()) PyErr_Clear();
    return ok;
}

inline bool put_scalar(unsigned char kind, PyObject* v, char* out) {
    switch (kind) {
        case BOOL: {  // only a bool itself (the packer refuses the truth of other objects)
            if (v != Py_True && v != Py_False) return false;
            *out = v == Py_True;
            return true;
        }
        case F32: case F64: {
            double d;
            if (PyFloat_CheckExact(v)) d = PyFloat_AS_DOUBLE(v);
            else if (PyLong_CheckExact(v)) {
                d = PyLong_AsDouble(v);
                if (d == -1.0 && PyErr_Occurred()) { PyErr_Clear(); return false; }
            } else return false;
            if (kind == F64) { memcpy(out, &d, 8); return true; }
            if (isfinite(d) && fabs(d) > (double)FLT_MAX) return false;  // (struct refuses it: the Python path says why)
            float f = (float)d;
            memcpy(out, &f, 4);
            return true;
        }
        default: {
            if (!PyLong_CheckExact(v)) return false;  // (bools, numpy integers: the Python path converts them)
            int overflow = 0;
            long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
            if (overflow || (x == -1 && PyErr_Occurred())) { PyErr_Clear(); return false; }
            if (kind == I32) {
                if (x < INT32_MIN || x > INT32_MAX) return false;
                int y = (int)x; memcpy(out, &y, 4);
            } else if (kind == U32) {
                if (x < 0 || x > (long long)UINT32_MAX) return false;
                unsigned y = (unsigned)x; memcpy(out, &y, 4);
            } else if (kind == I64) {
                memcpy(out, &x, 8);
            } else if (kind == U64) {
                if (x < 0) return false;  // (past INT64_MAX: the Python path packs it)
                memcpy(out, &x, 8);
            } else return false;
            return true;
        }
    }
}

inline PyObject* dict_item(PyObject* d, PyObject* key) {
    PyObject* v = PyDict_GetItemWithError(d, key);  // borrowed
    if (!v && PyErr_Occurred()) PyErr_Clear();
    return v;
}

// launch_usual(kernel, dim, inputs, device, block_dim) -> None (it ran), False (the Python path
// must run it) or the launch's bounds (it ran and a check failed: the Python path raises the error).
PyObject* launch_usual(PyObject*, PyObject* const* a, Py_ssize_t n) {
    if (n != 5 || !g.config) Py_RETURN_FALSE;
    PyObject *kernel = a[0], *dim = a[1], *inputs = a[2], *device = a[3], *block_dim = a[4];
    if (device == Py_None) {  // devices.current_device(), when no thread has a ScopedDevice open
        PyObject* scopes = dict_item(g.devices, g.s_scopes);
        if (!scopes || !PyLong_CheckExact(scopes) || PyLong_AsLong(scopes) != 0) Py_RETURN_FALSE;
        device = dict_item(g.devices, g.s_default);
        if (!device || device == Py_None) Py_RETURN_FALSE;
    }
    PyObject* last = PyObject_GetAttr(kernel, g.s_last_launch);
    if (!last) { PyErr_Clear(); Py_RETURN_FALSE; }
    PyObject* result = Py_False;
    const Plan* p = nullptr;
    if (PyTuple_CheckExact(last) && PyTuple_GET_SIZE(last) == 4 && PyTuple_GET_ITEM(last, 0) == device &&
        PyTuple_GET_ITEM(last, 1) == block_dim && PyCapsule_CheckExact(PyTuple_GET_ITEM(last, 3)))
        p = (const Plan*)PyCapsule_GetPointer(PyTuple_GET_ITEM(last, 3), "wpnb.plan");
    PyObject* epoch = dict_item(g.config, g.s_epoch);
    PyObject* tape = dict_item(g.recording, g.s_tape);
    PyObject* capture = dict_item(g.recording, g.s_capture);
    PyObject** items = nullptr;
    Py_ssize_t count = -1;
    if (PyList_CheckExact(inputs)) { items = PySequence_Fast_ITEMS(inputs); count = PyList_GET_SIZE(inputs); }
    else if (PyTuple_CheckExact(inputs)) { items = PySequence_Fast_ITEMS(inputs); count = PyTuple_GET_SIZE(inputs); }
    PyObject* bounds_entry = nullptr;
    if (p && epoch && PyLong_CheckExact(epoch) && PyLong_AsLongLong(epoch) == p->epoch && tape == Py_None &&
        capture == Py_None && count == p->nparams)
        bounds_entry = dict_item(g.bounds, dim);  // (an unhashable dim: not there)
    if (!bounds_entry || !PyTuple_CheckExact(bounds_entry) || PyTuple_GET_SIZE(bounds_entry) != 3) {
        bounds_entry = nullptr;
        goto done;
    }
    Py_INCREF(bounds_entry);  // (the kernel runs without the GIL: another thread may replace the cache entry)
    {
        PyObject* bounds = PyTuple_GET_ITEM(bounds_entry, 0);
        const long ndim = PyLong_AsLong(PyTuple_GET_ITEM(bounds_entry, 1));
        // bounds.fit_to_tid leaves these bounds as they are; other launches refit them (Python path)
        if (!PyBytes_Check(bounds) || PyBytes_GET_SIZE(bounds) < (Py_ssize_t)sizeof(launch_t) ||
            !(ndim == 1 || p->tid_count == 0 || p->tid_count >= ndim)) {
            PyErr_Clear();
            goto done;
        }
        alignas(16) char buffer[kMaxStruct];
        const char* packed = buffer;
        PyObject* packed_bytes = nullptr;
        if (p->general) {
            packed_bytes = PyObject_Vectorcall(p->pack, items, (size_t)count, nullptr);
            if (!packed_bytes || !PyBytes_Check(packed_bytes)) {
                Py_XDECREF(packed_bytes);
                PyErr_Clear();
                goto done;
            }
            packed = PyBytes_AS_STRING(packed_bytes);
        } else {
            memset(buffer, 0, (size_t)p->size);
            for (int k = 0; k < p->nparams; ++k) {
                const Slot& s = p->slots[k];
                const bool ok = s.kind == ARRAY ? put_array(p, s, items[k], buffer) : put_scalar(s.kind, items[k], buffer + s.offset);
                if (!ok) goto done;
            }
        }
        PyObject* threads_setting = dict_item(g.config, g.s_cpu_threads);
        int threads = g.cpu_count;
        if (threads_setting && PyLong_CheckExact(threads_setting)) {
            const long t = PyLong_AsLong(threads_setting);
            if (t > 0) threads = (int)t;
        }
        const launch_t* lb = (const launch_t*)PyBytes_AS_STRING(bounds);
        // a launch known to be short keeps the GIL (releasing and taking it back costs more than it runs)
        const bool short_one = p->stats && p->stats->ns_per_item > 0.0 &&
                               p->stats->ns_per_item * double(lb->size) < kKeepGilBelowNs;
        if (short_one) {
            wpnb_launch(p->fn, packed, lb, threads, p->stats);
        } else {
            Py_BEGIN_ALLOW_THREADS
            wpnb_launch(p->fn, packed, lb, threads, p->stats);
            Py_END_ALLOW_THREADS
        }
        Py_XDECREF(packed_bytes);
        result = p->failed && *p->failed ? bounds : Py_None;
    }
done:
    Py_INCREF(result);
    Py_XDECREF(bounds_entry);
    Py_DECREF(last);
    return result;
}

// run_planned(plan, packed, bounds) -> bool: a recorded launch (wp.Launch) whose argument struct is
// packed already, run as launch_usual runs it; True when a check failed (the caller raises).
PyObject* run_planned(PyObject*, PyObject* const* a, Py_ssize_t n) {
    if (n != 3 || !PyCapsule_CheckExact(a[0]) || !PyBytes_Check(a[1]) || !PyBytes_Check(a[2]) ||
        PyBytes_GET_SIZE(a[2]) < (Py_ssize_t)sizeof(launch_t)) {
        PyErr_SetString(PyExc_TypeError, "run_planned(plan, packed: bytes, bounds: bytes)");
        return nullptr;
    }
    const Plan* p = (const Plan*)PyCapsule_GetPointer(a[0], "wpnb.plan");
    if (!p) return nullptr;
    if (PyBytes_GET_SIZE(a[1]) < p->size) {
        PyErr_SetString(PyExc_ValueError, "run_planned: packed is shorter than the kernel's argument struct");
        return nullptr;
    }
    PyObject* threads_setting = g.config ? dict_item(g.config, g.s_cpu_threads) : nullptr;
    int threads = g.cpu_count > 0 ? g.cpu_count : 1;
    if (threads_setting && PyLong_CheckExact(threads_setting)) {
        const long t = PyLong_AsLong(threads_setting);
        if (t > 0) threads = (int)t;
    }
    const char* packed = PyBytes_AS_STRING(a[1]);
    const launch_t* lb = (const launch_t*)PyBytes_AS_STRING(a[2]);
    if (p->stats && p->stats->ns_per_item > 0.0 && p->stats->ns_per_item * double(lb->size) < kKeepGilBelowNs) {
        wpnb_launch(p->fn, packed, lb, threads, p->stats);
    } else {
        Py_BEGIN_ALLOW_THREADS
        wpnb_launch(p->fn, packed, lb, threads, p->stats);
        Py_END_ALLOW_THREADS
    }
    return PyBool_FromLong(p->failed && *p->failed);
}

}  // namespace plan
