#!/usr/bin/env bash
# A real Slurm job array runs a sharded sweep: `selfdx sweep --shard auto` in every array task,
# the logs on one store (an S3 server, moto's, on 127.0.0.1; a local folder where moto is not
# installed), and `selfdx report` over the store must give the figures of an unsharded run.
#
# As root on Debian: installs Slurm and MUNGE from the distribution's packages when they are
# missing, writes a one-node cluster for this machine into a temporary folder (nothing in /etc),
# starts munged, slurmctld and slurmd, submits two arrays (ids from 0 with --shard auto, ids from
# 1 with --shard auto/n), waits for them (bounded), runs the sweep unsharded, compares the
# reports, and stops what it started. Exit 77: Slurm cannot be installed or run here (not root,
# no apt-get), so there is nothing to test. Every wait is bounded; the whole run takes about two
# minutes on 2 cores (docs/performance.md).
#
#   .ci/slurm_array.sh [SHARDS]      (default 3; PYTHON names the interpreter, default python3)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
shards=${1:-3}
python=${PYTHON:-python3}
job_timeout=${SLURM_TEST_JOB_TIMEOUT:-200} # seconds for both arrays to finish (60 s here)
started=$SECONDS

say() { echo "slurm_array: $*"; }
skip() {
    say "skipped: $*"
    exit 77
}

# --- Slurm and MUNGE from Debian's packages -------------------------------------------------------
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
    [ "$(id -u)" = 0 ] || skip "Slurm is not installed and installing it needs root"
    command -v apt-get >/dev/null || skip "Slurm is not installed and there is no apt-get"
    say "installing slurm-wlm and munge"
    timeout 600 bash -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null' \
        || skip "apt-get could not install slurm-wlm and munge"
fi
[ "$(id -u)" = 0 ] || skip "starting slurmd needs root"

work=$(mktemp -d /tmp/selfdx-slurm.XXXXXX)
chmod 755 "$work"
pids=()
jobs=()
cleanup() {
    local status=$?
    if [ ${#jobs[@]} -gt 0 ]; then # array tasks still running are cancelled, for 20 s at most
        scancel "${jobs[@]}" 2>/dev/null || true
        for _ in $(seq 40); do
            [ -z "$(squeue -h -j "$(IFS=,; echo "${jobs[*]}")" -o %i 2>/dev/null)" ] && break
            sleep 0.5
        done
    fi
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do # each given 10 s to stop, then killed
        for _ in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.2
        done
        kill -9 "$pid" 2>/dev/null || true
    done
    if [ "$status" != 0 ] && [ "$status" != 77 ]; then
        for log in "$work"/*.log "$work"/out/*; do
            [ -f "$log" ] && { echo "--- $log"; tail -n 40 "$log"; }
        done
    fi
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT

# bounded SECONDS COMMAND...: run COMMAND with a time limit, in the background so that a signal
# to this script (CI's time limit) stops it at once and the cleanup above still runs
bounded() {
    timeout "$@" &
    pids+=($!)
    wait $!
}

# wait_for SECONDS WHAT COMMAND...: run COMMAND every half second until it succeeds
wait_for() {
    local limit=$1 what=$2
    shift 2
    local deadline=$((SECONDS + limit))
    until "$@" >/dev/null 2>&1; do
        [ $SECONDS -lt $deadline ] || {
            say "error: $what after ${limit} s"
            return 1
        }
        sleep 0.5
    done
}

# --- MUNGE: a fresh key and a daemon with its socket in $work -------------------------------------
mkdir -p "$work/munge"
chmod 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --foreground --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.sock" \
    --pid-file="$work/munge/munged.pid" --seed-file="$work/munge/seed" \
    --log-file="$work/munged.log" >>"$work/munged.log" 2>&1 &
pids+=($!)
wait_for 15 "munged did not start" munge --socket="$work/munge/munge.sock" --no-input

# --- A one-node cluster: this machine, its CPUs and memory ----------------------------------------
host=$(hostname -s)
cpus=$(nproc)
memory=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$work/state" "$work/spool"
export SLURM_CONF="$work/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=selfdx-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/munge.sock
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=30 State=UP OverSubscribe=FORCE:$shards
EOF
slurmctld -D -i >>"$work/slurmctld.log" 2>&1 &
pids+=($!)
slurmd -D >>"$work/slurmd.log" 2>&1 &
pids+=($!)
node_idle() { sinfo -h -n "$host" -o %t | grep -qx idle; }
wait_for 60 "the node did not come up idle" node_idle
say "slurmctld and slurmd up on $host ($cpus CPUs, $memory MB) after $((SECONDS - started)) s"

# --- The store every array task writes to ---------------------------------------------------------
if "$python" -c 'import moto.server, s3fs' 2>/dev/null; then
    s3_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "$python" -m moto.server -H 127.0.0.1 -p "$s3_port" >"$work/moto.log" 2>&1 &
    pids+=($!)
    export AWS_ACCESS_KEY_ID=selfdx-slurm-test AWS_SECRET_ACCESS_KEY=selfdx-slurm-test-secret
    export AWS_DEFAULT_REGION=us-east-1 AWS_ENDPOINT_URL="http://127.0.0.1:$s3_port"
    wait_for 30 "the S3 server did not answer" "$python" -c \
        'import os, urllib.request; urllib.request.urlopen(os.environ["AWS_ENDPOINT_URL"], timeout=2)'
    "$python" -c 'import s3fs; s3fs.S3FileSystem().mkdir("selfdx-slurm")'
    store=s3://selfdx-slurm/sweep
else
    store=$work/store
    say "moto or s3fs is not installed: the store is the local folder $store"
fi

# --- Two arrays, one shard of the sweep per task ---------------------------------------------------
# One numbered from 0 with --shard auto (n from the array), one from 1 with --shard auto/n: both
# must run the shards 1..n, each array into its own folder of the store.
sweep=("$python" -m selfdx.cli sweep --models selfdx/keyword,selfdx/cautious
    --strategies full_info_no_abstention,sequential_info_abstention_aware,structured_actions
    --grader selfdx/rules-judge --limit 3 --display none)
mkdir -p "$work/out"
submit() { # submit FIRST SHARD_VALUE FOLDER: the array FIRST..FIRST+shards-1; prints its job id
    local first=$1 value=$2 folder=$3
    {
        echo '#!/usr/bin/env bash'
        echo 'set -euo pipefail'
        echo "cd $(printf %q "$repo")"
        echo "exec $(printf '%q ' "${sweep[@]}")--log-dir $(printf %q "$folder") --shard $value"
    } >"$work/shard-from-$first.sh"
    sbatch --parsable --array="$first-$((first + shards - 1))" --cpus-per-task=1 --time=10 \
        --output="$work/out/from-$first-%a.out" "$work/shard-from-$first.sh"
}
jobs=("$(submit 0 auto "$store/from-0")" "$(submit 1 "auto/$shards" "$store/from-1")")
say "submitted the job arrays ${jobs[0]} (ids 0-$((shards - 1)), --shard auto) and ${jobs[1]} (ids 1-$shards, --shard auto/$shards)"
arrays_done() { [ -z "$(squeue -h -j "${jobs[0]},${jobs[1]}" -o %i)" ]; }
wait_for "$job_timeout" "the job arrays ${jobs[*]} were still running" arrays_done
say "the job arrays finished after $((SECONDS - started)) s"
failed=0
for k in 0 1; do
    for ((id = k; id < k + shards; id++)); do
        line=$(scontrol -o show job "${jobs[$k]}_$id")
        state=$(grep -o 'JobState=[A-Z_]*' <<<"$line" | head -1)
        code=$(grep -o ' ExitCode=[0-9:]*' <<<"$line" | head -1)
        said=$(grep -o 'shard [0-9]*/[0-9]* (from [^)]*)' "$work/out/from-$k-$id.out" || echo 'no shard line')
        say "array ${jobs[$k]} task $id: $state$code; $said"
        [ "$state" = JobState=COMPLETED ] || failed=1
        # a task of an array from 0 runs shard id+1; of an array from 1, shard id
        [ "${said%% (*}" = "shard $((id - k + 1))/$shards" ] || failed=1
    done
done
[ "$failed" = 0 ] || {
    say "error: an array task did not complete, or ran another shard than its id gives"
    exit 1
}

# --- The reports over the store equal an unsharded run's -----------------------------------------
bounded 300 "${sweep[@]}" --log-dir "$work/whole"
say "the unsharded run finished after $((SECONDS - started)) s"
cat >"$work/compare.py" <<'EOF'
import sys
from pathlib import Path

import pandas as pd
from inspect_ai.log import list_eval_logs, read_eval_log

from selfdx.analysis.report import build_report

store, whole, work, shards = sys.argv[1], sys.argv[2], Path(sys.argv[3]), int(sys.argv[4])


def tasks(folder):
    """(shard folder, model, strategy) of every log under `folder`, all finished."""
    found = []
    for info in list_eval_logs(folder, recursive=True):
        header = read_eval_log(info.name, header_only=True)
        assert header.status == "success", info.name
        shard = info.name.split("/")[-2]
        found.append((shard, header.eval.model, header.eval.task_args["strategy"]))
    return found


def table(folder, name):
    out = build_report(folder, work / f"report-{name}", progress=False)
    found = pd.read_csv(out / "safe_psych_metrics.csv")
    # the logs a row pools are other files in the two stores; every figure must be the same
    found = found.drop(columns=["logs", "log_viewer"])
    return found.sort_values(["model", "variant", "metric"]).reset_index(drop=True)


whole_pairs = sorted((model, strategy) for _, model, strategy in tasks(whole))
expected = [f"shard-{i}-of-{shards}" for i in range(1, shards + 1)]
unsharded = table(whole, "whole")
for first in (0, 1):
    folder = f"{store}/from-{first}"
    sharded = tasks(folder)
    pairs = sorted((model, strategy) for _, model, strategy in sharded)
    assert pairs == whole_pairs, (folder, pairs)  # every task once, none twice
    assert sorted({shard for shard, _, _ in sharded}) == expected, (folder, sharded)
    pd.testing.assert_frame_equal(table(folder, f"from-{first}"), unsharded)
    print(
        f"slurm_array: the report over {folder} equals the unsharded run's "
        f"({len(unsharded)} rows, {len(pairs)} tasks in {shards} shards)"
    )
EOF
bounded 300 "$python" "$work/compare.py" "$store" "$work/whole" "$work" "$shards"
say "passed in $((SECONDS - started)) s"
