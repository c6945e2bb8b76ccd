"""The gate shell's write guard: what it lets through and what it refuses."""

import pytest

from stateact.gate.review.guard import check_command

ALLOWED = [
    "ls -la ~/Documents",
    "command -v soffice libreoffice python3",  # looks names up, runs none of them
    "find ~ -name '*.xlsx' -newer /etc/hostname",
    "grep -n 'total > 5' report.csv",
    "cat a.txt 2>/dev/null | head -20",
    "wc -l data.csv && sort -t, -k2 data.csv | uniq -c",
    "python3 -c \"import openpyxl; print(openpyxl.load_workbook('a.xlsx').sheetnames)\"",
    "python3 -c 'print(sum([1,2,3]) > 5)'",
    "unzip -l book.xlsx",
    "unzip -p book.xlsx xl/workbook.xml | head",
    "tar -tf archive.tar",
    "sqlite3 -readonly db.sqlite 'select count(*) from t'",
    "timeout 5 cat big.log",
    "stat -c '%s %Y' ~/out.xlsx 2>&1",
    "bash -c 'ls ~ | wc -l'",
    "git log --oneline",
    "gsettings get org.gnome.shell favorite-apps",
    "gsettings list-recursively org.gnome.desktop.session",
    "dconf dump /org/gnome/",
    "dpkg -l | grep mahjongg",
    "dpkg -s zsh",
    "dpkg -l --no-pager 'gimp*'",
    "dpkg --no-pager --list | grep -c ^ii",
    "unzip -Z1 book.xlsx",
    "unzip -qql book.xlsx",
    "find ~ -name '*.txt' -exec grep -l ERROR {} +",
    "find ~/logs -type f -exec grep -c ERROR {} \\; -print",
    "find . -exec wc -l {} ';'",
    "pip list --format=json",
    "apt list --installed",
    "curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8000/",
    "curl -sL --output - http://127.0.0.1:8000/",
    "dconf read /org/gnome/desktop/session/idle-delay",
    "sed -n '1,5p' notes.txt",
    "sed 's/we/us/g' notes.txt",
    "python3 -c \"print(open('/home/user/wax_data.xlsx', 'rb').read(4))\"",
    "python3 -c \"print(open('/home/user/a.txt').read())\"",
    "python3 -c \"import zipfile; print(zipfile.ZipFile('/home/user/a.xlsx', mode='r').namelist())\"",
    "echo '$(rm x)'",  # single quotes: nothing expands
    'grep -c "<(" notes.txt',  # no process substitution inside quotes
    'python3 -c \'import re; print(re.findall(rb"<([0-9A-F]{2})>", b"<4A>"))\'',
]

REFUSED = [
    ("command soffice --headless --convert-to pdf a.docx", "`soffice`"),  # `command` without -v runs it
    ("echo hi > ~/out.txt", "redirection"),
    ("echo hi >> notes.md", "redirection"),
    ("cat a &> b", "redirection"),
    ("rm -f ~/out.xlsx", "`rm`"),
    ("ls; rm x", "`rm`"),
    ("ls\nrm x", "`rm`"),
    ("ls && /bin/mv a b", "`mv`"),
    ("cp a.xlsx b.xlsx", "`cp`"),
    ("gsettings set org.gnome.desktop.session idle-delay 0", "`gsettings` is allowed only to read"),
    ("gsettings reset org.gnome.shell favorite-apps", "`gsettings` is allowed only to read"),
    ("dconf write /org/gnome/desktop/session/idle-delay 'uint32 0'", "`dconf` is allowed only to read"),
    ("dconf load / < saved.ini", "`dconf` is allowed only to read"),
    ("dpkg -i pkg.deb", "`dpkg` installs"),
    ("dpkg -l --force-all -r zsh", "`dpkg` installs"),
    ("pip install requests", "`pip` installs"),
    ("apt install zsh", "`apt` installs"),
    ("curl -s -o page.html http://127.0.0.1:8000/", "`curl -o`"),
    ("curl -s --output=page.html http://127.0.0.1:8000/", "`curl --output`"),
    ("touch report.docx", "`touch`"),
    ("chmod 777 report.docx", "`chmod`"),
    ("echo x | tee out.txt", "`tee`"),
    ("sed -i 's/a/b/' f.txt", "sed -i"),
    ("perl -pi -e 's/a/b/' f.txt", "perl -i"),
    ("sed -n '/x/w out.txt' f.txt", "`w`"),
    ("sed 's/a/b/w out.txt' f.txt", "`w`"),
    ("sed 's/.*/date/e' f.txt", "`e`"),
    ("pip install foo", "packages"),
    ("sudo apt-get install -y foo", "packages"),
    ("nano f.txt", "editor"),
    ("python3 -c \"open('a.txt','w').write('x')\"", "writes"),
    ("python3 -c \"f = open('/home/user/a.txt', 'a+'); print(f)\"", "writes"),
    ("python3 -c \"import zipfile; zipfile.ZipFile('a.xlsx', mode='w')\"", "writes"),
    ("python3 -c \"import zipfile; zipfile.ZipFile('a.xlsx', 'a')\"", "writes"),
    ("python3 -c \"import openpyxl; wb=openpyxl.load_workbook('a.xlsx'); wb.save('a.xlsx')\"", "writes"),
    ("python3 -c 'import os; os.remove(\"a\")'", "writes"),
    ('python3 -c \'import shutil; shutil.copy("a", "b")\'', "writes"),
    ("python3 script.py", "script"),
    ("perl -e 'open(F, \">x.txt\"); print F 1'", "writes"),
    ("node -e \"require('fs').unlinkSync('x')\"", "writes"),
    ("node -e \"require('fs').writeFileSync('x', 'y')\"", "writes"),
    ("ruby -e 'File.delete(\"x\")'", "writes"),
    ("python3 -c 'import runpy; runpy.run_path(\"x.py\")'", "runs programs"),
    ("python3 - <<EOF\nprint(1)\nEOF", "script"),
    ("bash -c 'rm x'", "inside `bash -c`"),
    ("sh run.sh", "script"),
    ("echo $(rm x)", "substitution"),
    ('echo "$(rm x)"', "substitution"),  # double quotes expand it
    ("diff <(sort a.txt) b.txt", "`<(`"),
    ("git checkout -- report.docx", "`git`"),
    ('echo "`rm x`"', "substitution"),
    ("find . -name '*.tmp' -delete", "`find`"),
    ("find . -exec rm {} ;", "`rm`"),
    ("find . -exec rm {} +", "inside `find -exec`: `rm`"),
    ("find . -execdir sed -i s/a/b/ {} +", "inside `find -execdir`: `sed -i`"),
    ("find . -exec sed + -i s/a/b/ {} \\;", "`sed -i`"),  # a + not after {} is the command's own word
    ("find . -exec grep -l x {} \\; -delete", "`find` with -delete"),  # after the escaped terminator
    ("find . -exec grep -l x {} ';' -fprint out.txt", "`find` with -fprint"),
    ("find . -exec grep x {} ; rm y", "`rm`"),  # a bare ; is the shell's separator
    ("find . -name '*.sh' -exec {} \\;", "running the files it finds"),
    ("find . -exec grep -l x {} + > hits.txt", "redirection"),
    ("dpkg --no-pager -i pkg.deb", "`dpkg` installs"),
    ("dpkg --configure -a", "`dpkg` installs"),
    ("unzip -o book.xlsx", "unzip"),
    ("unzip -qo book.xlsx -d /tmp/x", "unzip"),
    ("ls | xargs rm", "`rm`"),
    ("env FOO=1 rm x", "`rm`"),
    ("timeout 5 rm x", "`rm`"),
    ("soffice --headless --convert-to pdf a.docx", "soffice"),
    ("xdotool key ctrl+s", "xdotool"),
    ("pkill soffice", "processes"),
    ("unzip book.xlsx", "unzip"),
    ("gzip data.csv", "gzip"),
    ("sqlite3 db.sqlite 'delete from t'", "readonly"),
    ("f() { rm x; }; f", "`rm`"),
    ("if true; then rm x; fi", "`rm`"),
    ("dd if=/dev/zero of=f bs=1 count=1", "`dd`"),
    ("eval 'rm x'", "`eval`"),
    ("python3 -c \"import pathlib; f=getattr(pathlib.Path('x'), 'write_' + 'bytes'); f(b'1')\"", "getattr("),
    ('python3 -c \'import os; getattr(os, "re" + "move")("x")\'', "getattr("),
    ('python3 -c \'import os; vars(os)["re" + "move"]("x")\'', "vars("),
    ('python3 -c \'import os; os.__dict__["unl" + "ink"]("x")\'', "__dict__"),
]


@pytest.mark.parametrize("command", ALLOWED)
def test_read_only_commands_pass(command):
    assert check_command(command) is None


@pytest.mark.parametrize(("command", "reason"), REFUSED)
def test_writing_commands_are_refused_with_a_reason(command, reason):
    refusal = check_command(command)
    assert refusal is not None
    assert reason in refusal


def test_unparseable_command_is_refused_not_crashing():
    assert "could not be parsed" in check_command("echo 'unclosed")


GETATTR_CHECK = (
    "python3 -c \"import openpyxl; ws = openpyxl.load_workbook('a.xlsx').active; "
    "print([getattr(ws.cell(1, c), 'value') for c in (1, 2)])\""
)


def test_a_getattr_with_its_name_written_out_is_read_as_that_attribute():
    assert check_command(GETATTR_CHECK) is None
    assert "write_bytes" in check_command(
        "python3 -c \"import pathlib; getattr(pathlib.Path('x'), 'write_bytes')(b'')\""
    )


FILE_WRITES_IN_A_READ_ONLY_VIEW = [
    "rm -f ~/out.xlsx",
    "echo hi > ~/out.txt",
    'cp a.xlsx "$TMPDIR" && unzip -o "$TMPDIR/a.xlsx" -d "$TMPDIR/x"',
    "find . -name '*.tmp' -delete",
    "python3 -c \"import pathlib; f=getattr(pathlib.Path('x'), 'write_' + 'bytes'); f(b'1')\"",
    "python3 -c \"import openpyxl; wb=openpyxl.load_workbook('a.xlsx'); wb.save('a.xlsx')\"",
    GETATTR_CHECK,
]
BEYOND_FILES = [
    ("xdotool key ctrl+s", "xdotool"),
    ("pkill soffice", "processes"),
    ("soffice --headless --convert-to pdf a.docx", "soffice"),
    ('python3 -c \'import subprocess; subprocess.run(["xdotool", "key", "ctrl+s"])\'', "runs programs"),
    ("python3 -c 'import os; os.system(\"kill 1\")'", "runs programs"),
    ("curl -X POST -d a=1 http://127.0.0.1:8000/", "curl"),
    ("gsettings set org.gnome.desktop.session idle-delay 0", "gsettings"),
    ("git push", "git"),
    ("echo $(rm x)", "substitution"),
    ("bash -c 'xdotool type x'", "inside `bash -c`"),
    ("find . -exec kill {} +", "inside `find -exec`"),
]


@pytest.mark.parametrize("command", FILE_WRITES_IN_A_READ_ONLY_VIEW)
def test_file_writes_run_where_the_files_are_read_only(command):
    assert check_command(command, files_read_only=True) is None


@pytest.mark.parametrize(("command", "reason"), BEYOND_FILES)
def test_what_acts_beyond_files_is_refused_even_where_they_are_read_only(command, reason):
    refusal = check_command(command, files_read_only=True)
    assert refusal is not None and reason in refusal
