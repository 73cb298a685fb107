"""What a lab can learn about the Jupyter server its kernel runs under. JupyterLab's ipyparallel panel
needs ipyparallel's server extension, which a server started before ipyparallel was installed does
not have: JupyterLab then shows "IPP Extension Server Error - Failed to list clusters" and nothing
says why. The kernel finds its server (the running server whose process started it), asks it over
loopback HTTP with the server's own token whether the extension's route exists, and says in one line
what to do. Knows Jupyter's runtime files and URLs; knows nothing about kernels or MPI."""

from __future__ import annotations

import importlib.util
import json
import os
import urllib.error
import urllib.request

#: ipyparallel's server extension serves this path (ipyparallel/nbextension/handlers.py)
IPP_ROUTE = "ipyparallel/clusters"

IPP_HINT = ("JupyterLab's ipyparallel panel will fail (\"IPP Extension Server Error\"): this Jupyter server has not "
            "loaded ipyparallel's server extension (installed after the server started?); restart `jupyter lab` "
            "(Ctrl+C in its terminal, then run it again). This lab starts its MPI engines itself and runs either way.")


def ipyparallel_server_hint(server_pid: int | None = None, timeout: float = 2.0) -> str | None:
    """One line saying how to enable ipyparallel's server extension where the Jupyter server running
    this kernel lacks it; None where it has it, or where there is no such server (a script, nbclient,
    another front end) or ipyparallel is not installed. `server_pid`: the server's process id
    (default: this process's parent, which is the server for a kernel JupyterLab started). Imports
    neither ipyparallel nor the server: it reads the server's runtime file (jpserver-<pid>.json)."""
    if importlib.util.find_spec("ipyparallel") is None:
        return None
    try:
        from jupyter_core.paths import jupyter_runtime_dir
        with open(os.path.join(jupyter_runtime_dir(), f"jpserver-{server_pid or os.getppid()}.json")) as f:
            server = json.load(f)
    except (ImportError, OSError, ValueError):
        return None
    return IPP_HINT if _route_missing(server, IPP_ROUTE, timeout) else None


def _route_missing(server: dict, route: str, timeout: float) -> bool:
    """Whether the server answers 404 for `route`. HEAD: a route that exists answers 405 (its handler
    serves GET and POST only) without running the handler; anything but 404, or no answer, counts as
    present (say nothing rather than something wrong)."""
    url = server.get("url", "").rstrip("/") + "/" + route
    request = urllib.request.Request(url, method="HEAD",
                                     headers={"Authorization": f"token {server.get('token', '')}"})
    try:
        with urllib.request.urlopen(request, timeout=timeout):
            return False
    except urllib.error.HTTPError as answer:
        return answer.code == 404
    except OSError:
        return False
