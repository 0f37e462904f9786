"""The page's browser tests share one driven Chromium per module and a fresh ``Page`` per test
(each module brings its own ``server``: the page's server with the settings it needs)."""

import pytest
from web_helpers import Page, browsing


@pytest.fixture(scope="module")
def browser():
    with browsing() as driver:
        yield driver


@pytest.fixture()
def page(server, browser):
    p = Page(browser, server.url)
    p.console_errors()  # what earlier tests left in the log
    return p


@pytest.fixture(scope="module")
def service():
    """The page's questions answered in this process (no HTTP), closed after the module."""
    from jaxsolve.web.api import Service

    s = Service(wait=60)
    try:
        yield s
    finally:
        s.close()
