"""Coordinate conventions of grounding models: the same screen point in each model's space."""

from __future__ import annotations

import pytest

from stateact.subagents.grounding import coordinate_note, scaler_for, smart_resize
from stateact.subagents.scaler import CoordinateError
from stateact.subagents.screen_settings import ScreenSettings

SCREEN = (1920, 1080)
"""Shown to a model at 1366x768 (FWXGA)."""


@pytest.mark.parametrize(
    ("size", "budget", "expected"),
    [
        ((1366, 768), {}, (1372, 756)),  # nearest multiples of 28
        ((1920, 1080), {"max_pixels": 1_003_520}, (1316, 728)),  # shrunk into the budget, still multiples
        ((20, 10), {}, (84, 56)),  # grown to the minimum budget
    ],
)
def test_smart_resize_rounds_to_multiples_of_28_within_the_budget(size, budget, expected):
    width, height = smart_resize(*size, **budget)
    assert (width, height) == expected and width % 28 == 0 and height % 28 == 0


@pytest.mark.parametrize(
    ("options", "point"),
    [
        (ScreenSettings(), (683, 384)),
        (ScreenSettings(coordinates="relative1000"), (500, 500)),
        (ScreenSettings(coordinates="resized"), (686, 378)),
        (ScreenSettings(coordinates="resized", native_size=True), (686, 378)),
    ],
)
def test_each_convention_reaches_the_same_screen_point(options, point):
    scaler = scaler_for(SCREEN, options)
    x, y = scaler.to_screen(*point)
    assert abs(x - 960) <= 2 and abs(y - 540) <= 2
    assert scaler.to_screen(*scaler.to_model(x, y)) == (x, y)


def test_native_size_sends_the_resized_image_and_notes_name_the_space():
    native = scaler_for(SCREEN, ScreenSettings(coordinates="resized", native_size=True))
    assert native.model == (1372, 756) and native.space is None
    assert "1372x756" in coordinate_note(native, ScreenSettings(coordinates="resized"))
    relative = scaler_for(SCREEN, ScreenSettings(coordinates="relative1000"))
    assert relative.model == (1366, 768) and "from 0 to 1000" in coordinate_note(
        relative, ScreenSettings(coordinates="relative1000")
    )
    with pytest.raises(CoordinateError):
        relative.to_screen(1001, 10)


def test_a_stated_screenshot_edge_replaces_the_standard_sizes():
    assert scaler_for(SCREEN, ScreenSettings(screenshot_max_edge=960)).model == (960, 540)
