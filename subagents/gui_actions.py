"""GUI actions and their translation into pyautogui code: the one place that does it.

`ComputerAction` is what a vision model sends (the action names and fields of
Anthropic's computer-use tool, so the same parser serves the native tool and a
plain function tool). `action_code` turns an action into a self-contained
Python program that any backend runs on its display through
`Sandbox.run_python` (locally on Xvfb, or through an OSWorld VM's server).
Coordinates arrive in the scaled screenshot's space and leave in screen pixels.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, Field, model_validator

from stateact.subagents import settings
from stateact.subagents.scaler import Scaler

Point = Annotated[list[float], Field(min_length=2, max_length=2)]
"""[x, y]; a plain array schema (no prefixItems) that every tool-calling server accepts."""
Region = Annotated[list[float], Field(min_length=4, max_length=4)]

CLICKS = {
    "left_click": ("left", 1),
    "right_click": ("right", 1),
    "middle_click": ("middle", 1),
    "double_click": ("left", 2),
    "triple_click": ("left", 3),
}
"""Click actions: (button, number of clicks)."""

ActionName = Literal[
    "screenshot",
    "left_click",
    "right_click",
    "middle_click",
    "double_click",
    "triple_click",
    "mouse_move",
    "left_mouse_down",
    "left_mouse_up",
    "left_click_drag",
    "scroll",
    "type",
    "key",
    "hold_key",
    "wait",
    "zoom",
]

NEEDS = {
    "mouse_move": ("coordinate",),
    "left_click_drag": ("start_coordinate", "coordinate"),
    "scroll": ("scroll_direction",),
    "type": ("text",),
    "key": ("text",),
    "hold_key": ("text", "duration"),
    "zoom": ("region",),
}
"""Fields each action requires."""


class ComputerAction(BaseModel):
    """One mouse, keyboard or screen action. Coordinates are pixels of the latest screenshot."""

    action: ActionName = Field(
        description=(
            "screenshot: look at the screen. left_click/right_click/middle_click/double_click/triple_click: "
            "click at `coordinate` (or where the pointer is), holding the modifier keys named in `text` "
            "(e.g. 'shift' or 'ctrl+shift'). mouse_move: move the pointer to `coordinate`. left_click_drag: "
            "press at `start_coordinate`, move to `coordinate` over `duration` seconds, release. "
            "left_mouse_down/left_mouse_up: press or release the left button (at `coordinate` if given). scroll: "
            "turn the wheel `scroll_amount` clicks in `scroll_direction` at `coordinate`. type: type `text` "
            f"(any characters, at most {settings.GUI_TYPE_MAX_CHARS} per action: split longer text). key: press a key or a combination in `text`, e.g. 'Return', 'ctrl+s', "
            "'alt+F4'; several separated by spaces are pressed in turn. hold_key: hold the keys in `text` for "
            "`duration` seconds. wait: wait `duration` seconds. "
            "zoom: view `region` [x0, y0, x1, y1] of the screen enlarged (coordinates stay those of the "
            "full screenshot)."
        )
    )
    coordinate: Point | None = Field(None, description="[x, y] in screenshot pixels.")
    start_coordinate: Point | None = Field(None, description="[x, y] where a drag starts.")
    text: str | None = Field(None, description="Text to type, keys to press, or modifiers held on a click.")
    scroll_direction: Literal["up", "down", "left", "right"] | None = None
    scroll_amount: int = Field(3, ge=1, le=settings.GUI_SCROLL_MAX, description="Wheel clicks.")
    duration: float | None = Field(
        None, ge=0, le=settings.GUI_WAIT_MAX_S, description="Seconds, for wait and left_click_drag."
    )
    region: Region | None = Field(None, description="[x0, y0, x1, y1] for zoom.")

    @model_validator(mode="after")
    def _required_fields(self) -> ComputerAction:
        missing = [name for name in NEEDS.get(self.action, ()) if getattr(self, name) in (None, "")]
        if missing:
            raise ValueError(f"`{self.action}` needs {', '.join(f'`{m}`' for m in missing)}")
        if self.action == "type" and len(self.text or "") > settings.GUI_TYPE_MAX_CHARS:
            raise ValueError(
                f"`type` takes at most {settings.GUI_TYPE_MAX_CHARS} characters at a time; split the text"
            )
        return self

    def summary(self) -> str:
        """A short human description, e.g. `left_click at (10, 20)`."""
        parts = [self.action]
        if self.start_coordinate is not None:
            parts.append(f"from ({self.start_coordinate[0]:g}, {self.start_coordinate[1]:g})")
        if self.coordinate is not None:
            parts.append(
                f"{'to' if self.start_coordinate else 'at'} ({self.coordinate[0]:g}, {self.coordinate[1]:g})"
            )
        if self.scroll_direction:
            parts.append(f"{self.scroll_direction} x{self.scroll_amount}")
        if self.text:
            parts.append(repr(self.text if len(self.text) <= 60 else self.text[:57] + "..."))
        if self.region is not None:
            parts.append("region [" + ", ".join(f"{v:g}" for v in self.region) + "]")
        return " ".join(parts)


class ActionError(ValueError):
    """An action that cannot be turned into code (unknown key name, ...)."""


# -- keys ---------------------------------------------------------------------------
KEY_ALIASES = {
    "return": "enter",
    "kp_enter": "enter",
    "escape": "esc",
    "control": "ctrl",
    "control_l": "ctrlleft",
    "control_r": "ctrlright",
    "ctrl_l": "ctrlleft",
    "ctrl_r": "ctrlright",
    "shift_l": "shiftleft",
    "shift_r": "shiftright",
    "alt_l": "altleft",
    "alt_r": "altright",
    "super": "win",
    "super_l": "winleft",
    "super_r": "winright",
    "meta": "win",
    "cmd": "win",
    "page_up": "pageup",
    "prior": "pageup",
    "page_down": "pagedown",
    "next": "pagedown",
    "back_space": "backspace",
    "caps_lock": "capslock",
    "num_lock": "numlock",
    "scroll_lock": "scrolllock",
    "print": "printscreen",
    "minus": "-",
    "plus": "+",
    "equal": "=",
    "comma": ",",
    "period": ".",
    "slash": "/",
    "backslash": "\\",
    "semicolon": ";",
    "apostrophe": "'",
    "grave": "`",
    "bracketleft": "[",
    "bracketright": "]",
}
"""xdotool and common spellings mapped to pyautogui key names."""

NAMED_KEYS = frozenset(
    [
        "enter",
        "esc",
        "tab",
        "space",
        "backspace",
        "delete",
        "del",
        "insert",
        "home",
        "end",
        "pageup",
        "pagedown",
        "up",
        "down",
        "left",
        "right",
        "ctrl",
        "ctrlleft",
        "ctrlright",
        "shift",
        "shiftleft",
        "shiftright",
        "alt",
        "altleft",
        "altright",
        "win",
        "winleft",
        "winright",
        "capslock",
        "numlock",
        "scrolllock",
        "printscreen",
        "pause",
        "menu",
        "apps",
        "volumeup",
        "volumedown",
        "volumemute",
        "playpause",
        "nexttrack",
        "prevtrack",
    ]
    + [f"f{n}" for n in range(1, 25)]
    + [f"num{n}" for n in range(10)]
)
"""pyautogui key names the harness accepts, besides single printable characters."""


def key_name(raw: str) -> str:
    """A pyautogui key name for one key as a model may spell it."""
    if len(raw) == 1 and raw.isprintable() and raw.isascii():
        return raw
    name = KEY_ALIASES.get(raw.lower(), raw.lower())
    if name in NAMED_KEYS or (len(name) == 1 and name.isascii()):
        return name
    raise ActionError(
        f"unknown key {raw!r}; use names like Return, Escape, Tab, BackSpace, Delete, Home, End, Page_Up, "
        "Up, F5, ctrl, shift, alt, super, or a single character (text is typed with `type`)"
    )


def parse_keys(text: str) -> list[list[str]]:
    """'ctrl+shift+t Return' -> [['ctrl', 'shift', 't'], ['enter']]."""
    combos = []
    for chord in text.split():
        keys = [part for part in re.split(r"(?<=.)\+(?=.)", chord) if part]
        combos.append([key_name(k) for k in keys])
    if not combos:
        raise ActionError("`key` needs at least one key name")
    return combos


def parse_modifiers(text: str | None) -> list[str]:
    """Modifier keys to hold during a click or scroll, e.g. 'ctrl+shift'."""
    if not text:
        return []
    keys = [key_name(k) for k in re.split(r"[+\s]+", text.strip()) if k]
    modifiers = {"ctrl", "ctrlleft", "ctrlright", "shift", "shiftleft", "shiftright"}
    modifiers |= {"alt", "altleft", "altright", "win", "winleft", "winright"}
    bad = [k for k in keys if k not in modifiers]
    if bad:
        raise ActionError(f"`text` on a click or scroll names modifier keys to hold; not modifiers: {bad}")
    return keys


# -- code ---------------------------------------------------------------------------
PRELUDE = """\
import os
os.environ.setdefault("DISPLAY", ":0")
if not os.path.exists(os.environ.get("XAUTHORITY") or os.path.expanduser("~/.Xauthority")):
    os.environ["XAUTHORITY"] = os.devnull
import pyautogui
pyautogui.FAILSAFE = False
pyautogui.PAUSE = 0.05
"""
"""Opens every action program: DISPLAY first, then pyautogui without its corner fail-safe."""

TERMINAL_CLASSES = (
    "xterm", "uxterm", "gnome-terminal", "gnome-terminal-server", "konsole", "xfce4-terminal", "terminator",
    "alacritty", "kitty", "lxterminal", "mate-terminal", "tilix", "urxvt", "rxvt", "qterminal",
)  # fmt: skip
"""Window classes (lower-cased) of terminals, where Ctrl+V pastes nothing (a shell reads it as literal-next)."""

TYPE_OTHER_HELPER = f"""\
import shutil, subprocess, time
def type_other(text):
    if shutil.which("xdotool") and shutil.which("xprop"):
        window = subprocess.run(["xdotool", "getactivewindow"], capture_output=True, text=True).stdout.strip()
        classes = subprocess.run(["xprop", "-id", window or "0", "WM_CLASS"], capture_output=True, text=True).stdout
        if any(name.lower() in {TERMINAL_CLASSES!r} for name in classes.split('"')[1::2]):
            subprocess.run(["xdotool", "type", "--delay", "{settings.GUI_TYPE_REMAPPED_DELAY_MS}", "--", text],
                           check=True, stdout=subprocess.DEVNULL)
            return
    subprocess.run(["xclip", "-selection", "clipboard"], input=text.encode(), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + {settings.GUI_CLIPBOARD_WAIT_S}
    while time.monotonic() < deadline:
        held = subprocess.run(["xclip", "-o", "-selection", "clipboard"], capture_output=True).stdout
        if held == text.encode():
            break
        time.sleep(0.05)
    pyautogui.hotkey("ctrl", "v")
"""
"""Non-ASCII text and `<`, which pyautogui cannot type: pasted from the clipboard with Ctrl+V, except
into a terminal (Ctrl+V pastes nothing there), where xdotool types it through a remapped key (it
reaches terminals whole; LibreOffice can drop such keys, so it is not used elsewhere)."""


def _held(modifiers: list[str], body: list[str]) -> list[str]:
    """`body` lines with modifier keys held down around them."""
    if not modifiers:
        return body
    down = [f"pyautogui.keyDown({m!r})" for m in modifiers]
    up = [f"    pyautogui.keyUp({m!r})" for m in reversed(modifiers)]
    return [*down, "try:", *(f"    {line}" for line in body), "finally:", *up]


def _type_lines(text: str) -> list[str]:
    """ASCII runs typed key by key by pyautogui; other runs, and `<`, by `type_other` (pyautogui types `<`
    with Shift held, and X's usual keymap puts `>` on that key's shifted level)."""
    lines = []
    for run in re.findall(r"[\x00-\x3b\x3d-\x7f]+|[^\x00-\x3b\x3d-\x7f]+", text):
        if run.isascii() and "<" not in run:
            lines.append(f"pyautogui.write({run!r}, interval={settings.GUI_TYPE_INTERVAL_S})")
        else:
            lines.append(f"type_other({run!r})")
    return lines


def action_lines(action: ComputerAction, scaler: Scaler) -> list[str]:
    """The pyautogui statements of an action (empty when nothing runs on the display)."""
    name = action.action
    point = scaler.to_screen(*action.coordinate) if action.coordinate is not None else None
    at = f"x={point[0]}, y={point[1]}, " if point else ""
    if name in CLICKS:
        button, clicks = CLICKS[name]
        click = f"pyautogui.click({at}clicks={clicks}, interval=0.08, button={button!r})"
        return _held(parse_modifiers(action.text), [click])
    if name == "mouse_move":
        return [f"pyautogui.moveTo({point[0]}, {point[1]})"]
    if name in ("left_mouse_down", "left_mouse_up"):
        return [f"pyautogui.{'mouseDown' if name.endswith('down') else 'mouseUp'}({at}button='left')"]
    if name == "left_click_drag":
        start = scaler.to_screen(*action.start_coordinate)
        seconds = max(settings.GUI_DRAG_MIN_S, action.duration or 0.0)
        return [
            f"pyautogui.moveTo({start[0]}, {start[1]})",
            "pyautogui.mouseDown(button='left')",
            "try:",
            f"    pyautogui.moveTo({point[0]}, {point[1]}, duration={seconds})",
            "finally:",
            "    pyautogui.mouseUp(button='left')",
        ]
    if name == "scroll":
        direction = action.scroll_direction
        clicks = action.scroll_amount if direction in ("up", "right") else -action.scroll_amount
        wheel = "scroll" if direction in ("up", "down") else "hscroll"
        return _held(parse_modifiers(action.text), [f"pyautogui.{wheel}({at}clicks={clicks})"])
    if name == "type":
        return _type_lines(action.text)
    if name == "hold_key":
        keys = [key for combo in parse_keys(action.text) for key in combo]
        return _held(keys, ["import time", f"time.sleep({action.duration})"])
    if name == "key":
        return [f"pyautogui.hotkey({', '.join(repr(k) for k in combo)})" for combo in parse_keys(action.text)]
    return []


def action_code(action: ComputerAction, scaler: Scaler) -> str | None:
    """A self-contained Python program performing the action, or None if it needs no display input.

    Raises CoordinateError or ActionError for an action that cannot run.
    """
    lines = action_lines(action, scaler)
    if not lines:
        return None
    helpers = TYPE_OTHER_HELPER if any(line.startswith("type_other(") for line in lines) else ""
    return PRELUDE + helpers + "\n".join(lines) + "\n"
