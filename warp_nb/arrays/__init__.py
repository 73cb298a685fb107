"""Arrays: `wp.array` and its views (array.py), Warp's constructors and copies (create.py), and
exchange with other libraries through DLPack (dlpack.py). What differs per kind of memory lives
with the device (`runtime.storage`, `cuda.storage`); the array type used in kernel signatures is
`types.array_type.ArrayType`."""
