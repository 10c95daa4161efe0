"""A throwaway single-node Slurm cluster on this machine (tests/test_slurm.py uses it).

Needs root and the Debian packages ``slurm-wlm`` and ``munge``. It starts munged (as user munge,
unless one already answers), ``slurmctld -D -i`` and ``slurmd -D`` in the background, and stops
every daemon it started by PID on the way out, also on errors.

Why the odd settings:

- slurm.conf must sit at its compiled-in path /etc/slurm/slurm.conf: the executor's job step
  strips ``SLURM_*`` variables, so a ``SLURM_CONF`` pointing elsewhere breaks every job. The file
  is written only if absent (or written by this module before) and removed again afterwards.
- No slurmdbd, hence no accounting: the Snakemake executor must be told
  ``--slurm-status-command squeue``, and squeue only sees finished jobs for ``MinJobAge`` seconds,
  which the executor wants >= 3 x ``--slurm-init-seconds-before-status-checks``.
- ``CommunicationParameters=NoInAddrAny,NoCtldInAddrAny`` binds the daemons to the host's own
  address; ``proctrack/linuxproc`` and ``task/none`` avoid cgroups, which containers often lack.

Also usable by hand, to try ``--profile profiles/slurm`` against a live cluster::

    python tests/slurm_cluster.py /tmp/slurm-state -- snakemake --profile profiles/slurm ...
"""

from __future__ import annotations

import contextlib
import getpass
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

SLURM_CONF = Path("/etc/slurm/slurm.conf")
MARKER = "# Written by stsynth tests/slurm_cluster.py; removed when its cluster stops.\n"
MIN_JOB_AGE = 900  # > the longest test run, so squeue still lists every job of it
# Program -> the Debian package to install for it (slurm-wlm pulls slurmctld, slurmd, slurm-client).
PROGRAMS = {
    "munged": "munge",
    "munge": "munge",
    "unmunge": "munge",
    "slurmctld": "slurm-wlm",
    "slurmd": "slurm-wlm",
    "sbatch": "slurm-wlm",
    "squeue": "slurm-wlm",
    "sinfo": "slurm-wlm",
    "srun": "slurm-wlm",
    "scancel": "slurm-wlm",
    "pgrep": "procps",
}
MUNGE_SOCKET_DIR = Path("/run/munge")
DAEMONS = ("munged", "slurmctld", "slurmd", "slurmstepd")


class ClusterError(RuntimeError):
    pass


def missing_prerequisites() -> list[str]:
    """Why a cluster cannot start here (empty when it can)."""
    problems = []
    if os.geteuid() != 0:
        problems.append("must run as root (slurmd runs jobs as the submitting user and needs root)")
    missing = sorted({package for program, package in PROGRAMS.items() if shutil.which(program) is None})
    if missing:
        problems.append(
            f"missing programs of the Debian packages {' '.join(missing)} "
            f"(apt-get install --no-install-recommends {' '.join(missing)})"
        )
    if SLURM_CONF.exists() and not SLURM_CONF.read_text().startswith(MARKER):
        problems.append(
            f"{SLURM_CONF} exists and was not written by this helper; "
            "refusing to replace a real cluster's configuration"
        )
    return problems


def node_line() -> str:
    """This machine's NodeName line as slurmd detects it (CPUs, sockets, RealMemory)."""
    detected = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, check=True).stdout
    line = detected.splitlines()[0]
    if not line.startswith("NodeName="):
        raise ClusterError(f"slurmd -C printed {detected!r}, expected a NodeName= line")
    return line


def slurm_conf(state_dir: Path) -> str:
    host = socket.gethostname().split(".")[0]
    return (
        MARKER
        + f"""\
ClusterName=stsynth-test
SlurmctldHost={host}
SlurmUser=root
AuthType=auth/munge
CommunicationParameters=NoInAddrAny,NoCtldInAddrAny
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MpiDefault=none
ReturnToService=2
MinJobAge={MIN_JOB_AGE}
StateSaveLocation={state_dir}/slurmctld
SlurmdSpoolDir={state_dir}/slurmd
SlurmctldPidFile={state_dir}/slurmctld.pid
SlurmdPidFile={state_dir}/slurmd.pid
SlurmctldLogFile={state_dir}/slurmctld.log
SlurmdLogFile={state_dir}/slurmd.log
{node_line().replace(f"NodeName={socket.gethostname()}", f"NodeName={host}")} State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""
    )


def munge_works() -> bool:
    credential = subprocess.run(["munge", "-n"], capture_output=True)
    if credential.returncode != 0:
        return False
    return subprocess.run(["unmunge"], input=credential.stdout, capture_output=True).returncode == 0


def wait_for(condition, what: str, seconds: float, logs: list[Path]) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.5)
    tails = "\n".join(f"--- {p}:\n{p.read_text()[-2000:]}" for p in logs if p.exists())
    raise ClusterError(f"{what} not ready after {seconds:.0f} s\n{tails}")


def node_state() -> str:
    result = subprocess.run(["sinfo", "--noheader", "--format=%T"], capture_output=True, text=True)
    return result.stdout.strip() if result.returncode == 0 else ""


@contextlib.contextmanager
def single_node_cluster(state_dir: Path, log=print):
    """Run a one-node Slurm cluster for the duration of the with-block."""
    problems = missing_prerequisites()
    if problems:
        raise ClusterError("cannot start a Slurm cluster: " + "; ".join(problems))
    for daemon in ("slurmctld", "slurmd"):
        running = pids(daemon)
        if running:
            raise ClusterError(f"{daemon} already runs (PID {', '.join(running)}); stop it first")
    state_dir = Path(state_dir).resolve()
    for sub in ("slurmctld", "slurmd"):
        (state_dir / sub).mkdir(parents=True, exist_ok=True)
    started: list[tuple[str, subprocess.Popen]] = []
    foreign_job_steps = set(pids("slurmstepd"))
    wrote_conf = False
    # A SIGTERM (CI timeout, `timeout`) must still run the clean-up below, as Ctrl-C does.
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous_sigterm = signal.signal(signal.SIGTERM, _raise_keyboard_interrupt) if in_main_thread else None
    try:
        if not munge_works():
            MUNGE_SOCKET_DIR.mkdir(mode=0o755, exist_ok=True)
            shutil.chown(MUNGE_SOCKET_DIR, "munge", "munge")
            for directory in (Path("/var/log/munge"), Path("/var/lib/munge")):
                directory.mkdir(mode=0o700, exist_ok=True)
                shutil.chown(directory, "munge", "munge")
            started.append(("munged", _spawn(["munged", "--foreground"], state_dir / "munged.out", user="munge")))
            wait_for(munge_works, "munged", 30, [state_dir / "munged.out", Path("/var/log/munge/munged.log")])
        SLURM_CONF.parent.mkdir(parents=True, exist_ok=True)
        SLURM_CONF.write_text(slurm_conf(state_dir))
        wrote_conf = True
        logs = [
            state_dir / "slurmctld.log",
            state_dir / "slurmd.log",
            state_dir / "slurmctld.out",
            state_dir / "slurmd.out",
        ]
        started.append(("slurmctld", _spawn(["slurmctld", "-D", "-i"], state_dir / "slurmctld.out")))
        started.append(("slurmd", _spawn(["slurmd", "-D"], state_dir / "slurmd.out")))
        wait_for(lambda: node_state() == "idle", "Slurm node (sinfo state idle)", 60, logs)
        log(f"Slurm cluster up: {', '.join(f'{name} PID {p.pid}' for name, p in started)}; state in {state_dir}")
        yield state_dir
    finally:
        try:
            if any(name == "slurmctld" for name, _ in started):
                _cancel_jobs(log)
            for name, process in reversed(started):
                _stop(name, process, log)
            # slurmd does not take running job steps down with it; anything left is ours.
            for pid in set(pids("slurmstepd")) - foreign_job_steps:
                log(f"killing leftover slurmstepd PID {pid}")
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(pid), signal.SIGKILL)
            if wrote_conf:
                SLURM_CONF.unlink(missing_ok=True)
        finally:
            if in_main_thread:
                signal.signal(signal.SIGTERM, previous_sigterm)


def pids(program: str) -> list[str]:
    """PIDs of running processes named exactly ``program``."""
    return subprocess.run(["pgrep", "-x", program], capture_output=True, text=True).stdout.split()


def _raise_keyboard_interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def _cancel_jobs(log) -> None:
    """Cancel every job of this throwaway cluster and give slurmd a moment to reap their steps."""
    subprocess.run(["scancel", "--user", getpass.getuser()], capture_output=True, timeout=30)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        active = subprocess.run(
            ["squeue", "--noheader", "--states=PENDING,RUNNING,COMPLETING", "--format=%i"],
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout.split()
        if not active:
            return
        time.sleep(0.5)
    log(f"jobs {', '.join(active)} still active after scancel")


def _spawn(command: list[str], output: Path, user: str | None = None) -> subprocess.Popen:
    with open(output, "wb") as sink:
        # Own session: a Ctrl-C in the terminal reaches the test, which then stops the daemons in order.
        return subprocess.Popen(
            command,
            stdout=sink,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            user=user,
            group=user,
            extra_groups=[] if user else None,
        )


def _stop(name: str, process: subprocess.Popen, log) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
    log(f"stopped {name} (PID {process.pid}, exit {process.returncode})")


def main(argv: list[str]) -> int:
    if "--" not in argv or argv.index("--") != 1:
        print(f"usage: {Path(__file__).name} STATE_DIR -- COMMAND [ARGS...]", file=sys.stderr)
        return 2
    with single_node_cluster(Path(argv[0])):
        return subprocess.run(argv[2:]).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
