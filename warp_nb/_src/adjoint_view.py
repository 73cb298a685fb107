"""`Kernel.adj` (and `warp._src.codegen.Adjoint(func)`): a read-only view of a definition under the
names Warp's Adjoint object uses, for code and tests that inspect it. Everything it reports is
warp_nb's own: the source and `ast` tree of the definition (compiler/function_source.py, shared by
redeclarations of one code object), the wp.static(...) values warp_nb evaluated at declaration
(compiler/static_eval.py), the names the body refers to as its Scope resolves them, the parameters
(`args`), the number of wp.tid() indices, and after a build the typed IR's variables. It has no `blocks`: warp_nb's
generated code is not Warp's SSA blocks, and code that checks `hasattr(adj, "blocks")` before
reading them is right to skip them here.

`tree` is the shared tree with each resolved wp.static(...) replaced by its value when that value
is a Python literal (path copying: the statements without one are the shared tree's own nodes);
`_shared_source` is the shared record when nothing was replaced, else None (the view no longer
matches the shared tree)."""

from __future__ import annotations

import ast
import copy
import types as pytypes
from dataclasses import dataclass

from ..builtins.registry import BUILTINS, Builtin
from ..compiler import function_source
from ..compiler.annotations import parameter_names
from ..compiler.scope import MISSING, ConstValue, Lit, Scope, classify

_LITERALS = (bool, int, float, str, type(None))


def substitute_nodes(node, replacements: dict, ancestors: set):
    """A copy of `node` with each key of `replacements` swapped for its value; only the nodes in
    `ancestors` (the paths to the replaced ones) are copied, the rest are shared. One Python frame
    per tree level (explicit loops, no comprehensions), so deep trees need no more stack."""
    if node in replacements:
        return replacements[node]
    if node not in ancestors:
        return node
    out = copy.copy(node)
    for name, value in ast.iter_fields(node):
        if isinstance(value, list):
            items = []
            for item in value:
                items.append(substitute_nodes(item, replacements, ancestors) if isinstance(item, ast.AST) else item)
            setattr(out, name, items)
        elif isinstance(value, ast.AST):
            setattr(out, name, substitute_nodes(value, replacements, ancestors))
    return out


def _parents(tree) -> dict:
    parents = {}
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            parents[child] = parent
    return parents


def _local_names(fdef) -> set:
    """Parameters and every name the body binds (assignments, loop targets)."""
    names = {a.arg for a in fdef.args.args}
    for node in ast.walk(fdef):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
    return names


@dataclass(frozen=True)
class Arg:
    """A parameter as Warp's Adjoint lists it (`label`, `type`; after a build of the kernel, whether
    its code reads or writes the array: `is_read`, `is_write`, an atomic update counting as a write)."""

    label: str
    type: object
    is_read: bool = False
    is_write: bool = False


class AdjointView:
    """Warp's Adjoint attributes for one kernel or function definition (see the module docstring)."""

    def __init__(self, func, scope: Scope | None = None, kernel=None):
        self.func = func
        self.fun_name = func.__name__
        self.filename = func.__code__.co_filename
        shared = function_source.shared_source(func)
        self.source, self.fun_lineno = shared.source, shared.lineno
        if scope is None:  # a definition not made into a kernel: evaluate its statics as a kernel would
            from ..compiler.static_eval import resolve_at_declaration
            scope = Scope(func)
            resolve_at_declaration(func, scope)
        self.scope = scope
        self._kernel = kernel
        #: the wp.static(...) values evaluated at declaration, by (line, column, text, use) of the call
        self.resolved_static_expressions = dict(scope.static_values)
        self.tree, replaced, self.has_unresolved_static_expressions = self._static_view(shared)
        self._shared_source = None if replaced else shared

    # --- wp.static ------------------------------------------------------------------------
    def _is_static_call(self, node) -> bool:
        if not isinstance(node, ast.Call):
            return False
        return self._resolve(node.func) is BUILTINS["static"]

    def _static_view(self, shared):
        """(tree, whether it differs from the shared one, whether a static call is left unresolved)."""
        tree = shared.tree
        if tree is None:
            return None, False, False
        first = self.fun_lineno
        # the shared source is dedented: the original column is the ast's plus the first line's indent
        indent = _indent_of(self.filename, first)
        values = {(line, col): v for (line, col, _text, _use), v in self.resolved_static_expressions.items()}
        parents = _parents(tree)
        replacements, unresolved = {}, False
        for node in ast.walk(tree):
            if not self._is_static_call(node) or self._inside_static(node, parents):
                continue
            key = (node.lineno + first - 1, node.col_offset + indent)
            if key not in values:
                unresolved = True
            elif isinstance(values[key], _LITERALS):
                replacements[node] = ast.copy_location(ast.Constant(values[key]), node)
        if not replacements:
            return tree, False, unresolved
        ancestors = set()
        for node in replacements:
            parent = parents.get(node)
            while parent is not None and parent not in ancestors:
                ancestors.add(parent)
                parent = parents.get(parent)
        return substitute_nodes(tree, replacements, ancestors), True, unresolved

    def _inside_static(self, node, parents) -> bool:
        parent = parents.get(node)
        while parent is not None:
            if self._is_static_call(parent):
                return True
            parent = parents.get(parent)
        return False

    # --- names ----------------------------------------------------------------------------
    def resolve_external_reference(self, name: str):
        """The global, closure or Python builtin `name` refers to (None when there is none)."""
        value = self.scope.lookup(name)
        return None if value is MISSING else value

    def _resolve(self, node):
        """The object a Name or attribute chain (wp.sin, namespace.warp.tid) refers to, else None."""
        if isinstance(node, ast.Name):
            return self.resolve_external_reference(node.id)
        if isinstance(node, ast.Attribute):
            base = self._resolve(node.value)
            return None if base is None else getattr(base, node.attr, None)
        return None

    def get_references(self) -> tuple[dict, dict, set]:
        """What the body refers to outside itself, resolved now: (constants by name: values of
        numbers, wp scalars/vectors/structs; types by name; the set of functions, @wp.func and
        builtins). Locals and the inside of resolved wp.static(...) calls are not references."""
        constants, types_, functions = {}, {}, set()
        if self.tree is None:
            return constants, types_, functions
        fdef = self.tree.body[0]
        local = _local_names(fdef)
        parents = _parents(self.tree)
        for node in ast.walk(fdef):
            if not isinstance(node, (ast.Name, ast.Attribute)) or isinstance(parents.get(node), ast.Attribute):
                continue  # an attribute chain is looked at once, from its outermost node
            root = node
            while isinstance(root, ast.Attribute):
                root = root.value
            if not isinstance(root, ast.Name) or root.id in local or self._inside_static(node, parents) \
                    or not isinstance(getattr(node, "ctx", ast.Load()), ast.Load):
                continue
            value = self._resolve(node)
            if value is None:
                continue
            if isinstance(value, Builtin) or getattr(value, "_wp_func_", False):
                functions.add(value)
            elif isinstance(value, type):
                types_[ast.unparse(node)] = value
            elif isinstance(classify(value), (Lit, ConstValue)) and not isinstance(value, pytypes.ModuleType):
                constants[ast.unparse(node)] = value
        return constants, types_, functions

    @property
    def kernel_dim(self) -> int:
        """How many indices wp.tid() is unpacked into (1 when it is not unpacked, or not called)."""
        if self.tree is None:
            return 1
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Assign) and is_tid_call(node.value, self):
                target = node.targets[0]
                return len(target.elts) if isinstance(target, ast.Tuple) else 1
        return 1

    @property
    def args(self) -> list:
        """Warp's `adj.args`: the parameters in order, each with `label` (its name) and `type` (what the
        kernel declares: wp.float32, wp.array(dtype=wp.vec3), or a generic kernel's annotation). A
        definition that is not a kernel reports its annotations (None where there is none)."""
        if self._kernel is not None:
            names, types_ = self._kernel.param_names, [_as_annotation(t) for t in self._kernel.param_types]
        else:
            names = parameter_names(self.func)
            types_ = [self.func.__annotations__.get(n) for n in names]
        typed = self._typed()
        read = written = frozenset()
        if typed is not None:
            from ..compiler.param_access import param_access
            read, written = param_access(typed)
        return [Arg(n, t, k in read, k in written) for k, (n, t) in enumerate(zip(names, types_))]

    @property
    def arg_types(self) -> dict:
        """Warp's `adj.arg_types`: each parameter's type by name."""
        return {a.label: a.type for a in self.args}

    def _typed(self):
        """The typed IR of the kernel's latest build (None before one)."""
        typed = getattr(self._kernel, "_built_ir", None) if self._kernel is not None else None
        if typed is None and self._kernel is not None:
            built = [c.typed for c in getattr(self._kernel, "_compiled", {}).values()]
            typed = built[-1] if built else None
        return typed

    @property
    def variables(self) -> list:
        """The typed IR's parameters and locals of the kernel's latest build (empty before one)."""
        typed = self._typed()
        return [] if typed is None else list(typed.params) + list(typed.locals)

    @property
    def called_user_functions(self) -> dict:
        """Warp's `adj.called_user_functions`: the @wp.func the kernel's latest build calls directly,
        in the order its body first calls them (as keys; the values are their typed instances)."""
        typed = self._typed()
        calls: dict = {}
        for inst in (typed.funcs if typed is not None else ()):
            calls.setdefault(inst.func, []).append(inst)
        return calls


def is_tid_call(node, adj) -> bool:
    """Whether `node` calls wp.tid(): through a name bound to it, or an attribute `tid` of a
    receiver that resolves (adj.resolve_external_reference) to the warp module."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    tid = BUILTINS["tid"]
    if isinstance(func, ast.Name):
        return adj.resolve_external_reference(func.id) is tid
    if not (isinstance(func, ast.Attribute) and func.attr == "tid"):
        return False
    names, receiver = [], func.value
    while isinstance(receiver, ast.Attribute):
        names.append(receiver.attr)
        receiver = receiver.value
    if not isinstance(receiver, ast.Name):
        return False
    obj = adj.resolve_external_reference(receiver.id)
    for name in reversed(names):
        obj = getattr(obj, name, None)
    return isinstance(obj, pytypes.ModuleType) and getattr(obj, "tid", None) is tid


def _indent_of(filename: str, line: int) -> int:
    import linecache
    text = linecache.getline(filename, line)
    return len(text) - len(text.lstrip()) if text.strip() else 0


def _as_annotation(t):
    """A kernel's array parameter type as the annotation object Warp's adj.args holds
    (wp.array[wp.float32], equal to the compiler's plain type); any other type unchanged."""
    from ..types.array_annotation import ArrayAnnotationBase
    from ..types.array_type import ArrayType
    if not isinstance(t, ArrayType) or isinstance(t, ArrayAnnotationBase) or getattr(t, "kind", None) not in (
            "array", "indexedarray", "fabricarray", "indexedfabricarray"):
        return t
    from .types import _family_of_type
    try:
        return _family_of_type(t)._subscript_type((t.dtype, t.ndim))
    except (TypeError, ValueError):
        return t
