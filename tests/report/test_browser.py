"""The report renders in a real browser (headless Chromium) with no console errors.

Screenshots of the index and one kernel page go to $T2C_ARTIFACTS (or the test's
tmp dir) for a person to look at."""
import re
import shutil
import subprocess

import pytest

FLAGS = ["--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-quic", "--hide-scrollbars",
         "--enable-logging=stderr", "--v=0"]


def browse(chromium, tmp_path, url, *action):
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"     # fresh each time
    r = subprocess.run([chromium, *FLAGS, f"--user-data-dir={profile}", *action, url],
                       capture_output=True, text=True, timeout=60)
    return r.stdout, console_errors(r.stderr)


def console_errors(stderr: str) -> list[str]:
    """Lines the page itself logged (console messages, uncaught exceptions, failed loads)."""
    return [line for line in stderr.splitlines()
            if ":CONSOLE" in line or "Failed to load resource" in line or "Uncaught" in line]


def test_console_errors_are_detected(chromium, tmp_path):
    """The detector itself: a page that logs an error must be caught."""
    page = tmp_path / "bad.html"
    page.write_text('<html><body><script>console.error("planted"); missing();</script></body></html>')
    _, errors = browse(chromium, tmp_path, page.as_uri(), "--dump-dom")
    assert any("planted" in e for e in errors) and any("missing is not defined" in e for e in errors)


@pytest.mark.parametrize("page", ["index.html", "kernels/gemm--llm.html"])
def test_report_renders_without_console_errors(chromium, published, tmp_path, artifacts, page):
    url = (published["dir"] / page).as_uri()
    dom, errors = browse(chromium, tmp_path, url, "--dump-dom")
    assert errors == []
    assert "<svg" in dom and "t2c report" in dom
    if page == "index.html":
        assert re.search(r'<div class="count">50</div><div class="label">accepted', dom)
    name = page.replace("/", "-").replace(".html", ".png")
    shot = artifacts / name
    _, errors = browse(chromium, tmp_path, url, "--window-size=1280,3000", f"--screenshot={shot}")
    assert errors == [] and shot.is_file() and shot.stat().st_size > 50_000
    shutil.copy(shot, tmp_path / name)
