// launch_module.cpp: the CPU runtime (cpu_runtime.cpp) built as a CPython extension module, so that
// wp.launch reaches wpnb_launch through one METH_FASTCALL call. Through ctypes the same call costs
// about 5,800 instructions (argument conversion objects, libffi's call preparation), more than a third
// of a whole launch; here it costs a few hundred. Built once per machine and Python like the runtime
// (runtime/native.py); where Python's headers are missing, warp_nb calls the runtime through ctypes.
// launch_plan.cpp adds the usual wp.launch as one call (`launch_usual`).
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "runtime/cpu_runtime.cpp"
#include "runtime/launch_plan.cpp"

namespace {

// launch(entry, packed, bounds, threads, stats): entry and stats are addresses (ints), packed the
// kernel's argument struct and bounds its launch_t (bytes). The GIL is released while the kernel
// runs: a long launch must not stop the notebook's other threads (its heartbeat, its widgets).
PyObject* launch(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
    if (nargs != 5 || !PyBytes_Check(args[1]) || !PyBytes_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "launch(entry: int, packed: bytes, bounds: bytes, threads: int, stats: int)");
        return nullptr;
    }
    entry_fn fn = (entry_fn)PyLong_AsVoidPtr(args[0]);
    const int threads = (int)PyLong_AsLong(args[3]);
    kernel_stats* stats = args[4] == Py_None ? nullptr : (kernel_stats*)PyLong_AsVoidPtr(args[4]);
    if (PyErr_Occurred()) return nullptr;
    if (PyBytes_GET_SIZE(args[2]) < (Py_ssize_t)sizeof(launch_t)) {
        PyErr_SetString(PyExc_ValueError, "launch: bounds is shorter than a launch_t");
        return nullptr;
    }
    const void* packed = PyBytes_AS_STRING(args[1]);
    const launch_t* bounds = (const launch_t*)PyBytes_AS_STRING(args[2]);
    Py_BEGIN_ALLOW_THREADS
    wpnb_launch(fn, packed, bounds, threads, stats);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

// parallel_address(): the address of wpnb_parallel_chunks in this module, so the geometry builders
// share this module's pool (the one kernel launches use) instead of starting threads of their own.
PyObject* parallel_address(PyObject*, PyObject*) { return PyLong_FromVoidPtr((void*)&wpnb_parallel_chunks); }

// interrupt_address(), watch_interrupts(): this module's interrupt flag, which the kernels it launches
// read, and the SIGINT handler that sets it (cpu_runtime.cpp; runtime/interrupts.py)
PyObject* interrupt_address(PyObject*, PyObject*) { return PyLong_FromVoidPtr((void*)wpnb_interrupt_flag_address()); }
PyObject* watch_interrupts(PyObject*, PyObject*) { return PyLong_FromLong(wpnb_watch_interrupts()); }

PyMethodDef methods[] = {
    {"parallel_address", parallel_address, METH_NOARGS, "Address of the pool's parallel-for entry (C ABI)."},
    {"interrupt_address", interrupt_address, METH_NOARGS, "Address of the flag a SIGINT sets (kernels read it)."},
    {"watch_interrupts", watch_interrupts, METH_NOARGS, "Put the SIGINT handler that sets it in front (1: done)."},
    {"launch", (PyCFunction)(void (*)(void))launch, METH_FASTCALL, "Run a kernel entry point over a launch."},
    {"launch_usual", (PyCFunction)(void (*)(void))plan::launch_usual, METH_FASTCALL,
     "The usual wp.launch (a repeat of the kernel's last one) in one call (launch_plan.cpp)."},
    {"make_plan", (PyCFunction)(void (*)(void))plan::make, METH_FASTCALL, "A launcher's plan for launch_usual."},
    {"run_planned", (PyCFunction)(void (*)(void))plan::run_planned, METH_FASTCALL,
     "A recorded launch, packed already, run through its launcher's plan."},
    {"setup_plans", (PyCFunction)(void (*)(void))plan::setup, METH_FASTCALL, "What launch_usual reads."},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef module = {PyModuleDef_HEAD_INIT, "_wpnb_runtime", "warp_nb's CPU runtime", -1, methods};

}  // namespace

PyMODINIT_FUNC PyInit__wpnb_runtime(void) { return PyModule_Create(&module); }
