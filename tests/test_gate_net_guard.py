"""curl and wget in the gate's shell: a GET printed to stdout passes, one that writes or sends is refused."""

import pytest

from stateact.gate.review.guard import check_command

URL = "http://127.0.0.1:18432/reports/"

ALLOWED = [
    f"curl {URL}",
    f"curl -s {URL}",
    f"curl -sSL --max-time 10 {URL} | grep -i total",
    f"curl -sL -H 'Accept: text/html' -A stateact {URL}",
    f"curl -X GET {URL}",
    f"curl --request=HEAD -I {URL}",
    f"curl -s -w '%{{http_code}}' {URL} 2>/dev/null",
    f"wget -qO- {URL}",
    f"wget -q -O - {URL}",
    f"wget --output-document=- --timeout 5 {URL}",
    "wget -qO- --no-hsts https://example.org/",
]

REFUSED = [
    (f"curl -o page.html {URL}", "`curl -o`"),
    (f"curl -sO {URL}", "`curl -O`"),
    (f"curl --output page.html {URL}", "`curl --output`"),
    (f"curl --output-dir /tmp -O {URL}", "`curl --output-dir`"),
    (f"curl -T notes.txt {URL}", "`curl -T`"),
    (f"curl -d a=1 {URL}", "`curl -d`"),
    (f"curl --data-binary @x {URL}", "`curl --data-binary`"),
    (f"curl -F f=@x {URL}", "`curl -F`"),
    (f"curl -X POST {URL}", "`curl -X POST`"),
    (f"curl -XDELETE {URL}", "`curl -X DELETE`"),
    (f"curl --request PUT {URL}", "`curl --request PUT`"),
    (f"curl -c jar.txt {URL}", "`curl -c`"),
    (f"curl -D headers.txt {URL}", "`curl -D`"),
    (f"curl -K cfg {URL}", "`curl -K`"),
    (f"curl {URL} > page.html", "redirection"),
    (f"wget {URL}", "`wget` saves files"),
    (f"wget -O page.html {URL}", "`wget -O page.html`"),
    (f"wget -qO- --post-data a=1 {URL}", "`wget --post-data`"),
    (f"wget -qO- -o log.txt {URL}", "`wget -o`"),
    ("wget -qO- https://example.org/", "--no-hsts"),
]


@pytest.mark.parametrize("command", ALLOWED)
def test_get_to_stdout_is_allowed(command):
    assert check_command(command) is None


@pytest.mark.parametrize(("command", "reason"), REFUSED)
def test_writing_or_sending_is_refused(command, reason):
    refusal = check_command(command)
    assert refusal is not None and reason in refusal
