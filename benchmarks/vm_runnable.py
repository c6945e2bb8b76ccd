"""How many tasks of a suite `eval check` finds that a local sandbox refuses as needing a VM, and how many
of those the test guest can run: the check's rows, with the needs the guest gives (a whole machine,
sudo, systemd, the network where the check's probe reached it, and the applications found on the guest).

    python benchmarks/vm_runnable.py ~/OSWorld/evaluation_examples [CACHE]   # boots the test guest once

Prints name=value lines: tasks, needs_vm (refused locally as needing a VM), needs_vm_scorable (of those,
scorable with their files at hand), guest_runnable (of those, every need given by the guest), then
the ids of the guest_runnable tasks and the guest's applications.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from shlex import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from stateact.evals.osworld.local_machine import (  # noqa: E402
    APP_PREFIX,
    APP_PROGRAMS,
    NEED_SUDO,
    NEED_SYSTEMD,
    NEED_VM,
)
from stateact.evals.running.check import NEED_NETWORK, check_suite  # noqa: E402
from tests.support.vm_guest import guest_image, leased_guest  # noqa: E402

GUEST_GIVES = {NEED_VM, NEED_SUDO, NEED_SYSTEMD, NEED_NETWORK}
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


def guest_apps() -> set[str]:
    """The applications (APP_PROGRAMS' names) one of whose programs is on the test guest's PATH."""
    with tempfile.TemporaryDirectory() as work, leased_guest(guest_image(), Path(work)) as (guest, _):
        found = set()
        for app, programs in APP_PROGRAMS.items():
            names = " ".join(map(quote, programs))  # the system's PATH: not the toolkit's google-chrome
            if guest.run(f"PATH={SYSTEM_PATH} sh -c {quote(f'command -v {names}')}").stdout.strip():
                found.add(app)
        return found


def main(suite: Path, cache: Path) -> None:
    checks = check_suite(suite, cache)
    gives = GUEST_GIVES | {f"{APP_PREFIX}{app}" for app in guest_apps()}
    needs_vm = [c for c in checks if NEED_VM in c.needs]
    at_hand = [c for c in needs_vm if c.scorable and not c.unreachable]
    runnable = [
        c
        for c in at_hand
        if set(c.needs) <= gives and not any(lack.startswith(f"{NEED_NETWORK}:") for lack in c.lacks)
    ]
    print(f"tasks={len(checks)}")
    print(f"needs_vm={len(needs_vm)}")
    print(f"needs_vm_scorable={len(at_hand)}")
    print(f"guest_runnable={len(runnable)}")
    print(f"guest_runnable_ids={','.join(f'{c.domain}/{c.task_id}' for c in runnable)}")
    print(
        f"guest_apps={','.join(sorted(a.removeprefix(APP_PREFIX) for a in gives if a.startswith(APP_PREFIX)))}"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]) if len(sys.argv) > 2 else Path("results") / "cache")
