"""The `deliver_mail` step: a message lands in a local mailbox of the sandbox (a Maildir, or an mbox file),
as a mail client or the agent's own code reads it.

    {"type": "deliver_mail", "parameters": {"mailbox": "~/Maildir", "from": "Dana <dana@example.org>",
     "subject": "Corrected figures", "body": "...", "attachments": [{"local_path": "fixes.csv"}]}}

`format` is `maildir` (the default: the message is a file in `new/`, `cur/` and `tmp/` are made) or
`mbox` (the message is appended to the file). A delivery is idempotent: the message's Message-ID is a
hash of its content, and a message whose id the mailbox holds already (a Maildir file of that name in
`new/` or `cur/`, an mbox line naming it) is not delivered again, so a change that a killed run made
and a resume makes again leaves one message.
"""

from __future__ import annotations

import hashlib
import json
import mimetypes
from email.generator import BytesGenerator
from email.message import EmailMessage
from email.utils import formatdate
from io import BytesIO
from pathlib import Path
from shlex import quote
from typing import Any

from stateact.sandbox.base import Sandbox

MAIL_FORMATS = ("maildir", "mbox")
DEFAULT_RECIPIENT = "user@localhost"
ID_DOMAIN = "stateact.local"


class MailError(ValueError):
    """A `deliver_mail` step's parameters cannot make a message."""


def build_message(params: dict[str, Any], attachments: list[tuple[str, bytes]]) -> EmailMessage:
    """The message a step's parameters describe, with `attachments` as (file name, bytes)."""
    for required in ("mailbox", "from", "subject"):
        if not params.get(required):
            raise MailError(f"deliver_mail: no `{required}`")
    if params.get("format", "maildir") not in MAIL_FORMATS:
        raise MailError(
            f"deliver_mail: `format` is one of {', '.join(MAIL_FORMATS)}, not {params['format']!r}"
        )
    content = {key: params.get(key) for key in ("from", "to", "subject", "body")}
    digest = hashlib.sha256(json.dumps(content, sort_keys=True).encode())
    for name, data in attachments:
        digest.update(name.encode() + b"\0" + data)
    message = EmailMessage()
    message["From"] = params["from"]
    message["To"] = params.get("to") or DEFAULT_RECIPIENT
    message["Subject"] = params["subject"]
    message["Date"] = params.get("date") or formatdate(localtime=True)
    message["Message-ID"] = f"<{digest.hexdigest()[:32]}@{ID_DOMAIN}>"
    message.set_content(str(params.get("body", "")))
    for name, data in attachments:
        kind = (mimetypes.guess_type(name)[0] or "application/octet-stream").split("/", 1)
        message.add_attachment(data, maintype=kind[0], subtype=kind[1], filename=name)
    return message


def message_key(message: EmailMessage) -> str:
    """The message's id without brackets and domain: its Maildir file name."""
    return str(message["Message-ID"]).strip("<>").split("@", 1)[0]


def deliver(sandbox: Sandbox, mailbox: str, mail_format: str, message: EmailMessage) -> bool:
    """Put `message` into the sandbox's `mailbox`; False when it holds the message already."""
    folder = sandbox.expand(mailbox)
    key = message_key(message)
    if mail_format == "mbox":
        old = sandbox.read_file(folder) if sandbox.exists(folder) else b""
        if key.encode() in old:
            return False
        sandbox.write_file(
            folder, old + (b"\n" if old and not old.endswith(b"\n") else b"") + _mbox_entry(message)
        )
        return True
    boxes = " ".join(quote(f"{folder}/{sub}") for sub in ("new", "cur", "tmp"))
    held = sandbox.run(f"mkdir -p {boxes} && ls -- {quote(folder + '/new')} {quote(folder + '/cur')}")
    if any(name.startswith(key) for name in held.stdout.split()):
        return False
    sandbox.write_file(str(Path(folder) / "new" / f"{key}.{ID_DOMAIN}"), bytes(message))
    return True


def _mbox_entry(message: EmailMessage) -> bytes:
    """The message as an mbox entry: its `From ` line, the message with body lines starting `From `
    quoted, and a blank line."""
    message.set_unixfrom(f"From {DEFAULT_RECIPIENT} {formatdate(usegmt=True)}")
    out = BytesIO()
    BytesGenerator(out, mangle_from_=True).flatten(message, unixfrom=True)
    return out.getvalue().rstrip(b"\n") + b"\n\n"
