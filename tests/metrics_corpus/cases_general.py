"""The differential corpus of the general metrics: JSON/YAML/CSV/SQLite/accessibility-tree checks,
content checks, whole-file comparisons and task test suites.

Runs under our environment and under OSWorld's (`osworld_scores.py cases_general ...`), so it
needs only the standard library, openpyxl and python-docx. `build(folder)` writes every file and
returns the cases; a `File(name)` in a case's `result` or `expected` (also inside a list) becomes
that file's path in the folder, any other value is passed as it is.
"""

from __future__ import annotations

import datetime
import json
import sqlite3
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openpyxl
from docx import Document

try:
    from .corpus_calls import Case, call_case
except ImportError:  # imported by bare name, this folder on sys.path (osworld_scores.py)
    from corpus_calls import Case, call_case

call = call_case
"""A case run through a metric table: the result, its expected value when it has one, the options."""


@dataclass(frozen=True)
class File:
    """A corpus file, by its name in the built folder."""

    name: str


_TEXTS: dict[str, str | bytes] = {}
"""Files written verbatim (text as UTF-8)."""
_BUILDERS: dict[str, Callable[[Path], None]] = {}


def _builder(name: str) -> Callable[[Callable[[Path], None]], Callable[[Path], None]]:
    def register(function: Callable[[Path], None]) -> Callable[[Path], None]:
        _BUILDERS[name] = function
        return function

    return register


# -- JSON and YAML -------------------------------------------------------------------------
_TEXTS.update(
    {
        "manifest.json": json.dumps(
            {
                "name": "happy-extension",
                "version": "0.0.1",
                "background": {"scripts": ["background_script.js"]},
                "browser_action": {"default_icon": {"64": "icons/icon.png"}, "default_title": "Happy"},
                "mode": "smart folders",
                "ids": [1, 2, 3],
            }
        ),
        "null.json": "null",
        "broken.json": '{"name": "happy-extension",',
        "config.yml": "name: Test Account\nauthor:\n  name: Test Account\n  email: Test@gmail.com\n",
        "empty.yml": "# nothing here\n",
        "broken.yml": "name: [unclosed\n",
        "settings.json": json.dumps(
            {
                "editor.wordWrapColumn": 50,
                "files.autoSave": "afterDelay",
                "files.exclude": {"**/__pycache__": True},
                "debug.focusEditorOnBreak": False,
            },
            indent=4,
        ),
        "settings_comments.jsonc": '// user settings\n{"editor.wordWrapColumn": 50}\n',
        "settings_list.json": '["editor.wordWrapColumn"]',
        "keybindings.json": json.dumps(
            [{"key": "ctrl+j", "command": "workbench.action.focusActiveEditorGroup", "when": "terminalFocus"}]
        ),
        "keybindings_comment.json": "// Place your key bindings in this file\n"
        + json.dumps([{"key": "ctrl+f", "command": "-list.find", "when": "listFocus"}]),
        "keybindings_object.json": json.dumps({"key": "ctrl+j"}),
        "keybindings_two_comments.json": "// one\n// two\n[]",
    }
)

# -- CSV, lists and plain text -------------------------------------------------------------
_TEXTS.update(
    {
        "accounts.csv": 'url,user,password\nimap://outlook.office365.com,anon@outlook.com,pa"ss\n'
        "smtp://smtp.office365.com,anon@outlook.com,secret\n",
        "accounts_quoted.csv": 'url,user,password\n"imap://outlook.office365.com","anon@outlook.com","a,b"\n',
        "header_only.csv": "url,user,password\n",
        "wmctrl.out": "0x01 0 org.gnome.Nautilus.Org.gnome.Nautilus host OSWorld\n"
        "0x02 0 gnome-terminal-server.Gnome-terminal host ~/Documents/Projects/OSWorld\n",
        "empty.out": "",
        "apt.out": "openjdk-17-jre/stable 17.0.9 amd64\r\nlibreoffice/stable 7.4\r\n",
        "latin1.out": b"caf\xe9\n",
        "report.txt": "CPU %user %nice %system %iowait %steal %idle\n"
        "10:00:01 all 1.0 0.0\n10:00:02 all 2.0 0.0\n23:59:60 all 3.0\nno time here\n25:00:00 bad hour\n",
        "text_gold.txt": "Hello World\nsecond line\n",
        "text_same.txt": "Hello World\nsecond line\n",
        "text_crlf.txt": "Hello World\r\nsecond line\r\n",
        "text_blanks.txt": "  Hello\tWorld\n\n second   line  ",
        "text_upper.txt": "HELLO WORLD\nSECOND LINE\n",
        "text_upper_blanks.txt": "HELLO   WORLD SECOND\tLINE",
        "text_other.txt": "Goodbye\n",
        "project.txt": "project",
        "project_newline.txt": "project\n",
        "theme.json": '{"workbench.colorTheme": "Visual Studio Dark"}\n',
        "binary.txt": b"\xff\xfe\x00bad",
    }
)

# -- Python sources and answers ------------------------------------------------------------
_TEXTS.update(
    {
        "gold.py": "import os\n\ndef main():\n    print(os.getcwd())\n",
        "same_meta.py": "#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\nimport os\n\n\n"
        "def main():\n\tprint(os.getcwd())   \n",
        "late_meta.py": "import os\n#!/usr/bin/env python3\ndef main():\n    print(os.getcwd())\n",
        "markdown.py": "```python\nimport os\n\ndef main():\n    print(os.getcwd())\n```\n",
        "four_meta.py": "#!/bin/python\n# coding: utf-8\n# coding=utf-8\n# coding: latin-1\n"
        "import os\ndef main():\n    print(os.getcwd())\n",
        "gold_meta.py": "# coding: utf-8\nimport os\ndef main():\n    print(os.getcwd())\n",
        "answer_gold.txt": "3.14159\n",
        "answer_sentence.txt": "The answer is 3.14159 exactly.",
        "answer_close.txt": " 3.14160 ",
        "answer_far.txt": "3.2",
        "answer_word_gold.txt": "Paris\n",
        "answer_word.txt": "Paris",
        "answer_word_other.txt": "Lyon",
        "answer_inf.txt": "inf",
    }
)


def _pdf(text: str) -> bytes:
    """A one-page PDF showing `text` in Helvetica."""
    stream = f"BT /F1 24 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


_ESSAY = "Recruitment and retention of health professionals across Europe"
_ZIPS: dict[str, dict[str, bytes]] = {
    "zip_gold.zip": {"essay.docx": b"DOCX-BYTES", "notes/readme.txt": b"read me"},
    "zip_same.zip": {"notes/readme.txt": b"read me", "essay.docx": b"DOCX-BYTES"},
    "zip_changed.zip": {"essay.docx": b"DOCX-BYTES", "notes/readme.txt": b"read me!"},
    "zip_extra.zip": {"essay.docx": b"DOCX-BYTES", "notes/readme.txt": b"read me", "x.txt": b""},
    "zip_pdf_gold.zip": {"essay.pdf": _pdf(_ESSAY)},
    "zip_pdf_same_text.zip": {"essay.pdf": _pdf(_ESSAY).replace(b"%PDF-1.4", b"%PDF-1.5")},
    "zip_pdf_near.zip": {"essay.pdf": _pdf(_ESSAY + ".")},
    "zip_pdf_other.zip": {"essay.pdf": _pdf("Something else entirely")},
    "zip_upper_pdf.zip": {"ESSAY.PDF": _pdf(_ESSAY)},
    "zip_upper_pdf_gold.zip": {"ESSAY.PDF": _pdf(_ESSAY + "!")},
}
_TEXTS["not_a_zip.zip"] = "plain text"


# -- task test suites (each in a folder of its own, with the files it imports) -------------
_SUITES: dict[str, dict[str, str]] = {
    "suite_pass": {
        "test_suite.py": "from snake_pass import Snake\n\ndef test():\n    return Snake().length == 3\n",
        "snake_pass.py": "class Snake:\n    length = 3\n",
    },
    "suite_fail": {
        "test_suite.py": "from snake_fail import Snake\n\ndef test():\n    return Snake().length == 3\n",
        "snake_fail.py": "class Snake:\n    length = 2\n",
    },
    "suite_half": {"test_suite.py": "def test():\n    return 0.5\n"},
    "suite_big": {"test_suite.py": "def test():\n    return 7\n"},
    "suite_negative": {"test_suite.py": "def test():\n    return -2\n"},
    "suite_text": {"test_suite.py": "def test():\n    return 'yes'\n"},
    "suite_empty_list": {"test_suite.py": "def test():\n    return []\n"},
    "suite_raises": {"test_suite.py": "def test():\n    raise RuntimeError('boom')\n"},
    "suite_syntax": {"test_suite.py": "def test(:\n    return True\n"},
    "suite_import_error": {
        "test_suite.py": "import module_that_is_not_there\n\ndef test():\n    return True\n"
    },
    "suite_no_function": {"test_suite.py": "def check():\n    return True\n"},
    "suite_not_callable": {"test_suite.py": "test = True\n"},
    "suite_named": {
        "test_suite.py": "def test():\n    return False\n\ndef test_tetris():\n    return True\n"
    },
    "suite_reads_cwd": {
        "test_suite.py": "from pathlib import Path\n\ndef test():\n"
        "    return Path('settings_cwd.txt').read_text() == 'ok'\n",
        "settings_cwd.txt": "ok",
    },
}


# -- workbooks, documents and databases ----------------------------------------------------
_CITIES = ["Scottsdale", "Atlanta", "Lake Tahoe", "Banff", "Beijing", ["Montreal", "Montréal"], "San Diego"]
_CITIES += ["Lille", ["Montreal", "Montréal"], "San Juan", ["New York", "NYC"], "Barcelona", "Toulon"]
_CITIES += ["Sydney", "Long Beach", "Vancouver", "Stockholm", ["Montreal", "Montréal"], "New Orleans"]
_CITIES += ["Long Beach", "Vancouver"]
_CITY_CELLS = [c if isinstance(c, str) else c[-1] for c in _CITIES]


def _city_book(path: Path, cells: list[Any]) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["Year", "Conference", "City"])
    for index, city in enumerate(cells):
        sheet.append([2000 + index, "ICML", city])
    book.save(path)


for _name, _cells in {
    "cities.xlsx": [f"{city}, Country" for city in _CITY_CELLS],
    "cities_wrong.xlsx": _CITY_CELLS[:3] + ["Paris"] + _CITY_CELLS[4:],
    "cities_short.xlsx": _CITY_CELLS[:20],
    "cities_number.xlsx": _CITY_CELLS[:5] + [42] + _CITY_CELLS[6:],
    "cities_nyc.xlsx": _CITY_CELLS[:10] + ["Downtown NYC"] + _CITY_CELLS[11:],
}.items():
    _builder(_name)(lambda path, cells=_cells: _city_book(path, cells))


def _docx(path: Path, paragraphs: list[str]) -> None:
    document = Document()
    for text in paragraphs:
        document.add_paragraph(text)
    document.save(path)


_PLACES = ["深圳市福田区益田路5055号", "深圳市福田区正义街1号", "福田区莲科路18号"]
for _name, _paragraphs in {
    "places_exact.docx": _PLACES,
    "places_close.docx": ["深圳市福田区益田路5055", "", "深圳市福田区正义街1号  福田区莲科路"],
    "places_two.docx": _PLACES[:2],
    "places_four.docx": [*_PLACES, "extra"],
}.items():
    _builder(_name)(lambda path, paragraphs=_paragraphs: _docx(path, paragraphs))


@_builder("messages.sqlite")
def _messages(path: Path) -> None:
    connection = sqlite3.connect(path)
    connection.executescript(
        "create table messages (id integer, folderID integer);"
        "create table messageAttributes (attributeID integer, value integer, messageID integer);"
        "insert into messages values (1, 13), (2, 13), (3, 7);"
        "insert into messageAttributes values (58, 1, 1), (58, 0, 2), (58, 1, 3);"
    )
    connection.commit()
    connection.close()


def _same_day_offset(minutes: int) -> datetime.datetime:
    """A clock time `abs(minutes)` from now, on today's date: before now when `minutes` is negative and
    that stays today, else after (the metric takes both as times of one day: across midnight 00:10 is
    23 h 50 min from 23:40, and a case run at 00:10 would not be the case it names)."""
    now = datetime.datetime.now()
    earlier, later = (
        now - datetime.timedelta(minutes=abs(minutes)),
        now + datetime.timedelta(minutes=abs(minutes)),
    )
    return earlier if minutes < 0 and earlier.date() == now.date() or later.date() != now.date() else later


def _speedtest(path: Path, minutes_from_now: int | None, field: str | None = None) -> None:
    stamp = _same_day_offset(minutes_from_now or 0)
    value = field if field is not None else stamp.strftime("%m/%d/%Y %H:%M")
    path.write_text(f"Test,Date,Download\nsp1,{value},93.1\n", encoding="utf-8")


for _name, _args in {
    "speed_now.csv": (0, None),
    "speed_past.csv": (-30, None),
    "speed_old.csv": (-180, None),
    "speed_bad.csv": (0, "yesterday"),
}.items():
    _builder(_name)(lambda path, args=_args: _speedtest(path, *args))
_TEXTS["speed_one_line.csv"] = "Test,Date,Download\n"


# -- accessibility trees (values, not files) -----------------------------------------------
_UBUNTU = "https://accessibility.ubuntu.example.org/ns"
_TREE = f"""<desktop-frame xmlns:attr="{_UBUNTU}/attributes" xmlns:st="{_UBUNTU}/state">
 <application name="Thunderbird">
  <page-tab-list attr:id="tabmail-tabs">
   <page-tab name="About Profiles" st:selected="true">About Profiles</page-tab>
   <page-tab name="Inbox">Inbox - Local Folders</page-tab>
   <page-tab name="Blank"></page-tab>
  </page-tab-list>
 </application>
</desktop-frame>"""
_WINDOWS = "https://accessibility.windows.example.org/ns"
_WINDOWS_TREE = f'<root xmlns:class="{_WINDOWS}/class"><button class:name="Btn">OK</button></root>'
_TAB = 'application[name=Thunderbird] page-tab-list[attr|id="tabmail-tabs"]>page-tab'


def _a11y(rules: list[dict[str, Any]], tree: str = _TREE, **options: Any) -> Case:
    return _case("check_accessibility_tree", tree, rules, **options)


def _case(func: str, result: Any, expected: Any, **options: Any) -> Case:
    return {"func": func, "result": result, "expected": expected, "options": options}


def _rules(func: str, result: Any, **rules: Any) -> Case:
    return _case(func, result, rules)


_MANIFEST_EXPECT = [
    {"key": ["name"], "method": "eq", "ref": "happy-extension"},
    {"key": ["background", "scripts"], "method": "eq", "ref": ["background_script.js"]},
    {"key": ["browser_action", "default_icon"], "method": "eq", "ref": {"64": "icons/icon.png"}},
]
_SQL = (
    "select sum(1) > 0 from messageAttributes where attributeID = 58 and value = 1 "
    "and messageID in (select id from messages where folderID = {folder});"
)
_SUITE_FILES = {
    name: [File(f"{name}/{f}") for f in files if f != "test_suite.py"] for name, files in _SUITES.items()
}


def _suite(name: str, **options: Any) -> Case:
    return _case(
        "check_python_file_by_test_suite", _SUITE_FILES[name], File(f"{name}/test_suite.py"), **options
    )


CASES: dict[str, Case] = {
    # check_json
    "json-expect-pass": _rules("check_json", File("manifest.json"), expect=_MANIFEST_EXPECT),
    "json-expect-fail": _rules(
        "check_json", File("manifest.json"), expect=[{"key": ["version"], "method": "eq", "ref": "1.0"}]
    ),
    "json-missing-key": _rules(
        "check_json", File("manifest.json"), expect=[{"key": ["nope"], "method": "eq", "ref": None}]
    ),
    "json-index-into-text": _rules(
        "check_json", File("manifest.json"), expect=[{"key": ["name", "x"], "method": "eq", "ref": 1}]
    ),
    "json-list-index": _rules(
        "check_json", File("manifest.json"), expect=[{"key": ["ids", 1], "method": "eq", "ref": 2}]
    ),
    "json-list-index-out": _rules(
        "check_json", File("manifest.json"), expect=[{"key": ["ids", 9], "method": "eq", "ref": 2}]
    ),
    "json-regex": _rules(
        "check_json", File("manifest.json"), expect=[{"key": ["mode"], "method": "re", "ref": r"\bsmart\b"}]
    ),
    "json-regex-on-list": _rules(
        "check_json", File("manifest.json"), expect=[{"key": ["ids"], "method": "re", "ref": "1"}]
    ),
    "json-unexpect-absent": _rules(
        "check_json", File("manifest.json"), unexpect=[{"key": ["nope"], "method": "eq", "ref": "x"}]
    ),
    "json-unexpect-absent-none": _rules(
        "check_json", File("manifest.json"), unexpect=[{"key": ["nope"], "method": "eq", "ref": None}]
    ),
    "json-unexpect-present": _rules(
        "check_json",
        File("manifest.json"),
        unexpect=[{"key": ["name"], "method": "eq", "ref": "happy-extension"}],
    ),
    "json-unexpect-regex-none": _rules(
        "check_json", File("manifest.json"), unexpect=[{"key": ["nope"], "method": "re", "ref": "x"}]
    ),
    "json-approx": _rules(
        "check_json", File("manifest.json"), expect=[{"key": ["ids", 0], "method": "approx:0.5", "ref": 1.2}]
    ),
    "json-no-rules": _rules("check_json", File("manifest.json")),
    "json-null": _rules("check_json", File("null.json"), expect=[{"key": ["a"], "method": "eq", "ref": 1}]),
    "json-broken": _rules("check_json", File("broken.json"), expect=[]),
    "json-missing-file": _rules("check_json", File("absent.json"), expect=[]),
    "json-none": _rules("check_json", None, expect=[]),
    "json-yaml": _case(
        "check_json",
        File("config.yml"),
        {"expect": [{"key": ["author", "email"], "method": "eq", "ref": "Test@gmail.com"}]},
        is_yaml=True,
    ),
    "json-yaml-fail": _case(
        "check_json",
        File("config.yml"),
        {"expect": [{"key": ["name"], "method": "eq", "ref": "Other"}]},
        is_yaml=True,
    ),
    "json-yaml-empty": _case("check_json", File("empty.yml"), {"expect": []}, is_yaml=True),
    "json-yaml-broken": _case("check_json", File("broken.yml"), {"expect": []}, is_yaml=True),
    "json-yaml-as-json": _case("check_json", File("config.yml"), {"expect": []}),
    # check_direct_json_object
    "direct-equal": _rules(
        "check_direct_json_object", {"q": "coffee", "tbs": "mr:1"}, expected={"q": "coffee"}
    ),
    "direct-differs": _rules("check_direct_json_object", {"q": "tea"}, expected={"q": "coffee"}),
    "direct-missing-key": _rules("check_direct_json_object", {}, expected={"q": "coffee"}),
    "direct-missing-key-none": _rules("check_direct_json_object", {}, expected={"q": None}),
    "direct-text": _rules("check_direct_json_object", " {'q': 'coffee'} \n", expected={"q": "coffee"}),
    "direct-text-broken": _rules("check_direct_json_object", "not json", expected={"q": "coffee"}),
    "direct-text-list": _rules("check_direct_json_object", "[1, 2]", expected={"q": "coffee"}),
    "direct-none": _rules("check_direct_json_object", None, expected={"q": "coffee"}),
    "direct-text-null": _rules("check_direct_json_object", "null", expected={}),
    "direct-empty-expected": _rules("check_direct_json_object", {"q": 1}, expected={}),
    "direct-no-expected": _rules("check_direct_json_object", {"q": 1}),
    "direct-failed-marker": _rules(
        "check_direct_json_object", {"q": "__EVALUATION_FAILED__"}, expected={"q": "__EVALUATION_FAILED__"}
    ),
    "direct-expected-list": _case("check_direct_json_object", {"q": 1}, {"expected": ["q"]}),
    "direct-ignore-list-order": _rules(
        "check_direct_json_object", {"a": [2, 1]}, expected={"a": [1, 2], "ignore_list_order": True}
    ),
    "direct-in-result-list": _rules(
        "check_direct_json_object",
        {"h1": ["Everest", "K2"], "h2": "Hua"},
        expected={"h1": ["Himalayas", "Everest"], "h2": ["Hua", "hua"]},
        expect_in_result=True,
    ),
    "direct-in-result-list-miss": _rules(
        "check_direct_json_object", {"h1": ["K2"]}, expected={"h1": ["Everest"]}, expect_in_result=True
    ),
    "direct-in-result-list-number": _rules(
        "check_direct_json_object", {"h1": 5}, expected={"h1": [5]}, expect_in_result=True
    ),
    "direct-in-result-text": _rules(
        "check_direct_json_object",
        {"rank": "Sort: Price (low)"},
        expected={"rank": "Price"},
        expect_in_result=True,
    ),
    "direct-in-result-text-missing": _rules(
        "check_direct_json_object", {}, expected={"rank": "Price"}, expect_in_result=True
    ),
    "direct-in-result-number": _rules(
        "check_direct_json_object", {"n": 1}, expected={"n": 1}, expect_in_result=True
    ),
    # check_json_settings
    "settings-pass": _rules(
        "check_json_settings", File("settings.json"), expected={"editor.wordWrapColumn": 50}
    ),
    "settings-nested": _rules(
        "check_json_settings", File("settings.json"), expected={"files.exclude": {"**/__pycache__": True}}
    ),
    "settings-false": _rules(
        "check_json_settings", File("settings.json"), expected={"debug.focusEditorOnBreak": False}
    ),
    "settings-fail": _rules(
        "check_json_settings", File("settings.json"), expected={"editor.wordWrapColumn": 80}
    ),
    "settings-absent-key": _rules("check_json_settings", File("settings.json"), expected={"x": None}),
    "settings-empty-expected": _rules("check_json_settings", File("settings.json"), expected={}),
    "settings-comments": _rules("check_json_settings", File("settings_comments.jsonc"), expected={}),
    "settings-list": _rules("check_json_settings", File("settings_list.json"), expected={"x": 1}),
    "settings-missing-file": _rules("check_json_settings", File("absent.json"), expected={}),
    "settings-none": _rules("check_json_settings", None, expected={}),
    # check_json_keybindings
    "keys-pass": _rules(
        "check_json_keybindings",
        File("keybindings.json"),
        expected={
            "key": "ctrl+j",
            "command": "workbench.action.focusActiveEditorGroup",
            "when": "terminalFocus",
        },
    ),
    "keys-fail": _rules("check_json_keybindings", File("keybindings.json"), expected={"key": "ctrl+j"}),
    "keys-comment-line": _rules(
        "check_json_keybindings",
        File("keybindings_comment.json"),
        expected={"key": "ctrl+f", "command": "-list.find", "when": "listFocus"},
    ),
    "keys-two-comments": _rules("check_json_keybindings", File("keybindings_two_comments.json"), expected={}),
    "keys-object": _rules(
        "check_json_keybindings", File("keybindings_object.json"), expected={"key": "ctrl+j"}
    ),
    "keys-missing-file": _rules("check_json_keybindings", File("absent.json"), expected={}),
    "keys-none": _rules("check_json_keybindings", None, expected={}),
    # check_csv
    "csv-expect": _rules(
        "check_csv",
        File("accounts.csv"),
        expect=[{"url": "imap://outlook.office365.com", "user": "anon@outlook.com"}, {"password": "secret"}],
    ),
    "csv-expect-quote-char": _rules("check_csv", File("accounts.csv"), expect=[{"password": 'pa"ss'}]),
    "csv-expect-fail": _rules("check_csv", File("accounts.csv"), expect=[{"url": "pop://x"}]),
    "csv-expect-unknown-column": _rules("check_csv", File("accounts.csv"), expect=[{"port": "993"}]),
    "csv-unexpect-hit": _rules(
        "check_csv", File("accounts.csv"), unexpect=[{"url": "smtp://smtp.office365.com"}]
    ),
    "csv-unexpect-clear": _rules("check_csv", File("accounts.csv"), unexpect=[{"url": "pop://x"}]),
    "csv-quoted": _rules("check_csv", File("accounts_quoted.csv"), expect=[{"password": "a,b"}]),
    "csv-header-only": _rules("check_csv", File("header_only.csv"), expect=[{"url": "x"}]),
    "csv-header-only-unexpect": _rules("check_csv", File("header_only.csv"), unexpect=[{"url": "x"}]),
    "csv-missing-file": _rules("check_csv", File("absent.csv"), expect=[]),
    "csv-none": _rules("check_csv", None, expect=[]),
    # run_sqlite3
    "sqlite-true": _rules("run_sqlite3", File("messages.sqlite"), sql=_SQL.format(folder=13)),
    "sqlite-false": _rules(
        "run_sqlite3", File("messages.sqlite"), sql=_SQL.format(folder=99).replace("> 0", "")
    ),
    "sqlite-null": _rules(
        "run_sqlite3", File("messages.sqlite"), sql="select sum(1) from messages where id > 9"
    ),
    "sqlite-number": _rules(
        "run_sqlite3", File("messages.sqlite"), sql="select count(*) / 2.0 from messages"
    ),
    "sqlite-no-row": _rules(
        "run_sqlite3", File("messages.sqlite"), sql="select id from messages where id > 9"
    ),
    "sqlite-bad-sql": _rules("run_sqlite3", File("messages.sqlite"), sql="select * from nowhere"),
    "sqlite-text": _rules("run_sqlite3", File("messages.sqlite"), sql="select 'abc'"),
    "sqlite-not-a-db": _rules("run_sqlite3", File("text_gold.txt"), sql="select 1"),
    "sqlite-none": _rules("run_sqlite3", None, sql="select 1"),
    # check_accessibility_tree
    "a11y-selector": _a11y([{"selectors": [f'{_TAB}[name="About Profiles"]']}]),
    "a11y-selector-missing": _a11y([{"selectors": [f'{_TAB}[name="Settings"]']}]),
    "a11y-selectors-joined": _a11y([{"selectors": [f'{_TAB}[name="Settings"]', f'{_TAB}[name="Inbox"]']}]),
    "a11y-two-rules": _a11y(
        [{"selectors": [f'{_TAB}[name="Inbox"]']}, {"selectors": [f'{_TAB}[name="Nope"]']}]
    ),
    "a11y-state": _a11y(
        [{"selectors": ['page-tab[st|selected="true"]'], "text": "About Profiles", "exact": True}]
    ),
    "a11y-xpath": _a11y([{"xpath": '//page-tab[@name="Inbox"]'}]),
    "a11y-xpath-wins": _a11y([{"xpath": '//page-tab[@name="Inbox"]', "selectors": ["nothing-here"]}]),
    "a11y-exact-text": _a11y(
        [{"xpath": '//page-tab[@name="Inbox"]', "text": "Inbox - Local Folders", "exact": True}]
    ),
    "a11y-exact-text-fail": _a11y([{"xpath": '//page-tab[@name="Inbox"]', "text": "Inbox", "exact": True}]),
    "a11y-fuzzy-text": _a11y(
        [{"xpath": '//page-tab[@name="Inbox"]', "text": "Inbox - Local", "exact": False}]
    ),
    "a11y-fuzzy-best-element": _a11y([{"xpath": "//page-tab", "text": "Inbox", "exact": False}]),
    "a11y-fuzzy-product": _a11y(
        [
            {"xpath": '//page-tab[@name="Inbox"]', "text": "Inbox - Local", "exact": False},
            {"xpath": '//page-tab[@name="About Profiles"]', "text": "About", "exact": False},
        ]
    ),
    "a11y-empty-text": _a11y([{"xpath": '//page-tab[@name="Blank"]', "text": "", "exact": True}]),
    "a11y-empty-text-fuzzy": _a11y([{"xpath": '//page-tab[@name="Blank"]', "text": "", "exact": False}]),
    "a11y-text-without-exact": _a11y([{"xpath": '//page-tab[@name="Inbox"]', "text": "Inbox"}]),
    "a11y-no-locator": _a11y([{"text": "Inbox", "exact": True}]),
    "a11y-no-rules": _a11y([]),
    "a11y-windows": _a11y(
        [{"selectors": ["button[class|name=Btn]"], "text": "OK", "exact": True}],
        _WINDOWS_TREE,
        osname="windows",
    ),
    "a11y-windows-as-ubuntu": _a11y([{"selectors": ["button[class|name=Btn]"]}], _WINDOWS_TREE),
    "a11y-unknown-os": _a11y([{"xpath": "//button"}], _WINDOWS_TREE, osname="plan9"),
    "a11y-broken-xml": _a11y([{"xpath": "//x"}], "<root><unclosed></root>"),
    # check_list
    "list-expect": _rules(
        "check_list",
        File("wmctrl.out"),
        expect=[
            r"\borg\.gnome\.Nautilus\.Org\.gnome\.Nautilus\b.*\bOSWorld\b",
            r"gnome-terminal-server\.Gnome-terminal\b.*~/Documents/Projects/OSWorld\b",
        ],
    ),
    "list-expect-fail": _rules("check_list", File("wmctrl.out"), expect=["Nautilus", "firefox"]),
    "list-unexpect-empty-file": _rules("check_list", File("empty.out"), unexpect=[".+"]),
    "list-unexpect-hit": _rules("check_list", File("wmctrl.out"), unexpect=[".+"]),
    "list-expect-empty-file": _rules("check_list", File("empty.out"), expect=["x"]),
    "list-crlf": _rules("check_list", File("apt.out"), expect=[r"openjdk-\d+-(jre|jdk)", r"7\.4$"]),
    "list-end-anchor": _rules("check_list", File("wmctrl.out"), expect=[r"OSWorld$"]),
    "list-bad-regex": _rules("check_list", File("wmctrl.out"), expect=["("]),
    "list-not-utf8": _rules("check_list", File("latin1.out"), expect=["caf"]),
    "list-missing-file": _rules("check_list", File("absent.out"), expect=[]),
    "list-none": _rules("check_list", None, expect=[]),
    # is_in_list
    "in-list-item": _rules(
        "is_in_list",
        ["/home/user/a", "/home/user/Desktop/helloExtension"],
        expected="/home/user/Desktop/helloExtension",
    ),
    "in-list-no-item": _rules(
        "is_in_list", ["/home/user/Desktop/helloExtension/x"], expected="/home/user/Desktop/helloExtension"
    ),
    "in-list-text": _rules(
        "is_in_list", "# packages in environment at /opt/conda:", expected="packages in environment at"
    ),
    "in-list-text-miss": _rules(
        "is_in_list", "conda: command not found", expected="packages in environment at"
    ),
    "in-list-none": _rules("is_in_list", None, expected="x"),
    # file_contains
    "contains-all": _rules("file_contains", File("report.txt"), expected=["CPU", "%user", "%idle"]),
    "contains-one-missing": _rules("file_contains", File("report.txt"), expected=["CPU", "%guest"]),
    "contains-empty": _rules("file_contains", File("report.txt"), expected=[]),
    "contains-missing-file": _rules("file_contains", File("absent.txt"), expected=["CPU"]),
    "contains-not-utf8": _rules("file_contains", File("binary.txt"), expected=["bad"]),
    "contains-no-expected": _rules("file_contains", File("report.txt")),
    "contains-none": _rules("file_contains", None, expected=["CPU"]),
    # check_line_number
    "lines-pass": _rules("check_line_number", File("report.txt"), expected="3"),
    "lines-int": _rules("check_line_number", File("report.txt"), expected=3),
    "lines-fail": _rules("check_line_number", File("report.txt"), expected="31"),
    "lines-not-a-number": _rules("check_line_number", File("report.txt"), expected="many"),
    "lines-missing-file": _rules("check_line_number", File("absent.txt"), expected="0"),
    "lines-none": _rules("check_line_number", None, expected="0"),
    # literal_match
    "literal-str": _case("literal_match", "Alice", "Alice"),
    "literal-str-case": _case("literal_match", "alice", "Alice"),
    "literal-str-ignore-case": _case("literal_match", "alice", "Alice", ignore_case=True),
    "literal-number-text": _case("literal_match", 42, "42"),
    "literal-list-as-str": _case("literal_match", ["Alice", "1"], ["Alice", "1"]),
    "literal-list-as-str-types": _case("literal_match", ["Alice", "1"], ["Alice", 1]),
    "literal-list": _case("literal_match", ["Alice", "1"], ["Alice", 1], type="list"),
    "literal-list-case": _case("literal_match", ["ALICE"], ["alice"], type="list", ignore_case=True),
    "literal-list-length": _case("literal_match", ["Alice"], ["Alice", 1], type="list"),
    "literal-tuple": _case("literal_match", ("a", "b"), ["a", "b"], type="list"),
    "literal-list-not-list": _case("literal_match", "ab", ["a", "b"], type="list"),
    "literal-unknown-type": _case("literal_match", 1, 1, type="dict"),
    # is_extension_installed
    "ext-contain": _rules("is_extension_installed", "mattn.lisp\n", type="contain", expected="mattn.lisp"),
    "ext-contain-missing": _rules("is_extension_installed", "", type="contain", expected="mattn.lisp"),
    "ext-not-contain": _rules(
        "is_extension_installed", "ms-python.python\n", type="not_contain", expected="mattn.lisp"
    ),
    "ext-not-contain-hit": _rules(
        "is_extension_installed", "mattn.lisp\n", type="not_contain", expected="mattn.lisp"
    ),
    "ext-unknown-type": _rules("is_extension_installed", "x", type="equal", expected="x"),
    "ext-none": _rules("is_extension_installed", None, type="contain", expected="x"),
    # fuzzy_place_math
    "places-exact": _rules("fuzzy_place_math", File("places_exact.docx"), expected=_PLACES),
    "places-close": _rules("fuzzy_place_math", File("places_close.docx"), expected=_PLACES),
    "places-two": _rules("fuzzy_place_math", File("places_two.docx"), expected=_PLACES),
    "places-four": _rules("fuzzy_place_math", File("places_four.docx"), expected=_PLACES),
    "places-no-answers": _rules("fuzzy_place_math", File("places_exact.docx"), expected=[]),
    "places-missing-file": _rules("fuzzy_place_math", File("absent.docx"), expected=_PLACES),
    "places-none": _rules("fuzzy_place_math", None, expected=_PLACES),
    # compare_conference_city_in_order
    "cities-pass": _rules("compare_conference_city_in_order", File("cities.xlsx"), expected=_CITIES),
    "cities-wrong": _rules("compare_conference_city_in_order", File("cities_wrong.xlsx"), expected=_CITIES),
    "cities-short-sheet": _rules(
        "compare_conference_city_in_order", File("cities_short.xlsx"), expected=_CITIES
    ),
    "cities-short-expected": _rules(
        "compare_conference_city_in_order", File("cities.xlsx"), expected=_CITIES[:20]
    ),
    "cities-number": _rules("compare_conference_city_in_order", File("cities_number.xlsx"), expected=_CITIES),
    "cities-alternative": _rules(
        "compare_conference_city_in_order", File("cities_nyc.xlsx"), expected=_CITIES
    ),
    "cities-bad-entry": _rules(
        "compare_conference_city_in_order", File("cities.xlsx"), expected=[1, *_CITIES[1:]]
    ),
    "cities-missing-file": _rules("compare_conference_city_in_order", File("absent.xlsx"), expected=_CITIES),
    # compare_time_in_speedtest_results
    "speed-now": _case("compare_time_in_speedtest_results", File("speed_now.csv"), "60"),
    "speed-past": _case("compare_time_in_speedtest_results", File("speed_past.csv"), "60"),
    "speed-past-tight": _case("compare_time_in_speedtest_results", File("speed_past.csv"), 10),
    "speed-old": _case("compare_time_in_speedtest_results", File("speed_old.csv"), "60"),
    "speed-bad-field": _case("compare_time_in_speedtest_results", File("speed_bad.csv"), "60"),
    "speed-one-line": _case("compare_time_in_speedtest_results", File("speed_one_line.csv"), "60"),
    "speed-bad-range": _case("compare_time_in_speedtest_results", File("speed_now.csv"), "an hour"),
    "speed-missing-file": _case("compare_time_in_speedtest_results", File("absent.csv"), "60"),
    "speed-none": _case("compare_time_in_speedtest_results", None, "60"),
    # compare_text_file
    "text-same": _case("compare_text_file", File("text_same.txt"), File("text_gold.txt")),
    "text-crlf": _case("compare_text_file", File("text_crlf.txt"), File("text_gold.txt")),
    "text-blanks": _case("compare_text_file", File("text_blanks.txt"), File("text_gold.txt")),
    "text-blanks-ignored": _case(
        "compare_text_file", File("text_blanks.txt"), File("text_gold.txt"), ignore_blanks=True
    ),
    "text-case": _case("compare_text_file", File("text_upper.txt"), File("text_gold.txt")),
    "text-case-ignored": _case(
        "compare_text_file", File("text_upper.txt"), File("text_gold.txt"), ignore_case=True
    ),
    "text-both-ignored": _case(
        "compare_text_file",
        File("text_upper_blanks.txt"),
        File("text_gold.txt"),
        ignore_case=True,
        ignore_blanks=True,
    ),
    "text-other": _case(
        "compare_text_file", File("text_other.txt"), File("text_gold.txt"), ignore_blanks=True
    ),
    "text-missing-result": _case("compare_text_file", File("absent.txt"), File("text_gold.txt")),
    "text-missing-expected": _case("compare_text_file", File("text_gold.txt"), File("absent.txt")),
    "text-not-utf8": _case("compare_text_file", File("binary.txt"), File("text_gold.txt")),
    "text-none": _case("compare_text_file", None, File("text_gold.txt")),
    # compare_config
    "config-pass": _rules("compare_config", File("project.txt"), expected="project"),
    "config-newline": _rules("compare_config", File("project_newline.txt"), expected="project"),
    "config-json-text": _rules(
        "compare_config", File("theme.json"), expected='{"workbench.colorTheme": "Visual Studio Dark"}\n'
    ),
    "config-missing-file": _rules("compare_config", File("absent.txt"), expected="project"),
    "config-none": _rules("compare_config", None, expected="project"),
    # compare_python_pure_text
    "py-same-after-meta": _case("compare_python_pure_text", File("same_meta.py"), File("gold.py")),
    "py-late-meta": _case("compare_python_pure_text", File("late_meta.py"), File("gold.py")),
    "py-markdown": _case("compare_python_pure_text", File("markdown.py"), File("gold.py")),
    "py-four-meta": _case("compare_python_pure_text", File("four_meta.py"), File("gold.py")),
    "py-meta-both": _case("compare_python_pure_text", File("gold_meta.py"), File("gold.py")),
    "py-missing-file": _case("compare_python_pure_text", File("absent.py"), File("gold.py")),
    "py-not-utf8": _case("compare_python_pure_text", File("binary.txt"), File("gold.py")),
    "py-none": _case("compare_python_pure_text", File("gold.py"), None),
    # compare_result_files
    "answer-in-sentence": _case("compare_result_files", File("answer_sentence.txt"), File("answer_gold.txt")),
    "answer-close": _case("compare_result_files", File("answer_close.txt"), File("answer_gold.txt")),
    "answer-far": _case("compare_result_files", File("answer_far.txt"), File("answer_gold.txt")),
    "answer-word": _case("compare_result_files", File("answer_word.txt"), File("answer_word_gold.txt")),
    "answer-word-other": _case(
        "compare_result_files", File("answer_word_other.txt"), File("answer_word_gold.txt")
    ),
    "answer-word-vs-number": _case("compare_result_files", File("answer_word.txt"), File("answer_gold.txt")),
    "answer-inf": _case("compare_result_files", File("answer_inf.txt"), File("answer_inf.txt")),
    "answer-missing-file": _case("compare_result_files", File("absent.txt"), File("answer_gold.txt")),
    "answer-none": _case("compare_result_files", None, File("answer_gold.txt")),
    # compare_zip_files
    "zip-same": _case("compare_zip_files", File("zip_same.zip"), File("zip_gold.zip")),
    "zip-changed": _case("compare_zip_files", File("zip_changed.zip"), File("zip_gold.zip")),
    "zip-extra": _case("compare_zip_files", File("zip_extra.zip"), File("zip_gold.zip")),
    "zip-pdf-same-text": _case("compare_zip_files", File("zip_pdf_same_text.zip"), File("zip_pdf_gold.zip")),
    "zip-pdf-near": _case("compare_zip_files", File("zip_pdf_near.zip"), File("zip_pdf_gold.zip")),
    "zip-pdf-other": _case("compare_zip_files", File("zip_pdf_other.zip"), File("zip_pdf_gold.zip")),
    "zip-pdf-upper-name": _case(
        "compare_zip_files", File("zip_upper_pdf.zip"), File("zip_upper_pdf_gold.zip")
    ),
    "zip-not-a-zip": _case("compare_zip_files", File("not_a_zip.zip"), File("zip_gold.zip")),
    "zip-missing-file": _case("compare_zip_files", File("absent.zip"), File("zip_gold.zip")),
    "zip-none": _case("compare_zip_files", None, File("zip_gold.zip")),
    # check_python_file_by_test_suite
    "suite-pass": _suite("suite_pass"),
    "suite-fail": _suite("suite_fail"),
    "suite-half": _suite("suite_half"),
    "suite-clamped-high": _suite("suite_big"),
    "suite-clamped-low": _suite("suite_negative"),
    "suite-truthy-text": _suite("suite_text"),
    "suite-falsy-list": _suite("suite_empty_list"),
    "suite-raises": _suite("suite_raises"),
    "suite-syntax-error": _suite("suite_syntax"),
    "suite-import-error": _suite("suite_import_error"),
    "suite-no-function": _suite("suite_no_function"),
    "suite-not-callable": _suite("suite_not_callable"),
    "suite-default-name": _suite("suite_named"),
    "suite-named-function": _suite("suite_named", test_function_name="test_tetris"),
    "suite-working-folder": _suite("suite_reads_cwd"),
    "suite-missing-test": _case("check_python_file_by_test_suite", [], File("absent/test_suite.py")),
    "suite-none": _case("check_python_file_by_test_suite", [], None),
}
"""Every case by id: `func`, `result`, `expected` and `options` of one metric call."""


def build(folder: Path) -> dict[str, Case]:
    """Write every corpus file into `folder`; return the cases with File values made paths."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in _TEXTS.items():
        data = content.encode("utf-8") if isinstance(content, str) else content
        (folder / name).write_bytes(data)
    for name, builder in _BUILDERS.items():
        builder(folder / name)
    for name, members in _ZIPS.items():
        with zipfile.ZipFile(folder / name, "w") as archive:
            for member, data in members.items():
                archive.writestr(member, data)
    for suite, files in _SUITES.items():
        (folder / suite).mkdir(exist_ok=True)
        for name, text in files.items():
            (folder / suite / name).write_text(text, encoding="utf-8")
    return {
        case_id: {
            **case,
            "result": _paths(case["result"], folder),
            "expected": _paths(case["expected"], folder),
        }
        for case_id, case in CASES.items()
    }


def _paths(value: Any, folder: Path) -> Any:
    if isinstance(value, File):
        return str(folder / value.name)
    if isinstance(value, list):
        return [_paths(item, folder) for item in value]
    return value
