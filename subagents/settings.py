"""Tunable numbers of the subagents, defined once."""

# GUI subagent and pixel harness
GUI_MAX_STEPS = 25
"""Model turns a GUI delegation may take before it reports INCOMPLETE."""
PIXEL_MAX_STEPS = 100
"""Model turns of the pixel harness (the GUI loop given the whole task)."""
GUI_MAX_SECONDS = 1800.0
"""Wall-clock cap on one GUI delegation."""
GUI_KEEP_SCREENSHOTS = 3
"""Screenshots kept in the GUI loop's context; older ones become a placeholder."""
SCREEN_MAX_LONG_EDGE = 1568
"""Longest edge of a screenshot sent to a model."""
SCREEN_MAX_PIXELS = 1_150_000
"""Pixel count cap of a screenshot sent to a model."""
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
GUI_CLIPBOARD_WAIT_S = 2.0
"""How long typed non-ASCII text waits for the clipboard to hold it before pasting."""
