"""The user's program as warp_nb holds it: kernels (`@wp.kernel`), functions (`@wp.func`) and
the modules that group kernels (a Python module or a notebook cell). These objects own what
their definitions became (compiled code, failures, launchers); the compiler and the runtime
only read them."""
