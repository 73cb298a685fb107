"""Package discovery for warp_nb (the rest of the metadata is in pyproject.toml).

The import package is `warp_nb`; three top-level folders of the repository install under it so
that no generic name lands at the top of site-packages: `kernels/` as `warp_nb.kernels`,
`magics/` as `warp_nb.magics` and `native/` (the C++ headers and runtime sources, as data) as
`warp_nb.native`. Every package below those roots is found, never listed by hand: a new
subpackage installs without anyone remembering to name it here."""

from setuptools import find_namespace_packages, find_packages, setup

#: repository folder -> the import package it installs as
ROOTS = {"warp_nb": "warp_nb", "kernels": "warp_nb.kernels", "magics": "warp_nb.magics", "native": "warp_nb.native"}
#: data files that travel with the native folders (the generated C++ includes the headers; the
#: CPU runtime and geometry builders are compiled from the .cpp sources on first use)
NATIVE_DATA = ["*.h", "*.cpp", "README.md"]


def packages() -> list[str]:
    found = []
    for folder, name in ROOTS.items():
        # native/ holds folders of headers without __init__.py: they are namespace packages
        finder = find_namespace_packages if folder == "native" else find_packages
        found += [name] + [f"{name}.{sub}" for sub in finder(where=folder, exclude=["__pycache__*"])]
    return found


PACKAGES = packages()
setup(
    packages=PACKAGES,
    package_dir={name: folder for folder, name in ROOTS.items()},
    package_data={p: NATIVE_DATA for p in PACKAGES if p.startswith("warp_nb.native")},
)
