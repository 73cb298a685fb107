"""Warp's `runtime` object (`warp._src.context.runtime`), as far as programs and tests reach for
it: the native core's capability queries and entry points (`runtime.core`), the CPU compiler,
driver and toolkit versions, the last native error. One object, made by _src/context.py when
asked for after warp_nb is initialised. Its core holds the native builders under Warp's names
(the mesh builder of geometry/native.py), and once the object exists wp.Mesh builds through it,
so what Warp's tests patch there is what runs (runtime/compat_hooks.py)."""

from __future__ import annotations


def _word(x) -> int:
    """A ctypes scalar (c_void_p, c_int, c_size_t ...) or a Python int, as Warp's entries take: its value."""
    import ctypes
    if isinstance(x, ctypes._SimpleCData):
        x = x.value
    return int(x or 0)


class Core:
    """Answers to the native core's capability queries: what warp_nb's CPU build has."""

    # Warp's allocation tracker queries (runtime/memory_tracker.py)
    @staticmethod
    def wp_alloc_tracker_is_enabled() -> bool:
        from ..runtime import memory_tracker
        return memory_tracker.enabled()

    @staticmethod
    def wp_alloc_tracker_reset() -> None:
        from ..runtime import memory_tracker
        memory_tracker.reset()

    @staticmethod
    def wp_alloc_tracker_get_total_alloc_count() -> int:
        from ..runtime import memory_tracker
        return memory_tracker.counters()["count"]

    @staticmethod
    def wp_alloc_tracker_get_total_alloc_bytes() -> int:
        from ..runtime import memory_tracker
        return memory_tracker.counters()["bytes"]

    @staticmethod
    def wp_alloc_tracker_get_live_count() -> int:
        from ..runtime import memory_tracker
        return memory_tracker.counters()["live"]

    @staticmethod
    def wp_alloc_tracker_get_current_bytes() -> int:
        from ..runtime import memory_tracker
        return memory_tracker.counters()["current"]

    @staticmethod
    def wp_alloc_tracker_get_peak_bytes() -> int:
        from ..runtime import memory_tracker
        return memory_tracker.counters()["peak"]

    @staticmethod
    def wp_alloc_tracker_enable(flag) -> None:
        """Warp's native on/off switch of the tracker (1: count every allocation from now on)."""
        from ..runtime import memory_tracker
        memory_tracker.switch(bool(_word(flag)))

    @staticmethod
    def wp_memset_host(dest, value, n) -> None:
        """Warp's host memset on a raw address (code that owns host memory outside any array calls
        it through ctypes). Inside a graph capture it is recorded as a host step, replayed in order
        by capture_launch; a saved graph cannot name raw memory, so capture_save refuses it."""
        import ctypes

        from ..runtime import recording
        address, byte, count = _word(dest), _word(value) & 0xFF, _word(n)
        if count and not address:
            raise ValueError("wp_memset_host: a null destination address")

        def run():
            if count:
                ctypes.memset(address, byte, count)

        if recording.capture is None:
            run()
        else:
            recording.capture.record(recording.Operation(
                "host", run, what=f"wp_memset_host of {count} bytes at a raw host address"))

    @staticmethod
    def wp_cuda_profiler_start(context) -> None:
        """cuProfilerStart on a CUDA context (wp.cuda_profiler_start calls it through here once this
        object exists, so a patch of it is what runs)."""
        from ..cuda import profiler
        profiler.context_start(context)

    @staticmethod
    def wp_cuda_profiler_stop(context) -> None:
        from ..cuda import profiler
        profiler.context_stop(context)

    @staticmethod
    def wp_is_mathdx_enabled() -> bool:
        return False

    @staticmethod
    def wp_is_error_output_enabled() -> bool:
        return True

    @staticmethod
    def wp_set_error_output_enabled(enabled) -> None:
        return None

    #: where the message of a native failure is read, one per library (registered with its entries)
    error_sources: list = []
    #: the message of the last failed entry written in Python ("" once any entry is called again)
    python_error = ""

    @classmethod
    def register(cls, name: str, entry, error_source=None) -> None:
        """An entry point of one of warp_nb's native libraries, under Warp's name, registered by the
        layer that owns the library (geometry/native.py registers the mesh builder), so callers
        reach it, and tests replace it, through the runtime's core as in Warp."""
        def call(*args):
            cls.python_error = ""  # a message is about the last call, as Warp's native error string
            return entry(*args)
        setattr(cls, name, staticmethod(call))
        if error_source is not None and error_source not in cls.error_sources:
            cls.error_sources.append(error_source)

    @classmethod
    def register_python(cls, name: str, entry, error_type: type, failed) -> None:
        """An entry point written in Python (graph coloring): an `error_type` it raises becomes
        Warp's native failure, the sentinel `failed` returned and the message kept for
        get_error_string."""
        def call(*args):
            try:
                return entry(*args)
            except error_type as e:
                cls.python_error = str(e)
                return failed
        cls.register(name, call)

    @staticmethod
    def wp_init(version: bytes) -> int:
        """Warp's native initialisation, which checks that the Python package and the native library
        are the same version: 0 when `version` is the package's, else 1 and a message."""
        from .. import config
        Core.python_error = ""
        asked = version.decode(errors="replace") if isinstance(version, bytes) else str(version)
        if asked != config.version:
            Core.python_error = (f"Version mismatch detected: the Python package expects {asked}, but the native "
                                 f"code is version {config.version}")
            return 1
        return 0


def cpu_compiler():
    from ..errors import CompilerNotFoundError
    from ..toolchain.cxx import find_compiler
    try:
        return find_compiler()
    except CompilerNotFoundError:
        return None


class Runtime:
    core = Core()

    def __init__(self):
        #: Warp's CPU compiler (LLVM); here the path of the C++ compiler, None when there is none
        self.llvm = cpu_compiler()

    @property
    def _apic_capture(self):
        """Warp's recorder of the active apic capture, as far as its tests read it: the number of
        operations recorded so far (warp_nb records into the graph: launch/capture.py); None when no
        capture is active."""
        from types import SimpleNamespace

        from ..runtime import recording
        graph = recording.capture
        return None if graph is None else SimpleNamespace(operation_count=len(graph.operations))

    @property
    def is_cuda_enabled(self) -> bool:
        """Whether this build can drive CUDA at all (Warp: its native library was built with CUDA):
        here, whether NVIDIA's cuda-bindings import; whether a GPU is present is
        wp.is_cuda_available()."""
        from ..cuda import driver
        try:
            driver._driver()
        except ImportError:
            return False
        return True

    @property
    def driver_version(self):
        from ..runtime.devices import get_cuda_driver_version
        v = get_cuda_driver_version()
        return (v // 1000, (v % 1000) // 10) if v else None

    @property
    def toolkit_version(self):
        try:
            from ..toolchain.nvrtc import nvrtc_version
            return tuple(nvrtc_version())
        except Exception:  # NVRTC not installed
            return None

    @staticmethod
    def verify_cuda_device(device=None) -> None:
        """Warp's check after launches when wp.config.verify_cuda is set: wait for the device, so a
        failed launch raises here (nothing to wait for on the CPU)."""
        from ..runtime.devices import synchronize_device
        synchronize_device(device)

    @staticmethod
    def get_device(ident=None):
        """Warp's runtime.get_device(ident): the device of that name or object (None: the current)."""
        from ..runtime.devices import get_device
        return get_device(ident)

    def get_error_string(self) -> str:
        """The message of the last native failure (an entry point of the core that returned 0)."""
        if self.core.python_error:
            return self.core.python_error
        for source in self.core.error_sources:
            message = source()
            if message:
                return message
        return "unknown native error"

    @property
    def nvrtc_supported_archs(self):
        from ..runtime.devices import get_cuda_supported_archs
        return set(get_cuda_supported_archs())


_INSTANCE = None


def instance():
    """The runtime object, None until one was made."""
    return _INSTANCE


def current():
    """The runtime object, made now (with the devices enumerated and the kernel cache folder chosen,
    written to wp.config.kernel_cache_dir: what Warp's init does first)."""
    global _INSTANCE
    if _INSTANCE is None:
        from ..runtime.devices import get_devices
        from ..toolchain import cache
        get_devices()
        cache.cache_dir()
        _INSTANCE = Runtime()
    return _INSTANCE


def _register_native_entries() -> None:
    from ..geometry import native
    from ..utils import graph_coloring
    Core.register("wp_mesh_create_host", native.mesh_create_host, native.last_error)
    Core.register_python("wp_graph_coloring", graph_coloring.native_graph_coloring,
                         graph_coloring.GraphColoringError, -1)
    Core.register_python("wp_balance_coloring", graph_coloring.native_balance_coloring,
                         graph_coloring.GraphColoringError, -1.0)


_register_native_entries()
