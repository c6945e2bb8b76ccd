"""Impress checks: the saved presentation, LibreOffice's registry file and the accessibility tree.

On the .pptx: `check_image_stretch_and_center` (the original's first picture fills
the first slide), `check_slide_orientation_Portrait`,
`evaluate_presentation_fill_to_rgb_distance` (how close the slide backgrounds are to
a colour), `check_transition` (a slide's transition kind), `check_page_number_colors`
(the master's slide-number colour). On `registrymodifications.xcu`:
`check_presenter_console_disable`, `check_auto_saving_time`. On the accessibility
tree: `check_left_panel` (the slide pane is shown).
"""

from __future__ import annotations

import math
import zipfile
from typing import Any
from xml.etree import ElementTree

from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE_TYPE
from pptx.util import Inches

from stateact.evals.osworld.metrics.rules import MetricError
from stateact.evals.osworld.metrics.slides import solid_background

_NS = {
    "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
    "p": "http://schemas.openxmlformats.org/presentationml/2006/main",
    "oor": "http://openoffice.org/2001/registry",
}
_OOR = "{http://openoffice.org/2001/registry}"
_TOLERANCE = Inches(0.5)
_MAX_DISTANCE = math.sqrt(3 * 255**2)
_CHANNEL_MARGIN = 50
_COLOUR_NAMES = ("red", "green", "blue", "black")


def check_image_stretch_and_center(modified: str, original: str) -> float:
    """1 when the original's first picture on slide 1 is, in the modified deck (the last picture
    with the same image bytes), within half an inch of the slide's size and centred."""
    before, after = Presentation(original), Presentation(modified)
    pictures = [_pictures(deck.slides[0]) for deck in (before, after)]
    if not pictures[0]:
        return 0.0
    blob = pictures[0][0].image.blob
    matching = [picture for picture in pictures[1] if picture.image.blob == blob]
    if not matching:
        return 0.0
    image, width, height = matching[-1], before.slide_width, before.slide_height
    off = (
        abs(image.width - width),
        abs(image.height - height),
        abs(image.left - (width - image.width) / 2),
        abs(image.top - (height - image.height) / 2),
    )
    return float(all(value <= _TOLERANCE for value in off))


def _pictures(slide: Any) -> list[Any]:
    return [shape for shape in slide.shapes if shape.shape_type == MSO_SHAPE_TYPE.PICTURE]


def check_slide_orientation_Portrait(pptx: str) -> float:  # noqa: N802 - OSWorld's name
    deck = Presentation(pptx)
    return float(deck.slide_width < deck.slide_height)


def evaluate_presentation_fill_to_rgb_distance(pptx: str, rules: dict[str, Any]) -> float:
    """1 minus the mean over slides of the background colour's distance to `rules["rgb"]` (0 same,
    1 opposite corners of the RGB cube). A slide counts as distance 1 when its background (its own
    solid fill, else the master's) is not a solid RGB colour, or is `original_rgb` (unchanged)."""
    target, original = rules["rgb"], rules.get("original_rgb")
    slides = list(Presentation(pptx).slides)
    if not slides:
        raise MetricError("the presentation has no slides")
    total = 0.0
    for slide in slides:
        colour = _background_rgb(slide)
        if colour is None or (original is not None and list(colour) == list(original)):
            total += 1.0
        else:
            total += math.dist(colour, target) / _MAX_DISTANCE
    return 1 - total / len(slides)


def _background_rgb(slide: Any) -> tuple[int, int, int] | None:
    fill = solid_background(slide)
    if fill is None:
        return None
    try:
        return tuple(fill.fore_color.rgb)
    except Exception:  # a theme or preset colour has no RGB value (python-pptx raises)
        return None


def check_transition(pptx: str, rules: dict[str, Any]) -> float:
    """1 when the first transition of part `ppt/slides/slide<slide_idx + 1>.xml` (by part name,
    not slide order) contains a `p:<transition_type>` element; 0 when that part is missing."""
    index, kind = rules["slide_idx"], rules["transition_type"]
    with zipfile.ZipFile(pptx) as archive:
        name = f"ppt/slides/slide{index + 1}.xml"
        if name not in archive.namelist():
            return 0.0
        root = ElementTree.fromstring(archive.read(name))
    transition = root.find(".//p:transition", _NS)
    return float(transition is not None and transition.find(f".//p:{kind}", _NS) is not None)


def check_page_number_colors(pptx: str, rules: dict[str, Any]) -> float:
    """Whether the slide-number colour is `rules["color"]` (red, blue, green or black; any other
    name scores 1). The colour is the next-to-last `a:srgbClr` inside an `a:solidFill` of
    slideMaster1.xml, and its channels are read as OSWorld reads them: as if the value began
    with `#` (characters 1-2, 3-4 and 5-6 of the six hex digits). A dominant channel must exceed
    the two others by more than 50; black is every channel below 50."""
    with zipfile.ZipFile(pptx) as archive:
        root = ElementTree.fromstring(archive.read("ppt/slideMasters/slideMaster1.xml"))
    colours = root.findall(".//a:solidFill//a:srgbClr", _NS)
    if len(colours) < 2:
        raise MetricError("slideMaster1.xml has fewer than two solid RGB colours")
    value, name = colours[-2].get("val"), rules["color"]
    if value is None:
        return 0.0
    if name not in _COLOUR_NAMES:
        return 1.0
    red, green, blue = (int(value[start : start + 2], 16) for start in (1, 3, 5))
    if name == "black":
        return float(all(channel < _CHANNEL_MARGIN for channel in (red, green, blue)))
    main, *others = {"red": (red, green, blue), "green": (green, red, blue), "blue": (blue, green, red)}[name]
    return float(all(main > other + _CHANNEL_MARGIN for other in others))


def _registry(path: str) -> ElementTree.Element:
    """The root of a LibreOffice `registrymodifications.xcu`."""
    try:
        return ElementTree.parse(path).getroot()
    except (ElementTree.ParseError, FileNotFoundError) as exc:
        raise MetricError(f"cannot read LibreOffice's registry file {path}: {exc}") from exc


def check_presenter_console_disable(xcu: str) -> float:
    """1 when the first `EnablePresenterScreen` of `/org.openoffice.Office.Impress/Misc/Start` is
    false; 0 when it is anything else, absent, or the file cannot be read."""
    try:
        root = ElementTree.parse(xcu).getroot()
        item = root.find(
            ".//item[@oor:path='/org.openoffice.Office.Impress/Misc/Start']"
            "/prop[@oor:name='EnablePresenterScreen']",
            _NS,
        )
        return float(item is not None and item.find("value").text.lower() == "false")
    except Exception:  # as in OSWorld, an unreadable file or property scores 0
        return 0.0


def check_auto_saving_time(xcu: str, rules: dict[str, Any]) -> float:
    """1 when the `AutoSaveTimeIntervall` of `/org.openoffice.Office.Common/Save/Document` (the
    last such item's) is `rules["minutes"]`; 0 when it is another number or not set."""
    minutes = rules["minutes"]
    interval = None
    for item in _registry(xcu).iter("item"):
        if item.get(f"{_OOR}path") != "/org.openoffice.Office.Common/Save/Document":
            continue
        for prop in item.iter("prop"):
            if prop.get(f"{_OOR}name") == "AutoSaveTimeIntervall":
                interval = prop.find(".//value").text
                break
    return float(interval is not None and int(interval) == minutes)


def check_left_panel(accessibility_tree: str) -> float:
    """1 when the accessibility tree has a `document-frame` named "Slides View" (the slide pane)."""
    root = ElementTree.fromstring(accessibility_tree)
    return float(any(frame.get("name") == "Slides View" for frame in root.iter("document-frame")))


METRICS = {
    "check_image_stretch_and_center": check_image_stretch_and_center,
    "check_slide_orientation_Portrait": check_slide_orientation_Portrait,
    "evaluate_presentation_fill_to_rgb_distance": evaluate_presentation_fill_to_rgb_distance,
    "check_transition": check_transition,
    "check_page_number_colors": check_page_number_colors,
    "check_presenter_console_disable": check_presenter_console_disable,
    "check_auto_saving_time": check_auto_saving_time,
    "check_left_panel": check_left_panel,
}
