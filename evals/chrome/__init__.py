"""Chrome's getters, as OSWorld's task files name them: tabs and pages over DevTools (tabs.py), the
profile's files (profile.py).

`NEEDS_NETWORK` are OSWorld's getters that read live websites or Google Drive; they are not
implemented here, so a task that uses one is not scorable on this harness.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evals.chrome import profile, tabs

NEEDS_NETWORK = frozenset(
    {"googledrive_file", "info_from_website", "gotoRecreationPage_and_get_html_content"}
)

GETTERS: dict[str, Callable[[dict, Any], Any]] = {
    **profile.GETTERS,
    "open_tabs_info": tabs.open_tabs_info,
    "active_url_from_accessTree": tabs.active_url_from_access_tree,
    "active_tab_info": tabs.active_tab_info,
    "active_tab_url_parse": tabs.active_tab_url_parse,
    "url_dashPart": tabs.url_dash_part,
    "active_tab_html_parse": tabs.active_tab_html_parse,
    "page_info": tabs.page_info,
    "pdf_from_url": tabs.pdf_from_url,
}
