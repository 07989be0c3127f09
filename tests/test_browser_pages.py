"""What a user sees in a real browser on every visit (Debian chromium driven by
playwright-python): nothing fetched from another host (the favicon ships with the app), the
upload limit the README states (512 MB), dataset names whole in the sidebar. Fixtures and helpers:
``conftest.py`` and ``browser_helpers.py``."""
from __future__ import annotations

from browser_helpers import TIMEOUT_MS, go_to, settle


def test_pages_fetch_nothing_from_another_host_and_say_the_readmes_upload_limit(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(TIMEOUT_MS)
    fetched = []
    page.on("request", lambda request: fetched.append(request.url))
    page.goto(server)
    page.get_by_role("heading", name="Graph packing dashboard").wait_for()
    settle(page)
    sidebar = page.get_by_test_id("stSidebar")
    assert sidebar.get_by_role("combobox", name="Dataset").input_value() == "qm9"
    assert sidebar.get_by_text("QM9 (130,831 small molecules with 3D coordinates)").is_visible()
    go_to(page, "Datasets")
    uploader = page.get_by_test_id("stFileUploader").first
    label = uploader.get_by_test_id("stWidgetLabel").inner_text()
    assert "MB" not in label and "GB" not in label  # the limit is said once, by the drop zone (issue 37)
    # the server takes 500 MB, as the drop zone says (it writes anything over 500 MB as 1GB), not its default 200MB
    assert uploader.get_by_test_id("stFileUploaderDropzoneInstructions").inner_text().startswith("500MB per file")
    icon = page.locator("link[rel~=icon]").first.get_attribute("href")
    assert not icon.startswith("http") or icon.startswith(server), icon
    elsewhere = [url for url in fetched if not url.startswith((server, "data:", "blob:"))]
    assert not elsewhere, elsewhere
    page.close()
