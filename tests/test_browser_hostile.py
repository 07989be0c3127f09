"""Hostile input round two as a user sees it in Chromium (issue 37): a link's values are
shown as typed, never as an image fetched from elsewhere or a link. Fixtures and helpers:
``conftest.py`` and ``browser_helpers.py``."""
from __future__ import annotations

from urllib.parse import quote, urlparse

import pytest

from browser_helpers import new_page, settle

IMAGE = "![x](https://evil.example/p.png)"
LINK = "[click](https://evil.example/)"


@pytest.mark.parametrize("query, shown", [(f"dataset={quote(IMAGE)}", IMAGE),
                                          (f"dataset=qm9&algorithm={quote(LINK)}", LINK)])
def test_link_values_are_shown_as_text_and_nothing_is_fetched_from_elsewhere(server, browser, query, shown):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.goto(f"{server}/packing?{query}")
    page.get_by_test_id("stMainBlockContainer").wait_for()
    settle(page)
    warning = page.get_by_test_id("stAlert").filter(has_text="This link could not be used completely")
    warning.wait_for()
    assert shown in warning.inner_text().replace("\u2060", "")  # the invisible word joiner ends autolinks
    assert page.locator("img[src^='https://evil'], a[href^='https://evil']").count() == 0
    assert not [url for url in asked if urlparse(url).hostname == "evil.example"]
    page.close()


def test_select_all_in_compare_with_gives_panels_on_shared_axes_and_no_error(server, browser):
    page = new_page(browser, f"{server}/datasets?dataset=qm9&split=all&graph=bonds")
    page.get_by_role("heading", name="Datasets", exact=True).wait_for()
    settle(page)
    compare = page.get_by_test_id("stMultiSelect").filter(has_text="Compare with")
    compare.scroll_into_view_if_needed()
    compare.click()
    page.get_by_role("option").first.wait_for()
    page.get_by_role("option", name="Select all").click()
    page.keyboard.press("Escape")
    settle(page)
    assert page.get_by_test_id("stAlert").filter(has_text="Could not").count() == 0
    assert page.locator("[data-testid=stException]").count() == 0
    toggle = page.get_by_test_id("stCheckbox").filter(has_text="Same axes and colour scale")
    toggle.wait_for()
    ranges = page.evaluate("""() => [...document.querySelectorAll('[class*="st-key-cmp_heat"] .js-plotly-plot')]
        .filter(p => p.data && p.data[0] && p.data[0].type === 'heatmap')
        .map(p => p.layout.xaxis.range.join(',') + '|' + p.layout.yaxis.range.join(','))""")
    assert len(ranges) >= 3 and len(set(ranges)) == 1, ranges
    page.close()


@pytest.mark.parametrize("path, tab", [("/batching?dataset=qm9", None), ("/throughput?dataset=qm9", None),
                                       ("/packing?dataset=qm9", "All methods (Table 2)")])
def test_wide_tables_fit_the_page_and_their_other_columns_are_one_click_away(server, browser, path, tab):
    page = new_page(browser, server + path)
    page.get_by_test_id("stMainBlockContainer").wait_for()
    settle(page)
    if tab is not None:
        page.get_by_text(tab).first.click()
        settle(page)
    page.wait_for_selector("[data-testid=stDataFrame] .dvn-scroller", timeout=120_000)
    settle(page)
    widths = page.evaluate("""() => [...document.querySelectorAll('[data-testid=stDataFrame] .dvn-scroller')]
        .filter(s => s.clientWidth > 0).map(s => [s.scrollWidth, s.clientWidth])""")
    assert widths and all(scroll <= client + 1 for scroll, client in widths), widths
    assert page.get_by_test_id("stExpander").filter(has_text="More columns").count() >= 1
    page.close()
