"""Chrome's getters, as OSWorld's task files name them: tabs and pages over DevTools (tabs.py), live
websites (websites.py), the profile's files (profile.py).

`NEEDS_NETWORK` are OSWorld's getters that read Google Drive; they are not implemented here, so a task
that uses one is not scorable on this harness. `web_addresses` names what the website getters open.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stateact.evals.osworld.chrome import profile, tabs, websites

NEEDS_NETWORK = frozenset({"googledrive_file"})

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
    "info_from_website": websites.info_from_website,
    "gotoRecreationPage_and_get_html_content": websites.recreation_page,
}


def web_addresses(getter_type: str, params: dict) -> list[str]:
    """The website addresses a getter opens when the task is scored ([] for one that opens none)."""
    addresses = websites.WEB_ADDRESSES.get(getter_type)
    return addresses(params) if addresses else []
