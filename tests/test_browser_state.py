"""What a browser shows of the dashboard's state: the option boxes show the values that were
loaded, a link opens the same view in a fresh browser context, and deep links work on the
very first request to a fresh server (Debian chromium driven by playwright)."""
from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

from playwright.sync_api import expect

from browser_helpers import TIMEOUT_MS, go_to, new_page, serve_dashboard, settle
from data_loaders import load_histogram
from packing.recommend import recommend


def choose(page, label: str, option: str) -> None:
    """Pick ``option`` in the sidebar select box labelled ``label``."""
    page.get_by_test_id("stSidebar").locator("[data-testid=stSelectbox]").filter(has_text=label).click()
    page.get_by_role("option", name=option, exact=True).click()
    settle(page)


def source_caption(page) -> str:
    return page.get_by_test_id("stMainBlockContainer").get_by_text(re.compile(r"^Source: ")).inner_text()


def test_option_boxes_show_the_loaded_values(server, browser):
    page = new_page(browser, server)
    page.get_by_role("heading", name="Graph packing dashboard").wait_for()
    go_to(page, "Datasets")
    sidebar = page.get_by_test_id("stSidebar")
    choose(page, "Graph construction", "radius")
    assert sidebar.get_by_label("Radius cutoff (Å)", exact=True).input_value() == "5.00"
    assert "cutoff=5.0" in source_caption(page)
    choose(page, "Graph construction", "knn")
    assert sidebar.get_by_label("Neighbours per atom (k)", exact=True).input_value() == "8"
    assert "k=8" in source_caption(page) or "min(8, n-1)" in source_caption(page)
    go_to(page, "Packing")  # the value survives a page change and is the one packed
    assert sidebar.get_by_label("Neighbours per atom (k)", exact=True).input_value() == "8"
    knn = recommend(load_histogram("qm9", graph="knn")[0], 32).limits  # the recommendation for batch size 32
    assert page.get_by_label("Max edges per pack").input_value() == str(knn.max_edges)
    choose(page, "Graph construction", "radius")
    assert sidebar.get_by_label("Radius cutoff (Å)", exact=True).input_value() == "5.00"
    at_five = int(page.get_by_label("Max edges per pack").input_value())
    box = sidebar.get_by_label("Radius cutoff (Å)", exact=True)
    box.fill("4.5")
    box.press("Enter")
    page.get_by_text("Computing the sizes of qm9 (all, graph=radius, cutoff=4.5)").first.wait_for()  # progress
    settle(page)
    assert sidebar.get_by_label("Radius cutoff (Å)", exact=True).input_value() == "4.50"
    assert page.get_by_text("(all, graph=radius, cutoff=4.5)").first.is_visible()
    assert int(page.get_by_label("Max edges per pack").input_value()) < at_five  # fewer edges: smaller packs
    page.close()


def test_a_link_opens_the_same_view_in_a_fresh_browser(server, browser):
    page = new_page(browser, server)
    go_to(page, "Packing")
    choose(page, "Dataset", "ogbg-molhiv")
    choose(page, "Split", "valid")
    page.get_by_label("Max nodes per pack").fill("300")
    page.get_by_label("Max nodes per pack").press("Enter")
    settle(page)
    page.get_by_test_id("stMainBlockContainer").locator("[data-testid=stSelectbox]").filter(
        has_text="Algorithm").click()
    page.get_by_role("option", name="first fit (earliest-opened open pack that fits)").click()
    settle(page)
    link = page.url
    assert parse_qs(urlparse(link).query)["max_nodes"] == ["300"]
    cards = page.get_by_test_id("stMetric").all_inner_texts()
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    other = context.new_page()
    other.goto(link)
    other.get_by_role("heading", name="Packing", exact=True).wait_for()
    settle(other)
    assert other.get_by_label("Max nodes per pack").input_value() == "300"
    assert other.get_by_text(re.compile(r"^Dataset: ogbg-molhiv \(valid\)")).is_visible()
    # a fresh page can settle between the heading and its metric cards on a busy machine
    expect(other.get_by_test_id("stMetric")).to_have_count(len(cards), timeout=TIMEOUT_MS)
    assert other.get_by_test_id("stMetric").all_inner_texts() == cards
    assert other.get_by_test_id("stMainBlockContainer").get_by_text("Limits from the link you opened").is_visible()
    context.close()
    page.close()


def test_deep_links_work_on_the_first_request_to_a_fresh_server(browser, tmp_path):
    for url in serve_dashboard(tmp_path):
        page = new_page(browser, url + "/sweep?dataset=aflow&split=all&k=12")
        page.get_by_role("heading", name="Limit sweep", exact=True).wait_for()
        settle(page)
        page.wait_for_timeout(1000)
        assert page.get_by_text("Page not found").count() == 0
        assert page.get_by_text("aflow (all, k=12)").first.is_visible()
        page.close()


def test_a_huge_number_typed_into_a_limit_box_keeps_the_page(server, browser):
    page = new_page(browser, server)
    page.get_by_role("heading", name="Graph packing dashboard").wait_for()
    go_to(page, "Packing")
    box = page.get_by_label("Max nodes per pack")
    before = box.input_value()
    box.fill("9007199254740993")  # 2^53 + 1: more than the engine's largest limit, 2^40
    box.press("Enter")
    settle(page)  # no traceback (settle checks), the sidebar and the page are still there
    assert page.get_by_test_id("stSidebar").get_by_text("Chosen configuration").is_visible()
    assert page.get_by_role("heading", name="Packing", exact=True).is_visible()
    # the box does not take what the engine cannot: the chosen limits stay as they were
    assert f"max nodes {before}" in page.get_by_test_id("stSidebar").inner_text().replace("\n", " ")
    page.close()
