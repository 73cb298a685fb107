"""The layout checks of C++ value types of the user's (wp.build_experimental.add_native_type): the
host describes each with a ctypes.Structure, and arrays, launch arguments and struct fields are laid
out by that description, so a C++ type that differs would be read and written wrongly without a
word. Each translation unit that uses such a type asserts, when it is compiled, its size and
alignment, the type and size of each registered field, and (on the CPU, where the host's offsets
are the compiler's) each field's offset. Knows C++ spelling and ctypes layouts; nothing of kernels."""

from __future__ import annotations

import ctypes

from ...types.native_types import native_info

#: a type-equality test without the standard library (NVRTC compiles this text too)
SAME_TYPE = ("native-layout:same_type", "namespace wpnb {\n"
             "template <class A, class B> struct native_same_type { static const bool value = false; };\n"
             "template <class A> struct native_same_type<A, A> { static const bool value = true; };\n"
             "}  // namespace wpnb\n")


def layout_checks(types: list, cpp_type) -> list:
    """Sections asserting the layout of each native type in `types` (`cpp_type` names a field's type)."""
    if not types:
        return []
    return [SAME_TYPE] + [(f"native-layout:{native_info(t).native_name}", _checks(t, cpp_type)) for t in types]


def _checks(t, cpp_type) -> str:
    info = native_info(t)
    name = info.native_name
    where = f"wp.build_experimental.add_native_type({t.__name__}, native_name=\\\"{name}\\\")"
    lines = [f"// layout of {name} as its ctypes class {t.__name__} describes it",
             f'static_assert(sizeof({name}) == {ctypes.sizeof(t)}, "{where}: the C++ type is not '
             f'{ctypes.sizeof(t)} bytes, the size of the ctypes class");',
             f'static_assert(alignof({name}) == {ctypes.alignment(t)}, "{where}: the C++ type\'s alignment is not '
             f'{ctypes.alignment(t)}, that of the ctypes class");']
    declared = {f[0]: (f[1], getattr(t, f[0])) for f in t._fields_}
    offsets = []
    for field, ft in info.fields:
        ctype, descriptor = declared[field]
        member = f"(({name}*)0)->{field}"
        lines.append(f'static_assert(wpnb::native_same_type<decltype({member}), {cpp_type(ft)}>::value, '
                     f'"{where}: field {field} is not of the registered type {cpp_type(ft)}");')
        lines.append(f'static_assert(sizeof({member}) == {ctypes.sizeof(ctype)}, "{where}: field {field} is not '
                     f'{ctypes.sizeof(ctype)} bytes");')
        offsets.append(f'static_assert(__builtin_offsetof({name}, {field}) == {descriptor.offset}, "{where}: field '
                       f'{field} is not at byte {descriptor.offset}, its offset in the ctypes class");')
    if offsets:  # the host's offsets are those the CPU compiler lays out
        lines += ["#if defined(WPNB_CPU)"] + offsets + ["#endif"]
    return "\n".join(lines) + "\n"
