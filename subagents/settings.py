"""Every tunable number of the subagents, defined once."""

# Grounding (a GUI model's coordinates)
GROUNDING_MIN_PIXELS = 3136
"""Qwen2.5-VL's (and UI-TARS-1.5's) default image pixel budget, lower bound (4 x 28 x 28)."""
GROUNDING_MAX_PIXELS = 12_845_056
"""Qwen2.5-VL's default image pixel budget, upper bound (16384 x 28 x 28)."""
GROUNDING_PATCH = 28
"""Qwen2.5-VL resizes images to multiples of this many pixels."""

# Web subagent
WEB_MAX_STEPS = 30
"""Model turns one web delegation may take."""
WEB_MAX_SECONDS = 15 * 60.0
"""Wall-clock budget of one web delegation."""
WEB_CHROMIUM_PATH = "/usr/bin/chromium"
WEB_CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
WEB_VIEWPORT = (1280, 800)
WEB_BROWSER_START_TIMEOUT_S = 30.0
"""How long Chromium started inside an isolated sandbox may take to open its DevTools port."""
WEB_BROWSER_STOP_TIMEOUT_S = 5.0
"""How long that Chromium may take to exit on SIGTERM before it is killed."""
WEB_BROWSER_POLL_S = 0.05
"""Delay between two looks for the DevTools port of a starting Chromium."""
WEB_ACTION_TIMEOUT_MS = 5_000
"""How long a click, fill or select waits for its element to become actionable."""
WEB_NAVIGATION_TIMEOUT_MS = 20_000
"""How long navigate, back, forward and reload wait for the page to load."""
WEB_SETTLE_TIMEOUT_MS = 3_000
"""How long an action waits for a navigation it started to reach DOMContentLoaded."""
WEB_NEW_TAB_POLL_S = 0.6
"""How long a click is watched for a new tab, popup or download."""
WEB_NEW_TAB_POLL_INTERVAL_S = 0.15
WEB_MAX_WAIT_S = 30.0
"""Upper bound of the `wait` action."""
WEB_OBSERVATION_CAP_CHARS = 40_000
"""Page markdown longer than this is cut to a window around the viewport, with a note."""
WEB_MAX_ELEMENTS = 40_000
"""DOM elements the serializer walks before it stops with a note."""
WEB_MAX_FRAME_DEPTH = 3
"""Levels of nested other-origin frames serialized into the page."""
WEB_MAX_SELECT_OPTIONS = 40
"""Options of a <select> listed in the observation."""
WEB_MAX_VALUE_CHARS = 300
"""Characters of an input's value shown in the observation."""
WEB_MAX_URL_CHARS = 160
"""Link targets longer than this are shortened in the observation."""
WEB_FIND_CAP_CHARS = 6_000
"""Characters of matches the `find` action returns."""
WEB_FIND_LINE_CHARS = 800
"""A longer matching line is clipped in `find` results."""
WEB_FIND_CONTEXT_LINES = 1
"""Lines shown around each `find` match."""
WEB_JS_RESULT_CAP_CHARS = 10_000
"""Characters of a JavaScript result returned to the model."""
WEB_FULL_OBSERVATIONS_KEPT = 2
"""Most recent page observations sent in full; older ones shrink to their header line."""
WEB_OBSERVATION_TRIM_CHUNK = 3
"""Older observations shrink this many at a time, so the cached request prefix changes only every few steps."""


# GUI subagent and pixel harness (the pixel harness's turn budget is its variant's, stateact.app.variants)
REPORT_NOTE_CHARS = 1_500
"""Characters of a GUI or web subagent's own words quoted in its report when it stopped early."""
GUI_MAX_STEPS = 25
"""Model turns a GUI delegation may take before it reports INCOMPLETE."""
GUI_MAX_SECONDS = 1800.0
"""Wall-clock cap on one GUI delegation."""
GUI_KEEP_SCREENSHOTS = 3
"""Turns whose screenshots stay in the context of a screenshot loop (GUI, pixel) whose role sets no
`keep_screenshots` cap; older ones leave behind one placeholder."""
GUI_SCREENSHOT_STRIP_CHUNK = 4
"""Older turns' screenshots leave a screenshot loop's context this many turns at a time, so the cached
prompt prefix changes once every this many steps, not at every step; under a role's `keep_screenshots`
cap the chunk is at most the cap."""
SCREEN_TARGETS = ((1024, 768), (1280, 800), (1366, 768))
"""XGA, WXGA and FWXGA: preferred model sizes when the screen's aspect ratio matches."""
SCREEN_ASPECT_TOLERANCE = 0.02
SCREENSHOT_COMPRESS_LEVEL = 1
"""zlib level of re-encoded PNGs: fast, a little larger."""
ZOOM_MIN_REGION = 8
"""Smallest side, in screenshot pixels, of a zoom region."""
GUI_SETTLE_S = 0.5
"""Pause after an action before the screenshot, so the app can redraw."""
GUI_ACTION_TIMEOUT_S = 30.0
"""Timeout of one action's code on the sandbox (OSWorld's run_python allows 30 s)."""
GUI_WAIT_DEFAULT_S = 1.0
"""Length of a `wait` action that names no duration."""
GUI_WAIT_MAX_S = 30.0
"""Longest `wait` action."""
GUI_DRAG_MIN_S = 0.5
"""Shortest drag: apps must see the pointer move while the button is held."""
GUI_TYPE_INTERVAL_S = 0.01
"""Delay between typed characters."""
GUI_TYPE_MAX_CHARS = 1000
"""Longest text one `type` action may send (typing it must fit the action timeout)."""
GUI_SCROLL_MAX = 50
"""Most wheel clicks one `scroll` action may send."""
GUI_TYPE_REMAPPED_DELAY_MS = 60
"""Delay between characters that xdotool types through a key it remaps (non-ASCII, `<`): at shorter
delays an app can read a key before it has seen the new keymap, and the character is lost."""
GUI_CLIPBOARD_WAIT_S = 2.0
"""How long typed non-ASCII text waits for the clipboard to hold it before pasting."""

# Both subagents
SUBAGENT_TEXT_REPLY_NUDGES = 2
"""Replies without a tool call in a row a subagent is reminded about before its delegation ends INCOMPLETE."""
