"""A lab in a real browser: JupyterLab, and the Jupyter Notebook front end, on 127.0.0.1, Debian's
Chromium driven by playwright (never a browser download), Run All on lab 4, then the DOM must show
the widgets and the geometry view's picture, and no error output; labs 1 and 3 likewise for the
device picker and the gradient inspector (whose button runs the check in the kernel); lab 8 in
JupyterLab on two MPI ranks, as the README's first command installs it (`pip install -e ".[lab]"`).
The screenshots are kept as test artifacts in $WARP_NB_ARTIFACTS (default: test-artifacts/browser/
at the repository root).

Skipped, with the reason, where Chromium, the front end or playwright is missing."""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAB = "04_particles.ipynb"
SCALING = "08_scaling_out.ipynb"
LABS = ("01_first_kernel.ipynb", "03_autodiff.ipynb", LAB, SCALING)
CHROMIUM = next((p for p in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                             shutil.which("chromium-browser")) if p and os.path.exists(p)), None)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = [pytest.mark.needs_cxx, pytest.mark.slow]


# the two front ends: the server module to start and the page that opens a notebook in it
FRONT_ENDS = {"jupyterlab": "lab/tree", "notebook": "notebooks"}


def _requirements(front_end: str):
    if CHROMIUM is None:
        return "Chromium is not installed (apt-get install chromium; .ci/run does this)"
    for module in (front_end, "playwright", "ipywidgets"):
        try:
            __import__(module)
        except ImportError:
            return f"{module} is not installed (pip install jupyterlab notebook playwright; .ci/run does this)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(params=list(FRONT_ENDS))
def jupyter_server(request, tmp_path):
    """(front end, base URL, token) of a running JupyterLab or Jupyter Notebook server."""
    front_end = request.param
    reason = _requirements(front_end)
    if reason:
        pytest.skip(reason)
    work = tmp_path / "work"
    work.mkdir()
    for lab in LABS:
        shutil.copy(ROOT / "notebooks" / lab, work / lab)
    settings = tmp_path / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    # no news or update pop-up over the outputs (there is no network to fetch them from anyway)
    (settings / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false",
                                                                          "checkForUpdates": False}))
    port, token = _free_port(), "wpnb-browser-test"
    env = dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(tmp_path / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"), JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"))
    log = open(tmp_path / "jupyterlab.log", "w")
    server = subprocess.Popen([sys.executable, "-m", front_end, "--no-browser", "--ip=127.0.0.1",
                               f"--port={port}", "--allow-root", f"--ServerApp.token={token}",
                               "--ServerApp.password=", f"--ServerApp.root_dir={work}", "--expose-app-in-browser",
                               "--ServerApp.disable_check_xsrf=True"],
                              stdout=log, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2):
                    break
            except OSError:
                if server.poll() is not None or time.time() > deadline:
                    log.flush()
                    pytest.fail(f"{front_end} did not start:\n" + (tmp_path / "jupyterlab.log").read_text()[-3000:])
                time.sleep(0.5)
        yield front_end, base, token
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def _artifacts() -> Path:
    out = Path(os.environ.get("WARP_NB_ARTIFACTS", ROOT / "test-artifacts")) / "browser"
    out.mkdir(parents=True, exist_ok=True)
    return out


_ALL_RAN = """() => {
  const nb = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  if (!nb || !nb.content || !nb.sessionContext.session) return false;
  const kernel = nb.sessionContext.session.kernel;
  const cells = nb.content.widgets.filter(c => c.model.type === 'code');
  return kernel && kernel.status === 'idle' && cells.every(c => c.model.executionCount !== null);
}"""

_KERNEL_IDLE = """() => {
  const nb = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  return !!(nb && nb.sessionContext && nb.sessionContext.session && nb.sessionContext.session.kernel
            && nb.sessionContext.session.kernel.status === 'idle');
}"""


# every output of the open notebook, as JSON text, from its model
_OUTPUTS = """() => {
  const cells = window.jupyterapp.shell.currentWidget.content.model.cells;
  const out = [];
  for (let i = 0; i < cells.length; i++) {
    const outputs = cells.get(i).outputs;
    for (let j = 0; outputs && j < outputs.length; j++) out.push(JSON.stringify(outputs.get(j).toJSON()));
  }
  return out.join("\\n");
}"""


def _run_all(browser, base: str, token: str, front_end: str, lab: str, shot: Path, seconds: int = 120):
    """A page with `lab` opened in the front end and every cell run (a screenshot at `shot` if not)."""
    page = browser.new_page(viewport={"width": 1280, "height": 1600})
    # reset: JupyterLab would otherwise reopen the earlier notebooks of this server as hidden tabs
    page.goto(f"{base}/{FRONT_ENDS[front_end]}/{lab}?token={token}&reset", timeout=90_000)
    page.wait_for_selector(".jp-Notebook .jp-Cell:visible", timeout=90_000)
    try:
        page.wait_for_function(_KERNEL_IDLE, timeout=90_000, polling=250)
    except Exception:  # noqa: BLE001 (playwright's timeout): say what the page shows, a modal such as "IPP ..."
        page.screenshot(path=str(shot), full_page=True)
        dialogs = page.locator(".jp-Dialog").all_inner_texts()
        raise AssertionError(f"{lab}: the kernel did not become idle; dialogs on the page: {dialogs}") from None
    time.sleep(2)  # a Run All sent the instant the kernel first reports idle can be dropped
    page.click(".jp-Notebook .jp-Cell:visible >> nth=0")
    for attempt in range(3):  # Run All, again if the first one was dropped
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        try:
            page.wait_for_function(_ALL_RAN, timeout=seconds * 1000 if attempt == 0 else 60_000, polling=500)
            return page
        except Exception:
            if attempt == 2:
                page.screenshot(path=str(shot), full_page=True)
                raise
    return page


def _no_errors(page) -> None:
    errors = page.locator("[data-mime-type='application/vnd.jupyter.error']")
    assert errors.count() == 0, errors.first.inner_text()


def test_lab_runs_in_the_browser_and_shows_widgets_and_geometry(jupyter_server):
    from playwright.sync_api import sync_playwright
    front_end, base, token = jupyter_server
    shot = _artifacts() / f"04_particles_{front_end}.png"
    t0 = time.perf_counter()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            page = _run_all(browser, base, token, front_end, LAB, shot)
            # the widgets rendered: the timing panel's table and the geometry view's picture
            page.wait_for_selector(".wpnb-geometry-view img", timeout=30_000)
            page.wait_for_function("""() => { const img = document.querySelector('.wpnb-geometry-view img');
                                              return img && img.complete && img.naturalWidth > 0; }""",
                                   timeout=30_000)
            size = page.evaluate("""() => { const img = document.querySelector('.wpnb-geometry-view img');
                                            return [img.naturalWidth, img.naturalHeight]; }""")
            assert size[0] >= 100 and size[1] >= 100
            assert page.locator(".wpnb-timing-panel table").count() >= 1
            assert "accelerations" in page.locator(".wpnb-timing-panel").first.inner_text()
            assert page.locator(".jupyter-widgets").count() >= 3
            assert page.locator(".wpnb-geometry-view button:has-text('step')").count() == 1
            _no_errors(page)
            view = page.locator(".wpnb-geometry-view").first
            view.scroll_into_view_if_needed()
            page.screenshot(path=str(shot))
            view.screenshot(path=str(shot.with_name(f"04_particles_{front_end}_geometry.png")))
            # the step button goes back to the kernel and draws a new frame
            before = page.evaluate("() => document.querySelector('.wpnb-geometry-view img').src")
            page.locator(".wpnb-geometry-view button:has-text('step')").click()
            page.wait_for_function("(b) => document.querySelector('.wpnb-geometry-view img').src !== b", arg=before,
                                   timeout=30_000)
            # the picture and the status line are two traits synced in their own messages: the status may
            # arrive a moment after the new picture, so wait for it rather than read it once
            try:
                page.wait_for_function("() => document.querySelector('.wpnb-geometry-status').innerText.includes('frame 41')",
                                       timeout=30_000)
            except Exception:
                pass  # the assert below reports what the status line says
            assert "frame 41" in page.locator(".wpnb-geometry-status").first.inner_text()
        finally:
            browser.close()
    print(f"browser test ({front_end}): {time.perf_counter() - t0:.1f} s, screenshot {shot}")
    assert shot.exists() and shot.stat().st_size > 10_000


def test_device_picker_and_gradient_inspector_work_in_the_browser(jupyter_server):
    """Lab 1's DevicePicker (a dropdown holding cpu) and lab 3's GradientInspector (its table, and
    its button running the finite-difference check in the kernel), in the same server."""
    from playwright.sync_api import sync_playwright
    front_end, base, token = jupyter_server
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            page = _run_all(browser, base, token, front_end, "01_first_kernel.ipynb",
                            _artifacts() / f"01_first_kernel_{front_end}.png")
            page.wait_for_selector(".wpnb-device-picker select", timeout=30_000)
            assert "cpu" in page.locator(".wpnb-device-picker select").first.inner_text()
            _no_errors(page)
            page.close()

            page = _run_all(browser, base, token, front_end, "03_autodiff.ipynb",
                            _artifacts() / f"03_autodiff_{front_end}.png")
            inspector = page.locator(".wpnb-gradient-inspector").first
            inspector.wait_for(timeout=30_000)
            assert "loss" in inspector.inner_text()
            _no_errors(page)
            inspector.scroll_into_view_if_needed()
            # the lab ran a check before training; after it the gradients shown are cleared, so only
            # a check run by this click reports a fresh backward pass
            assert "fresh backward pass" not in inspector.inner_text()
            inspector.locator("button:has-text('finite-difference check')").click()
            page.wait_for_function("""() => document.querySelector('.wpnb-gradient-inspector')
                                              .innerText.includes('fresh backward pass')""", timeout=30_000)
            assert "PASSED" in inspector.inner_text()
            inspector.screenshot(path=str(_artifacts() / f"03_autodiff_{front_end}_inspector.png"))
        finally:
            browser.close()


@pytest.mark.parametrize("jupyter_server", ["jupyterlab"], indirect=True)
def test_scaling_lab_runs_on_two_ranks_in_jupyterlab(jupyter_server):
    """Lab 8 after the README's first command: ipyparallel's MPI engines start from the notebook, two
    ranks compute the single process's grid bit for bit and time 1 and 2 ranks; JupyterLab shows no
    "IPP Extension Server Error" (ipyparallel's server extension is active), and neither the lab's
    restart hint nor IPython's "already loaded" appears."""
    from playwright.sync_api import sync_playwright
    for module in ("ipyparallel", "mpi4py"):
        pytest.importorskip(module, reason=f"{module} is not installed (pip install -e '.[lab]')")
    front_end, base, token = jupyter_server
    shot = _artifacts() / f"08_scaling_out_{front_end}.png"
    t0 = time.perf_counter()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            page = _run_all(browser, base, token, front_end, SCALING, shot, seconds=400)
            text = page.evaluate(_OUTPUTS)  # (JupyterLab draws only the cells in view; the model has them all)
            page.screenshot(path=str(shot), full_page=True)
            _no_errors(page)
            assert "2 MPI engines" in text, text[-3000:]
            assert '"output_type": "error"' not in text.replace('":"', '": "'), text[-3000:]
            assert "rank 0 of 2" in text and "rank 1 of 2" in text
            assert "the ranks' grid equals the single process's, bit for bit: True" in text
            assert "rank 0's ghost below == rank 1's first row: True" in text
            assert "2 rank(s): 1024x1024" in text  # the scaling table has a 2-rank row
            assert "already loaded" not in text and "restart `jupyter lab`" not in text
            assert "IPP Extension Server Error" not in page.locator("body").inner_text()
        finally:
            browser.close()
    print(f"browser test, lab 8 on two ranks ({front_end}): {time.perf_counter() - t0:.1f} s, screenshot {shot}")
