"""A guard that refuses shell commands which would write, for the gate's read-only shell.

    refusal = check_command("sed -i s/a/b/ f.txt")   # -> "`sed -i` edits files in place ..."
    refusal = check_command("grep -n total report.csv")  # -> None (allowed)

How it works: the command is split into words and shell operators (quotes respected,
newlines are separators); every word in command position (after `;`, `&&`, `||`, `|`,
`(`, `{`, `then`, `do`, ... and after wrappers such as `sudo`, `env`, `timeout`,
`xargs`) is checked against rules. `bash -c`/`sh -c` strings are checked recursively.
Refused: output redirections except to /dev/null or another descriptor; commands that
write or delete files (rm, mv, cp, touch, chmod, tee, dd, ...); in-place editors
(`sed -i`, `perl -i`); text editors; package managers; process and window control
(kill; wmctrl and xdotool except listing and reading windows); office programs (soffice
can overwrite or convert files); find's -delete, -fprint and -fls (the command of an `-exec` is
checked as any command); dpkg other than its queries and unzip other than listing, testing or
printing (judged by the action the options ask for, so `dpkg -l --no-pager` and `unzip -Z1` pass); interpreters run on a script file or on stdin;
`python -c`/`perl -e`/`node -e` code that matches a write pattern (open for writing,
.save(, .write(, os.remove, shutil, subprocess, ...) or looks a name up at run time
(getattr, vars, globals, __dict__, ...); command substitution inside
quoted words; `eval`, `source`. A refusal says what the command would do; each caller
adds what its reader may do instead (the gate shell, plan evidence); curl and wget
unless they only GET a URL to stdout (`gate.review.net_guard`).

Limits (what the guard cannot see, so the fingerprint check in `gate.inspect.snapshot` exists):
- It reads the command text, not what programs do: a program not in its lists that writes
  files (or an unlisted option of a listed one) passes.
- Interpreter code is matched by patterns, so obfuscated code passes (e.g. `open(p, chr(119))`);
  names looked up at run time are refused, as their target cannot be read from the text.
- Variables and globs are not expanded: `$CMD file` runs whatever `$CMD` holds.
- A shell function or alias defined earlier cannot exist (each gate command is a fresh
  shell), but one defined in the same command is checked only word by word.
- Writes through sockets or services (a database server, an X client) are not seen.
Whatever it lets through is caught afterwards by comparing fingerprints of the task's
files before and after the gate ran, and undone from the snapshot.
"""

from __future__ import annotations

import re
import shlex
from pathlib import PurePosixPath

from stateact.gate.review.net_guard import check_http_client

_OPERATORS = {";", "&&", "||", "|", "|&", "&", "(", ")", "()", "\n", ";;"}
_KEYWORDS = {"{", "}", "then", "do", "else", "elif", "if", "while", "until", "time", "!", "in", "done", "fi"}
_WRAPPERS = {
    "sudo",
    "env",
    "nohup",
    "nice",
    "ionice",
    "timeout",
    "command",
    "builtin",
    "exec",
    "stdbuf",
    "xargs",
}
"""Commands that run another command given in their arguments."""

_WRITERS = {
    "rm": "deletes files",
    "rmdir": "deletes folders",
    "mv": "moves files",
    "cp": "writes files",
    "touch": "changes file times",
    "chmod": "changes permissions",
    "chown": "changes owners",
    "chgrp": "changes groups",
    "ln": "creates links",
    "mkdir": "creates folders",
    "mkfifo": "creates files",
    "dd": "writes files",
    "truncate": "changes file sizes",
    "shred": "destroys files",
    "install": "writes files",
    "tee": "writes files",
    "sponge": "writes files",
    "patch": "edits files",
    "rsync": "writes files",
    "scp": "writes files",
    "zip": "writes archives",
    "split": "writes files",
    "csplit": "writes files",
    "crontab": "changes scheduled jobs",
    "kill": "ends processes",
    "pkill": "ends processes",
    "killall": "ends processes",
    "xkill": "ends processes",
    "soffice": "can save, convert or lock documents",
    "libreoffice": "can save, convert or lock documents",
    "localc": "can save documents",
    "lowriter": "can save documents",
    "loimpress": "can save documents",
    "unoconv": "converts documents into files",
    "pandoc": "can write files",
    "ssconvert": "writes files",
    "gio": "can move or delete files",
    "systemctl": "controls services",
    "shutdown": "stops the machine",
    "reboot": "restarts the machine",
    "mount": "changes mounts",
    "umount": "changes mounts",
    "eval": "runs text as commands",
    "source": "runs a script",
    ".": "runs a script",
}
_FILE_WRITERS = {
    "rm", "rmdir", "mv", "cp", "touch", "chmod", "chown", "chgrp", "ln", "mkdir", "mkfifo", "dd", "truncate",
    "shred", "install", "tee", "sponge", "patch", "zip", "split", "csplit", "pandoc", "ssconvert",
}  # fmt: skip
"""Writers whose only effect is on files: in a read-only view of the files (`files_read_only`) they fail there
(or write in its throwaway $TMPDIR), so they run."""
_EDITORS = {"vi", "vim", "nvim", "nano", "emacs", "ed", "ex", "pico", "gedit", "code", "mcedit", "joe"}
_PACKAGE_MANAGERS = {
    "pip", "pip3", "pipx", "apt", "apt-get", "aptitude", "dpkg", "snap", "flatpak", "npm", "npx",
    "yarn", "pnpm", "conda", "mamba", "gem", "cargo", "uv", "poetry", "easy_install", "brew",
}  # fmt: skip
_PACKAGE_QUERIES = {
    "dpkg": {
        "-l", "--list", "-L", "--listfiles", "-s", "--status", "-S", "--search", "-p", "--print-avail",
        "--get-selections", "-C", "--audit", "-V", "--verify", "-c", "--contents", "-I", "--info", "-f",
        "--field", "--print-architecture", "--print-foreign-architectures", "--compare-versions", "--help",
        "--version",
    },
    "pip": {"list", "show", "freeze"},
    "pip3": {"list", "show", "freeze"},
    "apt": {"list", "show", "policy", "search"},
}  # fmt: skip
"""Package managers' calls that only read what is installed (`dpkg -l`, `pip list`, `apt list --installed`):
dpkg's action is one of its queries and none of its changing actions (`_DPKG_CHANGES`; its other
options, such as --no-pager, change nothing by themselves); the others' first word that is not an
option is a query."""
_DPKG_CHANGES = {
    "-i", "--install", "-r", "--remove", "-P", "--purge", "--unpack", "--configure", "--triggers-only",
    "--set-selections", "--clear-selections", "--update-avail", "--merge-avail", "--clear-avail",
    "--forget-old-unavail", "-A", "--record-avail", "--add-architecture", "--remove-architecture", "-x",
    "--extract", "-X", "--vextract", "-b", "--build", "-e", "--control",
}  # fmt: skip
_UNZIP_READ_MODES = set("lpctvzZ")
"""unzip's options that list (-l, -v, -Z zipinfo), test (-t) or print (-p, -c to stdout, -z comment) an
archive instead of extracting it; any of them, alone or in a bundle (`-Z1`, `-qql`), makes the call
read-only."""
_FIND_WRITES = {"-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
_FIND_RUNS = {"-exec", "-execdir", "-ok", "-okdir"}
"""find's actions that run a command on each file: the command is checked like any other."""
_FIND_END = "\\;"
"""The word an escaped or quoted `;` (find's `-exec ... \\;` terminator) is read as; a bare `;` stays
the shell's separator."""
_ESCAPED_SEMICOLON = re.compile(r"""(?<!\S)(?:\\;|';'|";")(?!\S)""")
_INTERPRETERS = {"python", "python3", "perl", "ruby", "node", "nodejs", "php", "lua", "Rscript", "osascript"}
_SHELLS = {"bash", "sh", "dash", "zsh", "ksh", "fish"}
_CODE_FLAGS = {"-c", "-e", "-E", "--eval", "-r"}

_RUN_PATTERNS = re.compile(
    r"\bos\.(?:system|popen|spawn\w*|exec\w*|kill|fork\w*)\b|\bsubprocess\b|\bpyautogui\b|\bpynput\b|\bXlib\b"
    r"|\bpty\b|\bexec\s*\(|\beval\s*\(|__import__|\bcompile\s*\(|\bimportlib\b|\brunpy\b|\bctypes\b"
    r"|\bchild_process\b|\bsystem\s*\(|`|\bqx\b",
    re.IGNORECASE,
)
"""Interpreter code that runs programs, drives the screen or hides the code it runs: refused also in a
read-only view of the files, as what it does reaches beyond them (a program typing into a window)."""
_FILE_WRITE_PATTERNS = re.compile(
    r"""open\s*\([^)]*,\s*['"][rbtU]*[wax+][rbt+]*['"]"""  # open(path, "w") / "a" / "x" / "r+"
    r"""|mode\s*=\s*['"][rbtU]*[wax+]"""
    r"""|\w\s*\([^)]*,\s*['"](?:[wax]|[wax][bt+]|r\+|r[bt]\+|[wax][bt]\+)['"]"""  # ZipFile(p, "w"), ...
    r"|\.write\w*\s*\(|\.save\w*\s*\(|\.to_(?:csv|excel|json|parquet|sql|pickle|html|feather)\s*\("
    r"|\bwrite_(?:text|bytes)\b|\bos\.(?:remove|unlink|rename|replace|rmdir|removedirs|mkdir|makedirs|"
    r"chmod|chown|utime|truncate|link|symlink|open|write)\b"
    r"|\bshutil\b|\bunlink\s*\(|\btouch\s*\(|\brename\s*\(|\brmtree\b"
    r"|\bcommit\s*\(|\bexecutescript\b|\b(?:INSERT|UPDATE|DELETE|DROP|CREATE|ALTER|REPLACE)\s"
    r"|\bunlink\w*|\bprint\s*\{"
    r"""|open\s*\([^)]*['"]\s*(?:>|\+<)"""  # perl open(F, ">x")
    r"|\b(?:rm|rmdir|rename|copyFile|appendFile|mkdir|truncate|symlink|chmod)\w*Sync\b|\bappendFile\b"
    r"|\bcopyFile\b|\bFile\.delete\b|\bFileUtils\b",
    re.IGNORECASE,
)
"""Interpreter code that writes files: refused only where the files are not read-only."""
_LOOKUP_PATTERNS = re.compile(
    r"\b(?:getattr|setattr|delattr|vars|globals|locals)\s*\(|__dict__|__getattribute__|__builtins__"
    r"|\b(?:methodcaller|attrgetter)\b",
)
"""A name looked up at run time (`getattr(p, "write_" + "bytes")`): its target cannot be read from the text,
so it is refused where the files are not read-only."""
_LITERAL_GETATTR = re.compile(
    r"""\bgetattr\s*\(([^,()]*(?:\([^()]*\)[^,()]*)*),\s*(['"])([A-Za-z_]\w*)\2(?=\s*[,)])"""
)
"""`getattr(obj, "name"` with the name written out: read as `obj.name` (then checked like any code)."""
_SED_WRITE = re.compile(r"(?:^|[/;}\d$])\s*(?:[wW]\s+\S|e(?:\s|;|$))")
"""sed's `w FILE` (also as the `s///w FILE` flag) and `e` (run a command) in a script argument."""
_GIT_READERS = {
    "log",
    "status",
    "diff",
    "show",
    "ls-files",
    "blame",
    "grep",
    "rev-parse",
    "describe",
    "shortlog",
}
_SETTINGS_READERS = {
    "gsettings": {
        "get", "list-keys", "list-schemas", "list-relocatable-schemas", "list-children",
        "list-recursively", "range", "describe", "writable", "help",
    },
    "dconf": {"read", "list", "dump", "help"},
}  # fmt: skip
"""The subcommands of the settings tools that only read (`gsettings get`, `dconf dump`)."""
_SAFE_REDIRECT_TARGETS = {"/dev/null", "/dev/stdout", "/dev/stderr"}
_WMCTRL_READ_FLAGS = set("ldmhvpGxuiw")
"""wmctrl's listing actions (-l windows, -d desktops, -m window manager) and their modifiers."""
_XDOTOOL_READERS = {
    "getactivewindow", "getwindowfocus", "getwindowname", "getwindowclassname", "getwindowpid",
    "getwindowgeometry", "getmouselocation", "getdisplaygeometry", "get_desktop", "get_num_desktops",
    "get_desktop_for_window", "get_desktop_viewport", "search", "version", "help",
}  # fmt: skip
_XDOTOOL_ACTORS = {
    "key", "keydown", "keyup", "type", "mousemove", "mousemove_relative", "click", "mousedown", "mouseup",
    "windowactivate", "windowfocus", "windowmap", "windowunmap", "windowminimize", "windowraise",
    "windowreparent", "windowkill", "windowclose", "windowquit", "windowsize", "windowmove", "windowstate",
    "set_window", "set_desktop", "set_desktop_for_window", "set_num_desktops", "set_desktop_viewport",
    "behave", "behave_screen_edge", "exec", "selectwindow",
}  # fmt: skip
"""xdotool commands that type, click, or change windows (they may follow a `search` in one call)."""


SUBSTITUTION = "command substitution cannot be checked; run the inner command on its own"


def check_command(command: str, files_read_only: bool = False) -> str | None:
    """Why the command is refused, or None when the guard lets it run. With `files_read_only` (the command
    runs in a read-only view of the files, `Sandbox.run_read_only`) what only writes files passes: it fails
    there; what reaches beyond files (processes, windows, programs run from code, the network) is still
    refused."""
    substitution = _substitution(command)
    if substitution:
        return f"{substitution} {SUBSTITUTION}"
    try:
        words = _split(command)
    except ValueError as exc:
        return f"the command could not be parsed ({exc}); only plain commands can be checked"
    return _check_words(words, files_read_only)


def _substitution(command: str) -> str:
    """The substitution the shell would run in `command` (`$(`, a backquote, `<(` or `>(`), as a short
    phrase, or "": quotes are read as bash reads them (nothing expands in single quotes, and in double
    quotes `$(` and backquotes do but `<(` does not)."""
    quote = ""
    index = 0
    while index < len(command):
        char = command[index]
        pair = command[index : index + 2]
        if char == "\\" and quote != "'":
            index += 2
            continue
        if quote == "'":
            quote = "" if char == "'" else quote
        elif pair == "$(" or char == "`":
            return "`$(` runs a command:" if pair == "$(" else "a backquote runs a command:"
        elif quote == '"':
            quote = "" if char == '"' else quote
        elif char in "'\"":
            quote = char
        elif pair in ("<(", ">("):
            return f"`{pair}` runs a command:"
        index += 1
    return ""


def _split(command: str) -> list[str]:
    command = _ESCAPED_SEMICOLON.sub(lambda _: "'" + _FIND_END + "'", command)
    lexer = shlex.shlex(command, posix=True, punctuation_chars="();<>|&\n")
    lexer.whitespace_split = True
    lexer.whitespace = " \t\r"
    return list(lexer)


def _check_words(words: list[str], files_read_only: bool) -> str | None:
    at_command = True
    index = 0
    while index < len(words):
        word = words[index]
        if set(word) <= set("<>&|") and ">" in word and not files_read_only:
            target = words[index + 1] if index + 1 < len(words) else ""
            if word in (">&", "<&") and target.isdigit() or target in _SAFE_REDIRECT_TARGETS:
                index += 2
                continue
            return f"output redirection (`{word} {target}`) writes a file"
        if word in _OPERATORS or word in _KEYWORDS:
            at_command = True
        elif at_command and not _is_assignment(word):
            at_command = False
            refusal, skip_to_command = _check_command_word(words, index, files_read_only)
            if refusal:
                return refusal
            if skip_to_command is not None:
                index = skip_to_command
                at_command = True
                continue
        index += 1
    return None


def _is_package_query(name: str, args: list[str]) -> bool:
    queries = _PACKAGE_QUERIES[name]
    if name == "dpkg":
        options = [a.split("=", 1)[0] for a in args if a.startswith("-")]
        return any(o in queries for o in options) and not any(o in _DPKG_CHANGES for o in options)
    return next((a for a in args if not a.startswith("-")), "") in queries


def _is_assignment(word: str) -> bool:
    return re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", word, re.DOTALL) is not None


def _arguments(words: list[str], index: int) -> list[str]:
    """The words after position `index` up to the next operator."""
    args = []
    for word in words[index + 1 :]:
        if word in _OPERATORS or (set(word) <= set("<>&|") and word):
            break
        args.append(word)
    return args


def _check_command_word(words: list[str], index: int, files_read_only: bool) -> tuple[str | None, int | None]:
    """(refusal, index of a wrapped command to check next)."""
    name = PurePosixPath(words[index]).name
    args = _arguments(words, index)
    if name in _WRAPPERS:
        wrapped = _wrapped_command_index(name, args)
        return None, (index + 1 + wrapped) if wrapped is not None else None
    if name in _SHELLS:
        return _check_shell(name, args, files_read_only), None
    if name in _INTERPRETERS:
        return _check_interpreter(name, args, files_read_only), None
    if files_read_only:
        return _check_beyond_files(name, args)
    if name in _WRITERS:
        return f"`{name}` {_WRITERS[name]}", None
    if name in ("wmctrl", "xdotool"):
        return _check_window_tool(name, args), None
    if name in ("curl", "wget"):
        return check_http_client(name, args), None
    if name in _EDITORS:
        return f"`{name}` is an editor (it can change files)", None
    if name in _PACKAGE_QUERIES and _is_package_query(name, args):
        return None, None
    if name in _PACKAGE_MANAGERS:
        return f"`{name}` installs or changes packages", None
    if name == "sed" and any(a.startswith("-i") or a.startswith("--in-place") for a in args):
        return "`sed -i` edits files in place", None
    if name == "sed" and any(_SED_WRITE.search(a) for a in args if not a.startswith("-")):
        return "`sed` with a `w` or `e` command writes files or runs commands", None
    if name in ("awk", "gawk") and any("inplace" in a or re.search(r">\s*\"", a) for a in args):
        return "`awk` with inplace or `> file` writes files", None
    if name == "find":
        return _check_find(args, False), None
    if name == "tar" and not any(
        a in {"-t", "--list", "-tf", "-tvf", "-ztf", "-tzf"} or a.startswith("-t") for a in args
    ):
        return "`tar` is allowed only to list an archive (`tar -tf`)", None
    if name == "unzip" and not any(
        a.startswith("-") and not a.startswith("--") and _UNZIP_READ_MODES & set(a[1:]) for a in args
    ):
        return (
            "`unzip` is allowed only to list, test or print to stdout (`unzip -l`, `unzip -Z1`, `unzip -p`)",
            None,
        )
    if name in {"gzip", "gunzip", "bzip2", "xz", "zstd"} and not any(
        a in {"-c", "-l", "-t", "--stdout"} for a in args
    ):
        return f"`{name}` replaces files unless given -c, -l or -t", None
    if name in _SETTINGS_READERS:
        readers = _SETTINGS_READERS[name]
        subcommand = next((a for a in args if not a.startswith("-")), "")
        if subcommand not in readers:
            return f"`{name}` is allowed only to read settings ({', '.join(sorted(readers))})", None
        return None, None
    if name == "git" and (not args or args[0] not in _GIT_READERS):
        return f"`git` is allowed only to read ({', '.join(sorted(_GIT_READERS))})", None
    if name == "sqlite3" and "-readonly" not in args:
        return "`sqlite3` can change the database unless run with -readonly", None
    return None, None


def _check_beyond_files(name: str, args: list[str]) -> tuple[str | None, int | None]:
    """The rules for a command run where the files are read-only: only what acts beyond them is refused."""
    if name in _WRITERS and name not in _FILE_WRITERS:
        return f"`{name}` {_WRITERS[name]}", None
    if name in ("wmctrl", "xdotool"):
        return _check_window_tool(name, args), None
    if name in ("curl", "wget"):
        return check_http_client(name, args), None
    if name in _PACKAGE_MANAGERS and not (name in _PACKAGE_QUERIES and _is_package_query(name, args)):
        return f"`{name}` installs or changes packages", None
    if name == "sed" and any(_SED_WRITE.search(a) for a in args if not a.startswith("-")):
        return "`sed` with a `w` or `e` command writes files or runs commands", None
    if name == "find":
        return _check_find(args, True), None
    if (
        name in _SETTINGS_READERS
        and next((a for a in args if not a.startswith("-")), "") not in _SETTINGS_READERS[name]
    ):
        return f"`{name}` is allowed only to read settings (they are kept by a service, not in files)", None
    if name == "git" and (not args or args[0] not in _GIT_READERS):
        return f"`git` is allowed only to read ({', '.join(sorted(_GIT_READERS))})", None
    return None, None


def _check_find(args: list[str], files_read_only: bool) -> str | None:
    """find may search and print; -delete and -fprint/-fls write, and an -exec command is checked as any
    command (`-exec grep -l x {} +` passes, `-exec rm {} +` does not)."""
    for position, arg in enumerate(args):
        if arg in _FIND_WRITES and not files_read_only:
            return f"`find` with {arg} deletes or writes files"
        if arg not in _FIND_RUNS:
            continue
        command: list[str] = []
        for word in args[position + 1 :]:
            if word == _FIND_END or (word == "+" and command[-1:] == ["{}"]):
                break
            command.append(word)
        if not command or command[0] == "{}":
            return f"`find {arg}` without a command, or running the files it finds, cannot be checked"
        refusal = _check_words(command, files_read_only)
        if refusal:
            return f"inside `find {arg}`: {refusal}"
    return None


def _check_window_tool(name: str, args: list[str]) -> str | None:
    """wmctrl and xdotool may list and read windows; typing, clicking and changing windows are refused."""
    if name == "wmctrl":
        changing = [a for a in args if a.startswith("-") and a not in ("--help", "--version")]
        if any(a.startswith("--") or not set(a[1:]) <= _WMCTRL_READ_FLAGS for a in changing):
            return "`wmctrl` other than listing (-l, -d, -m) closes, moves or switches windows"
        return None
    acting = next((a for a in args if a in _XDOTOOL_ACTORS), None)
    if acting:
        return f"`xdotool {acting}` types, clicks or changes windows"
    first = next((a for a in args if not a.startswith("-")), None)
    if first is not None and first not in _XDOTOOL_READERS:
        return (
            f"`xdotool {first}` is not one of its read-only commands ({', '.join(sorted(_XDOTOOL_READERS))})"
        )
    return None


def _wrapped_command_index(name: str, args: list[str]) -> int | None:
    """Position (in args) of the command a wrapper runs, skipping its options and values.

    `command -v`/`-V` only looks names up (as `type` and `which` do): it runs nothing.
    """
    if name == "command" and any(arg in ("-v", "-V") for arg in args):
        return None
    position = 0
    while position < len(args):
        arg = args[position]
        if arg.startswith("-"):
            position += 1
            if name in ("timeout", "nice", "ionice", "stdbuf", "sudo", "xargs") and arg in {
                "-n",
                "-s",
                "-k",
                "-u",
                "-c",
                "-I",
                "-d",
                "-P",
                "-L",
                "-E",
                "-a",
                "-g",
            }:
                position += 1
            continue
        if _is_assignment(arg) or (name == "timeout" and re.fullmatch(r"[\d.]+[smhd]?", arg)):
            position += 1
            continue
        return position
    return None


def _check_shell(name: str, args: list[str], files_read_only: bool) -> str | None:
    if "-c" in args and args.index("-c") + 1 < len(args):
        inner = check_command(args[args.index("-c") + 1], files_read_only)
        return f"inside `{name} -c`: {inner}" if inner else None
    return f"`{name}` running a script or stdin cannot be checked; pass the command directly"


def _check_interpreter(name: str, args: list[str], files_read_only: bool) -> str | None:
    code_flag = next(
        (
            i
            for i, a in enumerate(args)
            if a in _CODE_FLAGS
            or (a.startswith("-") and a[-1:] in "ce" and len(a) <= 4 and not a.startswith("--"))
        ),
        None,
    )
    if name in {"python", "python3"} and any(a == "-m" for a in args):
        module = args[args.index("-m") + 1] if args.index("-m") + 1 < len(args) else ""
        if module in {"json.tool", "zipfile", "tarfile", "tokenize", "pydoc"}:
            return (
                None
                if module != "zipfile" or not ({"-c", "-e", "--create", "--extract"} & set(args))
                else "`python -m zipfile` may only list or test"
            )
        return f"`{name} -m {module}` may write files"
    if name == "perl" and any(a.startswith("-i") or re.fullmatch(r"-\w*i\w*", a) for a in args):
        return "`perl -i` edits files in place"
    if code_flag is None or code_flag + 1 >= len(args):
        if args and all(a.startswith("-") for a in args) and any(a in {"--version", "-V"} for a in args):
            return None
        return f"`{name}` running a script file or stdin cannot be checked; use `{name} -c 'code'`"
    return _check_code(name, args[code_flag + 1], files_read_only)


def _check_code(name: str, code: str, files_read_only: bool) -> str | None:
    """Interpreter code is refused when it runs programs or drives the screen, and, where the files are not
    read-only, when it writes files or looks a name up at run time (a `getattr` whose name is written out
    is read as the attribute it names)."""
    match = _RUN_PATTERNS.search(code)
    if match:
        return f"the {name} code runs programs or drives the screen (`{match.group(0).strip()}`)"
    if files_read_only:
        return None
    code = _LITERAL_GETATTR.sub(lambda m: f"{m.group(1)}.{m.group(3)}", code)
    match = _FILE_WRITE_PATTERNS.search(code) or _LOOKUP_PATTERNS.search(code)
    if match:
        return (
            f"the {name} code looks like it writes files or hides what it does (`{match.group(0).strip()}`)"
        )
    return None
