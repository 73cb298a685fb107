"""The launch layer: `wp.launch` and its launchers (launcher.py; adjoint launches in adjoint.py, the
usual launch in one native call in plan.py), argument packing (args.py), graph
capture and replay (capture.py), and Python-scope calls of builtins, which launch a one-thread
kernel (builtin_call.py). Above the program layer (kernels, modules), below autograd (the tape
records what is launched here through runtime/recording.py, without this layer knowing tapes)."""
