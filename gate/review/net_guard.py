"""curl and wget in a read-only shell (the gate's, plan evidence), judged by effect: a GET that prints to stdout is a read.

    check_http_client("curl", ["-sL", "http://127.0.0.1:8000/"])  # -> None (allowed)
    check_http_client("curl", ["-o", "page.html", URL])           # -> refusal (writes a file)

Only options known to neither write files nor send data pass (an allow list: an unknown option
is refused, so a new writing option cannot slip through). Redirections are the guard's own rule.
"""

from __future__ import annotations

_CURL_FLAGS = set("sSLiIfvkgG46") | {"#"}
"""Short curl options without a value that only change what is printed or how it is fetched."""
_CURL_VALUED = set("HAmebuwr") | {"X"}
"""Short curl options that take a value and neither write nor send a body (-X is checked apart)."""
_CURL_LONG = {
    "--silent", "--show-error", "--location", "--include", "--head", "--fail", "--fail-with-body",
    "--verbose", "--insecure", "--compressed", "--globoff", "--get", "--ipv4", "--ipv6", "--no-progress-meter",
    "--http1.1", "--http2", "--raw", "--no-buffer", "--progress-bar",
}  # fmt: skip
_CURL_LONG_VALUED = {
    "--header", "--user-agent", "--max-time", "--connect-timeout", "--referer", "--cookie", "--user",
    "--write-out", "--range", "--max-redirs", "--url", "--request", "--retry", "--max-filesize",
}  # fmt: skip
_READ_METHODS = {"GET", "HEAD"}
_DISCARDED_OUTPUTS = {"/dev/null", "-"}
"""Where `-o`/`--output` may send the body: nowhere, or stdout (`curl -so /dev/null -w '%{http_code}'`)."""

_WGET_FLAGS = {"-q", "--quiet", "-nv", "--no-verbose", "-S", "--server-response", "--no-check-certificate",
               "--no-hsts", "-4", "-6"}  # fmt: skip
_WGET_VALUED = {"-T", "--timeout", "-t", "--tries", "-U", "--user-agent", "--header", "--max-redirect"}
_WGET_TO_STDOUT = {"-O-", "-qO-", "-qO", "--output-document=-", "-O"}


def check_http_client(name: str, args: list[str]) -> str | None:
    """Why this curl/wget call is refused, or None when it only reads a URL to stdout."""
    return _check_curl(args) if name == "curl" else _check_wget(args)


def _check_curl(args: list[str]) -> str | None:
    index = 0
    while index < len(args):
        arg = args[index]
        if arg.startswith("--"):
            option, has_value, value = arg.partition("=")
            if option in _CURL_LONG_VALUED or option == "--output":
                if not has_value:
                    index += 1
                    value = args[index] if index < len(args) else ""
                if option == "--request" and value.upper() not in _READ_METHODS:
                    return _curl_refusal(f"{option} {value}")
                if option == "--output" and value not in _DISCARDED_OUTPUTS:
                    return _curl_refusal(option)
            elif option not in _CURL_LONG:
                return _curl_refusal(option)
        elif arg.startswith("-") and len(arg) > 1:
            for position, letter in enumerate(arg[1:], start=1):
                if letter in _CURL_VALUED or letter == "o":
                    value = arg[position + 1 :] or (args[index + 1] if index + 1 < len(args) else "")
                    if not arg[position + 1 :]:
                        index += 1
                    if letter == "X" and value.upper() not in _READ_METHODS:
                        return _curl_refusal(f"-X {value}")
                    if letter == "o" and value not in _DISCARDED_OUTPUTS:
                        return _curl_refusal("-o")
                    break
                if letter not in _CURL_FLAGS:
                    return _curl_refusal(f"-{letter}")
        index += 1
    return None


def _curl_refusal(option: str) -> str:
    return (
        f"`curl {option}` writes files, sends data or is not known to be read-only; only a GET of a page "
        "to stdout is (e.g. `curl -sL URL`)"
    )


def _check_wget(args: list[str]) -> str | None:
    to_stdout = False
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in _WGET_TO_STDOUT:
            value = "-" if arg.endswith("-") else (args[index + 1] if index + 1 < len(args) else "")
            index += 0 if arg.endswith("-") else 1
            if value != "-":
                return _wget_refusal(f"{arg} {value}")
            to_stdout = True
        elif arg.split("=")[0] in _WGET_VALUED:
            index += 0 if "=" in arg else 1
        elif arg.startswith("-") and arg not in _WGET_FLAGS:
            return _wget_refusal(arg)
        elif arg.lower().startswith("https://") and "--no-hsts" not in args:
            return "`wget` on an https URL records HSTS in ~/.wget-hsts; add --no-hsts, or use `curl -sL URL`"
        index += 1
    if not to_stdout:
        return "`wget` saves files unless given `-O -`; print the page instead (`wget -qO- URL`)"
    return None


def _wget_refusal(option: str) -> str:
    return (
        f"`wget {option}` writes files, sends data or is not known to be read-only; only printing a page is "
        "(`wget -qO- URL` or `curl -sL URL`)"
    )
