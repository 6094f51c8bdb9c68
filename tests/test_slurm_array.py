"""A real Slurm job array runs `selfdx sweep --shard auto`: `.ci/slurm_array.sh` starts a one-node
cluster (installing Debian's slurm-wlm and munge first where they are missing), submits two
arrays (ids from 0 and from 1) over a local S3 store, and checks that the report over the store
equals an unsharded run's. It needs Slurm, or root and apt-get to install it; elsewhere it is
skipped, saying which."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from importlib.util import find_spec

import pytest

from tests.conftest import REPO_ROOT

SCRIPT = REPO_ROOT / ".ci" / "slurm_array.sh"
TIMEOUT = 900  # seconds: an install from apt (about 20 s here) and the run (about 110 s)
CANNOT_RUN = 77  # the script's exit status when Slurm cannot be installed or started here


def why_slurm_cannot_run() -> str | None:
    installed = all(shutil.which(name) for name in ("slurmctld", "slurmd", "munged", "sbatch"))
    if os.name != "posix" or not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "starting slurmd (and installing Slurm) needs root"
    if not installed and shutil.which("apt-get") is None:
        return "Slurm is not installed and there is no apt-get to install slurm-wlm and munge"
    return None


def has_local_s3() -> bool:
    return find_spec("moto") is not None and find_spec("s3fs") is not None


@pytest.mark.slow
@pytest.mark.timeout(TIMEOUT + 60)
@pytest.mark.skipif(why_slurm_cannot_run() is not None, reason=str(why_slurm_cannot_run()))
def test_a_slurm_job_array_runs_the_sharded_sweep():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "AWS_"))}
    done = subprocess.run(
        ["bash", str(SCRIPT), "3"],
        env={**env, "PYTHON": sys.executable},
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    said = (done.stdout + done.stderr)[-6000:]
    if done.returncode == CANNOT_RUN:
        pytest.skip(done.stdout.strip().splitlines()[-1])
    assert done.returncode == 0, said
    # the store is the local S3 server where moto and s3fs are installed (the dev extra has them)
    store = "s3://selfdx-slurm/sweep" if has_local_s3() else r"\S+"
    for first in (0, 1):
        found = rf"the report over {store}/from-{first} equals the unsharded run's"
        assert re.search(found, done.stdout), said
    for task in (0, 1, 2):  # an array from 0: id 0 is shard 1
        assert f"task {task}: JobState=COMPLETED ExitCode=0:0; shard {task + 1}/3" in done.stdout
