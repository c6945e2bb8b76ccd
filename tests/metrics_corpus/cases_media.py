"""The differential corpus of the image and VLC metrics: pictures drawn with Pillow, vlcrc and VLC
status files written as text, and the metric calls made on them.

Like cases.py it runs under our environment and under OSWorld's (`osworld_scores.py cases_media ...`),
so it needs only the standard library and Pillow. A case's `result`/`expected` are file names in the
build folder, or values (`is_vlc_fullscreen` sizes, rules); `None` stays None.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageEnhance, ImageFilter

try:
    from .corpus_calls import Case, call_case, with_paths
except ImportError:  # imported by bare name, this folder on sys.path (osworld_scores.py)
    from corpus_calls import Case, call_case, with_paths
_PICTURES: dict[str, Callable[[], Image.Image]] = {}
_TEXTS: dict[str, str] = {}


def _noise() -> Image.Image:
    """Grey noise from a fixed seed, so every build of the corpus draws the same picture."""
    rng = random.Random(60)
    return Image.frombytes("L", (96, 64), bytes(rng.randrange(256) for _ in range(96 * 64))).convert("RGB")


def _scene(size: tuple[int, int] = (96, 64), shift: int = 0, colour: str = "navy") -> Image.Image:
    """A picture with structure (a gradient, a disc, a bar and a triangle), drawn at 96 x 64 and resized."""
    image = Image.linear_gradient("L").resize((96, 64)).convert("RGB")
    draw = ImageDraw.Draw(image)
    draw.ellipse((10 + shift, 8, 40 + shift, 38), fill=colour)
    draw.rectangle((50, 40, 88, 54), fill="orange")
    draw.polygon([(60, 6), (80, 30), (44, 30)], fill="green")
    return image if size == (96, 64) else image.resize(size)


def _triangle(centre: tuple[int, int], size: tuple[int, int] = (100, 80)) -> Image.Image:
    image = Image.new("RGB", size, "white")
    x, y = centre
    ImageDraw.Draw(image).polygon([(x, y - 12), (x + 12, y + 8), (x - 12, y + 8)], fill="yellow")
    ImageDraw.Draw(image).rectangle((0, 0, 30, 10), fill="blue")
    return image


def _transparent(box: tuple[int, int, int, int] | None, size: tuple[int, int] = (80, 60)) -> Image.Image:
    image = Image.new("RGBA", size, (0, 0, 0, 0))
    if box is not None:
        scene = _scene((box[2] - box[0], box[3] - box[1])).convert("RGBA")
        image.paste(scene, box[:2])
    return image


def _text_at(x: int, size: tuple[int, int] = (120, 60)) -> Image.Image:
    image = Image.new("RGB", size, "white")
    ImageDraw.Draw(image).rectangle((x, 20, x + 30, 30), fill="black")
    return image


def _object_on(
    background: str | tuple[int, ...], size: tuple[int, int] = (40, 40), mode: str = "RGB"
) -> Image.Image:
    """A black disc (GIMP's object layer) on a plain background."""
    image = Image.new(mode, size, background)
    ImageDraw.Draw(image).ellipse((8, 8, 24, 24), fill=(0, 0, 0, 255) if mode == "RGBA" else "black")
    return image


def _with_spot(image: Image.Image, box: tuple[int, int, int, int], colour: str = "white") -> Image.Image:
    ImageDraw.Draw(image).rectangle(box, fill=colour)
    return image


_PICTURES.update(
    {
        "gb_white.png": lambda: _object_on("white"),
        "gb_green.png": lambda: _object_on((20, 160, 40)),
        "gb_olive.png": lambda: _object_on((120, 120, 0)),
        "gb_half_green.png": lambda: _with_spot(_object_on((20, 160, 40)), (30, 0, 39, 39)),
        "gb_object_red.png": lambda: _with_spot(_object_on((20, 160, 40)), (13, 13, 19, 19), "red"),
        "gb_green_big.png": lambda: _object_on((20, 160, 40), (50, 50)),
        "gb_green_small.png": lambda: _object_on((20, 160, 40), (30, 30)),
        "gb_small_white_corner.png": lambda: _with_spot(_object_on((20, 160, 40), (30, 30)), (0, 0, 1, 1)),
        "gb_green_rgba.png": lambda: _object_on((20, 160, 40, 255), mode="RGBA"),
        "gb_transparent.png": lambda: _object_on((0, 0, 0, 0), mode="RGBA"),
        "gb_black.png": lambda: Image.new("RGB", (40, 40), "black"),
        "gb_grey.png": lambda: _object_on("white").convert("L"),
        "gb_palette.png": lambda: _object_on((20, 160, 40)).convert("P"),
        "gb_white_wide.png": lambda: _object_on("white", (60, 40)),
        "gb_green_wide.png": lambda: _object_on((20, 160, 40), (60, 40)),
        "gb_wide_spot_right.png": lambda: _with_spot(_object_on((20, 160, 40), (60, 40)), (50, 5, 55, 10)),
        "gb_wide_spot_left.png": lambda: _with_spot(_object_on((20, 160, 40), (60, 40)), (30, 5, 32, 7)),
        "gb_white_tall.png": lambda: _object_on("white", (40, 60)),
        "gb_green_tall.png": lambda: _object_on((20, 160, 40), (40, 60)),
        "gb_tall_spot_top.png": lambda: _with_spot(_object_on((20, 160, 40), (40, 60)), (30, 0, 32, 0)),
        "gb_tall_spot_low.png": lambda: _with_spot(_object_on((20, 160, 40), (40, 60)), (30, 10, 32, 12)),
        "scene.png": _scene,
        "scene_copy.png": _scene,
        "scene_shifted.png": lambda: _scene(shift=6),
        "scene_recoloured.png": lambda: _scene(colour="red"),
        "scene_big.png": lambda: _scene((192, 128)),
        "scene_wide.png": lambda: _scene((120, 64)),
        "scene_tiny.png": lambda: _scene((6, 6)),
        "scene.jpg": _scene,
        "scene_grey.png": lambda: _scene().convert("L"),
        "scene_darker.png": lambda: ImageEnhance.Brightness(_scene()).enhance(0.6),
        "scene_brighter.png": lambda: ImageEnhance.Brightness(_scene()).enhance(1.3),
        "scene_contrast.png": lambda: ImageEnhance.Contrast(_scene()).enhance(1.6),
        "scene_flat.png": lambda: ImageEnhance.Contrast(_scene()).enhance(0.5),
        "scene_saturated.png": lambda: ImageEnhance.Color(_scene()).enhance(1.8),
        "scene_blurred.png": lambda: _scene().filter(ImageFilter.GaussianBlur(2)),
        "scene_mirrored.png": lambda: _scene().transpose(Image.Transpose.FLIP_LEFT_RIGHT),
        "scene_palette.png": lambda: _scene().convert("P", palette=Image.Palette.ADAPTIVE, colors=64),
        "noise.png": _noise,
        "triangle_middle.png": lambda: _triangle((50, 40)),
        "triangle_corner.png": lambda: _triangle((80, 60)),
        "opaque_part.png": lambda: _transparent((10, 5, 60, 45)),
        "all_transparent.png": lambda: _transparent(None),
        "text_left.png": lambda: _text_at(3),
        "text_middle.png": lambda: _text_at(50),
        "blank.png": lambda: Image.new("RGB", (120, 60), "white"),
    }
)

_STATUS = (
    '<root><state>{state}</state><information><category name="meta">{info}</category>'
    '<category name="Stream 0"><info name="Codec">H264</info></category></information></root>'
)
_TEXTS.update(
    {
        "status_file.xml": _STATUS.format(
            state="playing", info='<info name="filename">/home/user/Music/song.mp3</info>'
        ),
        "status_title.xml": _STATUS.format(state="playing", info='<info name="title">song.mp3</info>'),
        "status_paused.xml": _STATUS.format(state="paused", info='<info name="filename">song.mp3</info>'),
        "status_url.xml": _STATUS.format(
            state="playing", info='<info name="url">https://media.example.org/live/stream.m3u8?t=1</info>'
        ),
        "status_stream.xml": _STATUS.format(state="playing", info='<info name="filename">stream.m3u8</info>'),
        "status_none.xml": _STATUS.format(state="playing", info=""),
        "vlcrc_set": (
            "# vlcrc\n#qt-bgcone=1\nqt-bgcone=0\nqt-max-volume=200\nqt-minimal-view=1\n"
            "qt-slider-colours=10;20;30;40;50;60;70;80;90;1;2;3\nglobal-key-play-pause=Ctrl+P\n"
            "one-instance-when-started-from-file=0\ninput-record-path=/home/user/Desktop\n"
        ),
        "vlcrc_default": "# vlcrc\n#qt-bgcone=1\n#global-key-play-pause=\n#input-record-path=/home/user/Desktop\n",
        "vlcrc_bright": "qt-slider-colours=153;210;153;20;210;20;255;199;15;245;39;29\nglobal-key-play-pause=\n",
        "vlcrc_commented_last": "qt-bgcone=0\n#qt-bgcone=1\ninput-record-path=/tmp\n",
        "gimprc": (
            '# GIMP gimprc\n\n(default-threshold 30)\n(show-menubar yes)\n(theme "Dark")\n'
            "(default-view\n    (show-menubar no))\n(undo-levels 5)\n(color-management (mode display))\n"
        ),
        "gimprc_blank_line": '(undo-levels 5)\n   \n(theme "Light")\n',
    }
)


def _case(func: str, result: Any, expected: Any = None, **options: Any) -> Case:
    return {"func": func, "result": result, "expected": expected, "options": options}


CASES: dict[str, Case] = {
    # compare_images: SSIM in grey at the smaller size, optionally against a base score
    "ci_same": _case("compare_images", "scene.png", "scene_copy.png"),
    "ci_shifted": _case("compare_images", "scene_shifted.png", "scene.png"),
    "ci_recoloured": _case("compare_images", "scene_recoloured.png", "scene.png"),
    "ci_bigger": _case("compare_images", "scene_big.png", "scene.png"),
    "ci_wide": _case("compare_images", "scene_wide.png", "scene.png"),
    "ci_jpeg": _case("compare_images", "scene.jpg", "scene.png"),
    "ci_blurred": _case("compare_images", "scene_blurred.png", "scene.png"),
    "ci_noise": _case("compare_images", "noise.png", "scene.png"),
    "ci_base_gain": _case("compare_images", "scene_blurred.png", "scene.png", reference_base_result=0.5),
    "ci_base_loss": _case("compare_images", "noise.png", "scene.png", reference_base_result=0.5),
    "ci_missing": _case("compare_images", None, "scene.png"),
    "ci_tiny": _case("compare_images", "scene_tiny.png", "scene.png"),
    # compare_image_list: pixel-identical after resizing and mode conversion
    "cil_same": _case("compare_image_list", "scene.png", "scene_copy.png"),
    "cil_list": _case(
        "compare_image_list", ["scene.png", "scene_grey.png"], ["scene_copy.png", "scene_grey.png"]
    ),
    "cil_one_differs": _case(
        "compare_image_list", ["scene.png", "scene_shifted.png"], ["scene.png", "scene.png"]
    ),
    "cil_grey_vs_rgb": _case("compare_image_list", "scene.png", "scene_grey.png"),
    "cil_resized": _case("compare_image_list", "scene_big.png", "scene.png"),
    "cil_missing": _case("compare_image_list", [None], ["scene.png"]),
    # the SSIM structure checks
    "css_same": _case("check_structure_sim", "scene.png", "scene_copy.png"),
    "css_shifted": _case("check_structure_sim", "scene_shifted.png", "scene.png"),
    "css_blurred": _case("check_structure_sim", "scene_blurred.png", "scene.png"),
    "css_sizes": _case("check_structure_sim", "scene_big.png", "scene.png"),
    "css_grey": _case("check_structure_sim", "scene_grey.png", "scene.png"),
    "css_noise": _case("check_structure_sim", "noise.png", "scene.png"),
    "css_tiny": _case("check_structure_sim", "scene_tiny.png", "scene_tiny.png"),
    "css_missing": _case("check_structure_sim", None, "scene.png"),
    "cssr_bigger": _case("check_structure_sim_resized", "scene_big.png", "scene.png"),
    "cssr_noise": _case("check_structure_sim_resized", "noise.png", "scene.png"),
    "cssr_opaque_part": _case("check_structure_sim_resized", "opaque_part.png", "scene_big.png"),
    "cssr_transparent": _case("check_structure_sim_resized", "all_transparent.png", "scene.png"),
    "mirror_yes": _case("check_image_mirror", "scene.png", "scene_mirrored.png"),
    "mirror_no": _case("check_image_mirror", "scene.png", "scene.png"),
    "cfe_same": _case("check_file_exists_and_structure_sim", "scene.png", "scene_copy.png"),
    "cfe_missing_file": _case("check_file_exists_and_structure_sim", "absent.png", "scene.png"),
    "cfe_noise": _case("check_file_exists_and_structure_sim", "noise.png", "scene.png"),
    "palette_yes": _case("check_palette_and_structure_sim", "scene_palette.png", "scene.png"),
    "palette_rgb": _case("check_palette_and_structure_sim", "scene.png", "scene.png"),
    "palette_missing": _case("check_palette_and_structure_sim", "absent.png", "scene.png"),
    # brightness, contrast and saturation with structure
    "bright_darker": _case("check_brightness_decrease_and_structure_sim", "scene_darker.png", "scene.png"),
    "bright_brighter": _case(
        "check_brightness_decrease_and_structure_sim", "scene_brighter.png", "scene.png"
    ),
    "bright_noise": _case("check_brightness_decrease_and_structure_sim", "noise.png", "scene_brighter.png"),
    "bright_tight": _case(
        "check_brightness_decrease_and_structure_sim", "scene_darker.png", "scene.png", threshold=0.0001
    ),
    "contrast_more": _case("check_contrast_increase_and_structure_sim", "scene_contrast.png", "scene.png"),
    "contrast_less": _case("check_contrast_increase_and_structure_sim", "scene_flat.png", "scene.png"),
    "contrast_noise": _case("check_contrast_increase_and_structure_sim", "noise.png", "scene_flat.png"),
    "saturation_more": _case(
        "check_saturation_increase_and_structure_sim", "scene_saturated.png", "scene.png"
    ),
    "saturation_same": _case("check_saturation_increase_and_structure_sim", "scene.png", "scene.png"),
    # sizes, positions
    "size_match": _case("check_image_size", "scene.png", None, rule={"width": 96, "height": 64}),
    "size_width_only": _case("check_image_size", "scene.png", None, rule={"width": 96}),
    "size_wrong": _case("check_image_size", "scene.png", None, rule={"width": 64, "height": 96}),
    "size_opaque_part": _case(
        "check_image_size",
        "opaque_part.png",
        None,
        rule={"width": 50, "height": 40, "ignore_transparent": True},
    ),
    "size_opaque_ignored": _case(
        "check_image_size", "opaque_part.png", None, rule={"width": 80, "height": 60}
    ),
    "size_all_transparent": _case(
        "check_image_size", "all_transparent.png", None, rule={"width": 0, "ignore_transparent": True}
    ),
    "size_missing": _case("check_image_size", None, None, rule={"width": 1}),
    "file_size_under": _case("check_image_file_size", "scene.png", None, rule={"max_size": 500000}),
    "file_size_over": _case("check_image_file_size", "scene.png", None, rule={"max_size": 100}),
    "triangle_middle": _case("check_triangle_position", "triangle_middle.png"),
    "triangle_corner": _case("check_triangle_position", "triangle_corner.png"),
    "triangle_grey": _case("check_triangle_position", "scene_grey.png"),
    "textbox_left": _case("check_textbox_on_leftside", "text_left.png"),
    "textbox_middle": _case("check_textbox_on_leftside", "text_middle.png"),
    "textbox_blank": _case("check_textbox_on_leftside", "blank.png"),
    # GIMP's settings
    "gimp_key": _case(
        "check_config_status", "gimprc", None, rule={"key": "default-threshold", "value": "30"}
    ),
    "gimp_value_wrong": _case(
        "check_config_status", "gimprc", None, rule={"key": "undo-levels", "value": "10"}
    ),
    "gimp_quoted": _case("check_config_status", "gimprc", None, rule={"key": "theme", "value": '"Dark"'}),
    "gimp_pair": _case(
        "check_config_status", "gimprc", None, rule={"key": ["color-management", "(mode"], "value": "display"}
    ),
    "gimp_nested_line": _case(
        "check_config_status", "gimprc", None, rule={"key": "show-menubar", "value": "no"}
    ),
    "gimp_blank_line": _case(
        "check_config_status", "gimprc_blank_line", None, rule={"key": "theme", "value": '"Light"'}
    ),
    "gimp_missing": _case("check_config_status", None, None, rule={"key": "a", "value": "b"}),
    # check_green_background: OSWorld reads pixel (x, y) at row x, column y of both pictures
    "gb_green": _case("check_green_background", "gb_green.png", "gb_white.png"),
    "gb_olive": _case("check_green_background", "gb_olive.png", "gb_white.png"),
    "gb_half_green": _case("check_green_background", "gb_half_green.png", "gb_white.png"),
    "gb_unchanged": _case("check_green_background", "gb_white.png", "gb_white.png"),
    "gb_object_recoloured": _case("check_green_background", "gb_object_red.png", "gb_white.png"),
    "gb_result_bigger": _case("check_green_background", "gb_green_big.png", "gb_white.png"),
    "gb_result_smaller": _case("check_green_background", "gb_green_small.png", "gb_white.png"),
    "gb_smaller_white_first": _case("check_green_background", "gb_small_white_corner.png", "gb_white.png"),
    "gb_rgba_result": _case("check_green_background", "gb_green_rgba.png", "gb_white.png"),
    "gb_transparent_expected": _case("check_green_background", "gb_white.png", "gb_transparent.png"),
    "gb_all_black_expected": _case("check_green_background", "gb_grey.png", "gb_black.png"),
    "gb_grey_expected": _case("check_green_background", "gb_green.png", "gb_grey.png"),
    "gb_grey_result": _case("check_green_background", "gb_grey.png", "gb_white.png"),
    "gb_palette_result": _case("check_green_background", "gb_palette.png", "gb_white.png"),
    "gb_wide": _case("check_green_background", "gb_green_wide.png", "gb_white_wide.png"),
    "gb_wide_spot_outside_square": _case(
        "check_green_background", "gb_wide_spot_right.png", "gb_white_wide.png"
    ),
    "gb_wide_spot_in_square": _case("check_green_background", "gb_wide_spot_left.png", "gb_white_wide.png"),
    "gb_tall": _case("check_green_background", "gb_green_tall.png", "gb_white_tall.png"),
    "gb_tall_spot_first_row": _case("check_green_background", "gb_tall_spot_top.png", "gb_white_tall.png"),
    "gb_tall_spot_lower": _case("check_green_background", "gb_tall_spot_low.png", "gb_white_tall.png"),
    "gb_missing": _case("check_green_background", None, "gb_white.png"),
    # VLC
    "playing_file": _case(
        "is_vlc_playing", "status_file.xml", None, rule={"type": "file_name", "file_name": "song.mp3"}
    ),
    "playing_title": _case(
        "is_vlc_playing", "status_title.xml", None, rule={"type": "file_name", "file_name": "song.mp3"}
    ),
    "playing_other_file": _case(
        "is_vlc_playing", "status_file.xml", None, rule={"type": "file_name", "file_name": "other.mp3"}
    ),
    "playing_paused": _case(
        "is_vlc_playing", "status_paused.xml", None, rule={"type": "file_name", "file_name": "song.mp3"}
    ),
    "playing_url": _case(
        "is_vlc_playing",
        "status_url.xml",
        None,
        rule={"type": "url", "url": "https://media.example.org/live/stream.m3u8"},
    ),
    "playing_url_name": _case(
        "is_vlc_playing",
        "status_stream.xml",
        None,
        rule={"type": "url", "url": "https://media.example.org/live/stream.m3u8"},
    ),
    "playing_url_codec": _case(
        "is_vlc_playing", "status_none.xml", None, rule={"type": "url", "url": "https://a.example/x.mp4"}
    ),
    "playing_url_host": _case(
        "is_vlc_playing",
        "status_url.xml",
        None,
        rule={"type": "url", "url": "https://media.example.org/live"},
    ),
    "playing_no_info": _case(
        "is_vlc_playing", "status_none.xml", None, rule={"type": "file_name", "file_name": "song.mp3"}
    ),
    "playing_bad_type": _case("is_vlc_playing", "status_file.xml", None, rule={"type": "title"}),
    "fullscreen_yes": _case(
        "is_vlc_fullscreen", {"width": 1920, "height": 1080}, {"width": 1920, "height": 1080}
    ),
    "fullscreen_no": _case(
        "is_vlc_fullscreen", {"width": 800, "height": 600}, {"width": 1920, "height": 1080}
    ),
    "fullscreen_none": _case("is_vlc_fullscreen", None, {"width": 1920, "height": 1080}),
    "recordings_set": _case(
        "is_vlc_recordings_folder", "vlcrc_set", None, rule={"recording_file_path": "/home/user/Desktop"}
    ),
    "recordings_commented": _case(
        "is_vlc_recordings_folder", "vlcrc_default", None, rule={"recording_file_path": "/home/user/Desktop"}
    ),
    "recordings_other": _case(
        "is_vlc_recordings_folder",
        "vlcrc_commented_last",
        None,
        rule={"recording_file_path": "/home/user/Desktop"},
    ),
    "bgcone_off": _case("check_qt_bgcone", "vlcrc_set", None, rule={"expected_qt_bgcone": 0}),
    "bgcone_default": _case("check_qt_bgcone", "vlcrc_default", None, rule={"expected_qt_bgcone": 1}),
    "bgcone_commented_last": _case(
        "check_qt_bgcone", "vlcrc_commented_last", None, rule={"expected_qt_bgcone": "0"}
    ),
    "max_volume": _case("check_qt_max_volume", "vlcrc_set", None, rule={"expected_qt_max_volume": 200}),
    "max_volume_default": _case(
        "check_qt_max_volume", "vlcrc_default", None, rule={"expected_qt_max_volume": 200}
    ),
    "minimal_view": _case("check_qt_minimal_view", "vlcrc_set", None, rule={"expected_qt_minimal_view": 1}),
    "minimal_view_default": _case(
        "check_qt_minimal_view", "vlcrc_default", None, rule={"expected_qt_minimal_view": "0"}
    ),
    "one_instance": _case(
        "check_one_instance_when_started_from_file",
        "vlcrc_set",
        None,
        rule={"expected_one_instance_when_started_from_file": 0},
    ),
    "one_instance_default": _case(
        "check_one_instance_when_started_from_file",
        "vlcrc_default",
        None,
        rule={"expected_one_instance_when_started_from_file": 0},
    ),
    "slider_blackish": _case("check_qt_slider_colours", "vlcrc_set", None, rule={"type": "blackish"}),
    "slider_bright": _case("check_qt_slider_colours", "vlcrc_bright", None, rule={"type": "blackish"}),
    "slider_match": _case(
        "check_qt_slider_colours",
        "vlcrc_set",
        None,
        rule={"type": "match", "expected_qt_slider_colours": "10;20;30;40;50;60;70;80;90;1;2;3"},
    ),
    "slider_default_match": _case(
        "check_qt_slider_colours",
        "vlcrc_default",
        None,
        rule={"type": "match", "expected_qt_slider_colours": "153;210;153;20;210;20;255;199;15;245;39;29"},
    ),
    "play_pause_set": _case(
        "check_global_key_play_pause", "vlcrc_set", None, rule={"expected_global_key_play_pause": 1}
    ),
    "play_pause_empty": _case(
        "check_global_key_play_pause", "vlcrc_bright", None, rule={"expected_global_key_play_pause": 0}
    ),
    "play_pause_commented": _case(
        "check_global_key_play_pause", "vlcrc_default", None, rule={"expected_global_key_play_pause": "1"}
    ),
}

_ONE_INPUT = {"check_triangle_position", "check_textbox_on_leftside"}
_RULE_METRICS = {
    "check_image_size",
    "check_image_file_size",
    "check_config_status",
    "is_vlc_playing",
    "is_vlc_recordings_folder",
    "check_qt_bgcone",
    "check_qt_max_volume",
    "check_qt_minimal_view",
    "check_one_instance_when_started_from_file",
    "check_qt_slider_colours",
    "check_global_key_play_pause",
}


def build(folder: Path) -> dict[str, Case]:
    """Write every corpus file into `folder`; return the cases with file names made absolute paths."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, draw in _PICTURES.items():
        draw().save(folder / name)
    for name, text in _TEXTS.items():
        (folder / name).write_text(text)
    return {case_id: with_paths(case, folder) for case_id, case in CASES.items()}


def call(metrics: dict[str, Callable[..., float]], case: Case) -> float:
    """Run one resolved case through `metrics` (a name -> function table)."""
    function = metrics[case["func"]]
    if case["func"] in _ONE_INPUT:
        return function(case["result"])
    if case["func"] in _RULE_METRICS:
        return function(case["result"], case["options"]["rule"])
    return call_case(metrics, case)
