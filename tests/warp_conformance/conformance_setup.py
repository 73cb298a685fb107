"""The pinned warp-lang wheel, its unpacked tests and examples, and the warp-lang environment for
the baseline: everything the conformance runner fetches or creates, kept in one cache folder."""

import glob
import os
import subprocess
import sys
import zipfile

WARP_VERSION = "1.19.0"
WHEEL_ENV = "WARP_NB_CONFORMANCE_WHEEL"  # path of an existing warp-lang wheel (skips pip download)
CACHE_ENV = "WARP_NB_CONFORMANCE_CACHE"  # the cache folder (default ~/.cache/warp_nb/conformance)

HERE = os.path.dirname(os.path.abspath(__file__))
CHILD_DIR = os.path.join(HERE, "child")
SHIM_DIR = os.path.join(CHILD_DIR, "shim")


class WheelUnavailable(RuntimeError):
    """pip could not download the pinned wheel (no network or no such wheel for this platform)."""


def cache_dir(override=None):
    path = override or os.environ.get(CACHE_ENV) or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "warp_nb", "conformance"
    )
    os.makedirs(path, exist_ok=True)
    return path


def ensure_wheel(cache, wheel=None, log=print):
    """Path of warp_lang-<version>-*.whl: the one given (flag or WARP_NB_CONFORMANCE_WHEEL), the
    cached download, or a fresh `pip download warp-lang==<version> --no-deps`."""
    wheel = wheel or os.environ.get(WHEEL_ENV)
    if wheel:
        if not os.path.isfile(wheel):
            raise WheelUnavailable(f"{wheel} (given by --wheel or {WHEEL_ENV}) does not exist")
        return os.path.abspath(wheel)
    wheel_dir = os.path.join(cache, "wheel")
    pattern = os.path.join(wheel_dir, f"warp_lang-{WARP_VERSION}-*.whl")
    found = sorted(glob.glob(pattern))
    if found:
        return found[0]
    log(f"downloading warp-lang=={WARP_VERSION} with pip into {wheel_dir} ...")
    cmd = [sys.executable, "-m", "pip", "download", f"warp-lang=={WARP_VERSION}", "--no-deps",
           "--only-binary=:all:", "--disable-pip-version-check", "-q", "-d", wheel_dir]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    found = sorted(glob.glob(pattern))
    if proc.returncode != 0 or not found:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise WheelUnavailable(f"`{' '.join(cmd[2:])}` failed: " + " | ".join(tail))
    return found[0]


def ensure_data(cache, wheel, log=print):
    """Unpack only warp/tests and warp/examples of the wheel (as data: never installed); returns
    the folder that holds warp/."""
    name = os.path.basename(wheel)[: -len(".whl")]
    dest = os.path.join(cache, "data", name)
    marker = os.path.join(dest, ".complete")
    if os.path.exists(marker):
        return dest
    log(f"unpacking warp/tests and warp/examples of {os.path.basename(wheel)} into {dest}")
    with zipfile.ZipFile(wheel) as z:
        members = [m for m in z.namelist() if m.startswith(("warp/tests/", "warp/examples/"))]
        if not members:
            raise RuntimeError(f"{wheel} has no warp/tests or warp/examples")
        z.extractall(dest, members)
    with open(marker, "w") as f:
        f.write(wheel + "\n")
    return dest


def venv_python(venv):
    return os.path.join(venv, "Scripts" if os.name == "nt" else "bin", "python")


def ensure_warp_venv(cache, wheel, log=print):
    """A virtual environment with the real warp-lang (from the wheel), numpy and Pillow, for the
    baseline."""
    venv = os.path.join(cache, "venv-warp")
    py = venv_python(venv)
    check = [py, "-c", "import warp, numpy, PIL; print(warp.__version__)"]
    if os.path.exists(py):
        out = subprocess.run(check, capture_output=True, text=True, check=False)
        if out.returncode == 0 and out.stdout.strip() == WARP_VERSION:
            return py
    log(f"creating {venv} with warp-lang {WARP_VERSION}, numpy and Pillow ...")
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    # Pillow: three optim examples need it; warp_nb's test extras have it (through matplotlib)
    subprocess.run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check", wheel, "numpy", "pillow"],
                   check=True)
    out = subprocess.run(check, capture_output=True, text=True, check=False)
    if out.returncode != 0 or out.stdout.strip() != WARP_VERSION:
        raise RuntimeError(f"warp-lang did not install in {venv}: {out.stderr.strip()[-500:]}")
    return py


def list_test_files(data_dir, entries_file):
    """The test files in scope: each entry of files.txt (globs expanded against warp/tests),
    in the file's order, each once. An entry that matches nothing is an error."""
    tests_dir = os.path.join(data_dir, "warp", "tests")
    keys, seen = [], set()
    for entry in read_entries(entries_file):
        pattern = entry[0]
        matches = sorted(glob.glob(os.path.join(tests_dir, pattern + ".py")))
        if not matches:
            raise SystemExit(f"{entries_file}: {pattern!r} matches no file in {tests_dir}")
        for m in matches:
            key = os.path.relpath(m, tests_dir)[: -len(".py")].replace(os.sep, "/")
            if key not in seen:
                seen.add(key)
                keys.append(key)
    return keys


def read_entries(path):
    """Lines of a data file split into words, without comments and blank lines."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                out.append(line.split())
    return out


# examples.txt words after an example's name that are options of the runner, not the example's
# arguments: `ignore=NAME` (array NAME is left out of the state comparison), `state=NAME,...` (the
# globals whose arrays are the state, for an example that binds no `example` instance; a dotted name
# reaches an attribute, `example.iso`), `printed=REGEX` (the numbers the example prints on the lines
# that REGEX finds are state too, for an example that keeps its results in locals and prints them), and
# `device=default` (no `--device cpu`, for an example that refuses `--device cpu` by name yet runs on
# the default device, which with CUDA_VISIBLE_DEVICES='' is the CPU)
EXAMPLE_OPTIONS = ("ignore=", "state=", "printed=", "device=")


def example_entries(path):
    """(name, args, options) per example of examples.txt; options: ignore (set of array names),
    state (list of global names, None for the `example` instance), printed (a regex or None), device
    ('cpu' or 'default')."""
    out = []
    for name, *words in read_entries(path):
        opts = {"ignore": set(), "state": None, "printed": None, "device": "cpu"}
        args = []
        for w in words:
            key, _, value = w.partition("=")
            if not w.startswith(EXAMPLE_OPTIONS):
                args.append(w)
            elif key == "ignore":
                opts["ignore"].add(value)
            elif key == "state":
                opts["state"] = [v for v in value.split(",") if v]
            elif key == "printed":
                opts["printed"] = value
            elif value in ("cpu", "default"):
                opts["device"] = value
            else:
                raise SystemExit(f"examples.txt: {name}: device= takes 'cpu' or 'default', not {value!r}")
        out.append((name, args, opts))
    return out
