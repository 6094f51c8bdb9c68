"""Sample shards of one task (`selfdx sweep --shard i/n --split samples`) and `selfdx merge`.

Three shard processes given one command run every sample of each task once, in
`LOG_DIR/<task>.shards/<i>/`; the merged log equals the task run in one go (the run's own
metrics, computed by Inspect while it ran, are the expected values): the same samples and
scores, every metric with its standard error and interval, the same token usage. Shards that
do not belong together are refused in one line naming the file and the field."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log, recompute_metrics, write_eval_log

from selfdx.analysis.merge import merge_log_dir
from selfdx.cli import main
from selfdx.errors import ArgumentError, SelfdxError
from selfdx.sample_shards import run_sample_sweep, task_key
from selfdx.shard_layout import (
    ids_digest,
    merged_location,
    sample_share,
    shard_place,
    share_size,
)
from tests.conftest import SHARED, assert_same_run

STEP_TIMEOUT = 600  # seconds for one command
SWEEP = [sys.executable, "-m", "selfdx.cli", "sweep", "--display", "none"]
RESOURCES = SHARED / "mentalbench" / "resources"


def test_the_shares_are_disjoint_cover_the_task_and_interleave_back():
    ids = [f"s{n}" for n in range(11)]
    shares = [sample_share(ids, (i, 3)) for i in (1, 2, 3)]
    assert [len(share) for share in shares] == [share_size(i, 3, 11) for i in (1, 2, 3)]
    assert [len(share) for share in shares] == [4, 4, 3]
    assert sorted(sum(shares, [])) == sorted(ids)  # every id once
    # position p is in shard p % n + 1 at place p // n: the merge's rule for the dataset order
    assert [shares[p % 3][p // 3] for p in range(11)] == ids
    assert sample_share(ids[:2], (3, 3)) == [] and share_size(3, 3, 2) == 0
    assert ids_digest([1, 2]) != ids_digest(["1", "2"]) != ids_digest(["2", "1"])
    assert task_key("mentalbench", 4, "openai/gpt-5.4") == "mentalbench-types-4_openai-gpt-5.4"
    assert task_key("safe_psych", "structured_actions", "selfdx/keyword") == (
        "safe_psych-structured_actions_selfdx-keyword"
    )
    log = "s3://b/x/mentalbench-types-4_m.shards/2/2026_mentalbench_abc.eval"
    assert shard_place(log) == ("s3://b/x/mentalbench-types-4_m.shards", "2")
    assert merged_location(shard_place(log)[0]) == "s3://b/x/mentalbench-types-4_m.eval"
    assert shard_place("s3://b/x/run/2026_mentalbench_abc.eval") is None
    assert shard_place("/x/.shards/1/a.eval") is None


def test_a_sample_split_needs_a_shard_and_takes_no_sample_ids(tmp_path, capsys):
    assert main(["sweep", "--models", "selfdx/keyword", "--log-dir", str(tmp_path),
                 "--split", "samples"]) == 2  # fmt: skip
    assert "--split samples: give --shard i/n" in capsys.readouterr().err
    with pytest.raises(ArgumentError, match="sample_id: --split samples chooses"):
        run_sample_sweep(
            ["selfdx/keyword"], str(tmp_path), (1, 2), benchmark="mentalbench", sample_id=["a"]
        )
    with pytest.raises(ArgumentError, match="'grader' role"):
        run_sample_sweep(["selfdx/keyword"], str(tmp_path), (1, 2))
    with pytest.raises(ArgumentError, match="listed more than once"):
        run_sample_sweep(["selfdx/keyword", "selfdx/keyword"], str(tmp_path), (1, 2))
    assert not any(tmp_path.iterdir())


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    """Three sample shards of MentalBench's demo Type 4 (8 items: 3, 3 and 2), run in this
    process; and the folder of the unsharded run."""
    root = tmp_path_factory.mktemp("shards")
    options = dict(benchmark="mentalbench", variants=[4], display="none")
    for i in (1, 2, 3):
        assert run_sample_sweep(["selfdx/first-option"], str(root / "store"), (i, 3), **options)
    return root / "store"


def copy_of(store: Path, tmp_path: Path) -> Path:
    import shutil

    copy = tmp_path / "store"
    shutil.copytree(store, copy)
    return copy


def shard_log(store: Path, index: int) -> Path:
    (log,) = (store / "mentalbench-types-4_selfdx-first-option.shards" / str(index)).glob("*.eval")
    return log


def test_shards_merge_into_one_log_the_report_reads(shards, tmp_path):
    store = copy_of(shards, tmp_path)
    ((location, header),) = merge_log_dir(str(store))
    assert location == str(store / "mentalbench-types-4_selfdx-first-option.eval")
    merged = read_eval_log(location)
    assert merged.status == "success" and len(merged.samples) == 8
    assert [entry.shard for entry in merged.eval.shards.ledger] == ["1", "2", "3"]
    assert [entry.samples for entry in merged.eval.shards.ledger] == [3, 3, 2]
    assert "selfdx_shard" not in merged.eval.metadata and merged.eval.config.sample_id is None
    # accuracy is the share of items scored correct, counted here from the samples
    correct = [s.scores["mentalbench_scorer"].value["accuracy"] for s in merged.samples]
    assert merged.results.scores[0].metrics["accuracy"].value == sum(correct) / 8
    # merging again gives the same log
    again = merge_log_dir(str(store))[0][1]
    assert again.eval.eval_id == header.eval.eval_id
    assert again.results.model_dump() == header.results.model_dump()

    from selfdx.analysis.logs import find_runs

    runs, skipped = find_runs(store)
    assert [run.path.removeprefix("file://") for run in runs] == [location]
    assert len(skipped) == 3 and all("a sample shard of" in why for _, why in skipped)


def test_an_export_reads_the_merged_log_not_the_shards(shards, tmp_path, capsys):
    import json

    store = copy_of(shards, tmp_path)
    merge_log_dir(str(store))
    assert main(["export", "mentalbench", str(store), "--out", str(tmp_path / "out")]) == 0
    assert f"{store}: left out 3 logs of sample shards" in capsys.readouterr().err
    files = list((tmp_path / "out").rglob("*_main_*.json"))
    # Type 4a and 4b items share their keys, in a_main_ and b_main_ files
    items = [(p.name, k) for p in files for k in json.loads(p.read_text(encoding="utf-8"))]
    assert len(items) == len(set(items)) == 8  # each item once


def test_unmerged_shards_are_left_out_of_the_report_with_the_command(shards, tmp_path):
    from selfdx.analysis.logs import find_runs

    runs, skipped = find_runs(shards)
    assert runs == [] and len(skipped) == 3
    assert all(f"run `selfdx merge {shards}`" in why for _, why in skipped)


def rewrite(path: Path, change) -> None:
    log = read_eval_log(str(path))
    change(log)
    write_eval_log(log, str(path))


def refused(store: Path, capsys) -> str:
    assert main(["merge", str(store)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("selfdx: error: "), err
    assert not list(store.glob("*.eval")), "a merged log was written"
    return err


@pytest.mark.parametrize(
    ("field", "change"),
    [
        ("eval.task_args", lambda log: log.eval.task_args.update(parser="reference")),
        ("eval.model", lambda log: setattr(log.eval, "model", "selfdx/keyword")),
        ("eval.task_version", lambda log: setattr(log.eval, "task_version", "2-A")),
        ("eval.packages", lambda log: log.eval.packages.update(inspect_ai="0.3.1")),
    ],
)
def test_shards_of_different_commands_are_refused(shards, tmp_path, capsys, field, change):
    store = copy_of(shards, tmp_path)
    rewrite(shard_log(store, 2), change)
    err = refused(store, capsys)
    assert f"{shard_log(store, 2)}: {field} differs from shard 1's" in err


def test_missing_unfinished_and_overlapping_shards_are_refused(shards, tmp_path, capsys):
    store = copy_of(shards, tmp_path)
    folder = store / "mentalbench-types-4_selfdx-first-option.shards"
    two = shard_log(store, 2)
    saved = two.read_bytes()
    two.unlink()
    assert f"{folder / '2'}: shard 2 of 3 holds no log" in refused(store, capsys)
    two.write_bytes(saved)

    rewrite(two, lambda log: setattr(log, "status", "started"))
    assert "status started: shard 2 has not finished" in refused(store, capsys)
    two.write_bytes(saved)

    first_id = read_eval_log(str(shard_log(store, 1)), header_only=True).eval.dataset.sample_ids[0]
    rewrite(two, lambda log: log.eval.dataset.sample_ids.__setitem__(0, first_id))
    assert f"sample {first_id!r} is run by shard 1 too" in refused(store, capsys)
    two.write_bytes(saved)

    rewrite(two, lambda log: log.samples.pop())
    assert f"{two}: samples: the log misses sample" in refused(store, capsys)
    two.write_bytes(saved)

    def foreign(log):  # shard 1's first sample, copied into shard 2's log
        log.samples.append(log.samples[0].model_copy(update={"id": first_id}))

    rewrite(two, foreign)
    assert f"{two}: samples: the log holds sample {first_id!r} (epoch 1), not its share's" in (
        refused(store, capsys)
    )
    two.write_bytes(saved)

    rewrite(two, lambda log: log.eval.metadata.pop("selfdx_shard"))
    assert f"{two}: eval.metadata.selfdx_shard: missing" in refused(store, capsys)
    two.write_bytes(saved)

    with pytest.raises(SelfdxError, match="holds no sample shards"):
        merge_log_dir(str(tmp_path / "nothing-here"))


def run(*args: str, cwd: Path | None = None, env: dict | None = None):
    return subprocess.run(
        [*args], cwd=cwd, env=env, capture_output=True, text=True, timeout=STEP_TIMEOUT
    )


def three_shards(command: list[str], store: str, env: dict | None = None, cwd=None) -> None:
    """The three shards of `command` at once, as three machines would run them."""
    shards = [
        subprocess.Popen(
            [*command, "--log-dir", store, "--shard", f"{i}/3", "--split", "samples"],
            env=env,
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in (1, 2, 3)
    ]
    for shard in shards:
        _, err = shard.communicate(timeout=STEP_TIMEOUT)
        assert shard.returncode == 0, err[-2000:]


def logs_by_types(folder: str) -> dict[str, object]:
    """types argument -> the full log of each finished run directly under `folder`."""
    found = {}
    for info in list_eval_logs(folder, recursive=True):
        if shard_place(info.name) is None:
            log = read_eval_log(info.name)
            found[str(log.eval.task_args["types"])] = log
    return found


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    [
        ["--benchmark", "mentalbench", "--types", "1,2,3,4", "--models", "selfdx/first-option"],
        ["--benchmark", "interview", "--types", "1,2,3", "--models", "selfdx/kg-interviewer"],
    ],
    ids=["mentalbench", "interview"],
)
def test_three_sample_shards_merged_equal_the_whole_run(tmp_path, command):
    store, whole = str(tmp_path / "store"), str(tmp_path / "whole")
    three_shards([*SWEEP, *command], store)
    # a rerun of a shard resumes it: its tasks are done, nothing runs again
    before = sorted(p.name for p in Path(store).rglob("*.eval"))
    again = run(*SWEEP, *command, "--log-dir", store, "--shard", "2/3", "--split", "samples")
    assert again.returncode == 0, again.stderr[-2000:]
    assert sorted(p.name for p in Path(store).rglob("*.eval")) == before
    merged = run(sys.executable, "-m", "selfdx.cli", "merge", store)
    assert merged.returncode == 0, merged.stderr[-2000:]
    assert merged.stdout.count("from 3 shards, status success") == len(command[3].split(","))
    done = run(*SWEEP, *command, "--log-dir", whole)
    assert done.returncode == 0, done.stderr[-2000:]
    merged_logs, whole_logs = logs_by_types(store), logs_by_types(whole)
    assert sorted(merged_logs) == sorted(whole_logs) == command[3].split(",")
    for types, log in whole_logs.items():
        assert_same_run(log, merged_logs[types])
    # and the report's tables (its own bootstrap over the samples) are the same
    import pandas as pd

    from selfdx.analysis.report import build_report

    tables = []
    for folder in (store, whole):
        out = build_report(folder, tmp_path / f"report-{Path(folder).name}", progress=False)
        table = pd.read_csv(out / f"{command[1]}_metrics.csv").drop(columns=["logs", "log_viewer"])
        tables.append(table.sort_values(list(table.columns[:4])).reset_index(drop=True))
    pd.testing.assert_frame_equal(tables[0], tables[1])


@pytest.mark.slow
def test_an_empty_share_says_so_in_one_line(tmp_path):
    store = str(tmp_path / "store")
    command = [*SWEEP, "--benchmark", "mentalbench", "--types", "1", "--models",
               "selfdx/first-option", "--limit", "2", "--log-dir", store]  # fmt: skip
    done = run(*command, "--shard", "3/3", "--split", "samples")
    assert done.returncode == 0
    lines = [line for line in done.stderr.splitlines() if "selfdx: warning" in line]
    assert lines == [
        "selfdx: warning: shard 3/3: mentalbench-types-1_selfdx-first-option has 2 samples "
        "and none falls to this shard; nothing was run for it"
    ]
    assert not Path(store).exists()
    for i in (1, 2):
        assert run(*command, "--shard", f"{i}/3", "--split", "samples").returncode == 0
    merged = run(sys.executable, "-m", "selfdx.cli", "merge", store)
    assert merged.returncode == 0, merged.stderr
    assert "2 samples from 2 shards, status success" in merged.stdout
    (log,) = logs_by_types(store).values()
    assert log.eval.config.limit == 2
    whole = run(*command.__getitem__(slice(0, -1)), str(tmp_path / "whole"))
    assert whole.returncode == 0, whole.stderr[-2000:]
    (expected,) = logs_by_types(str(tmp_path / "whole")).values()
    assert_same_run(expected, log)


@pytest.mark.slow
@pytest.mark.skipif(not RESOURCES.is_dir(), reason="needs the MentalBench resources in shared/")
def test_merged_intervals_follow_the_dataset_order_on_published_items(tmp_path):
    """240 published Type 1 items (seed profiles clustered): the merged log's interval equals
    the whole run's, and would not if the samples were merged in another order."""
    command = [*SWEEP, "--benchmark", "mentalbench", "--types", "1", "--models",
               "selfdx/first-option", "--data", str(RESOURCES), "--limit", "240"]  # fmt: skip
    store = str(tmp_path / "store")
    three_shards(command, store)
    assert run(sys.executable, "-m", "selfdx.cli", "merge", store).returncode == 0
    assert run(*command, "--log-dir", str(tmp_path / "whole")).returncode == 0
    (merged,) = logs_by_types(store).values()
    (whole,) = logs_by_types(str(tmp_path / "whole")).values()
    assert_same_run(whole, merged)
    shuffled = merged.model_copy(deep=True)
    shuffled.samples.sort(key=lambda s: str(s.id)[::-1])
    recompute_metrics(shuffled)
    metrics = whole.results.scores[0].metrics
    other = shuffled.results.scores[0].metrics
    assert other["accuracy"].value == pytest.approx(metrics["accuracy"].value)
    assert (other["accuracy_ci_lower"].value, other["accuracy_ci_upper"].value) != (
        metrics["accuracy_ci_lower"].value,
        metrics["accuracy_ci_upper"].value,
    )


@pytest.mark.slow
def test_epochs_merge_like_a_run_with_epochs(tmp_path):
    """Two epochs (from Python: `eval_set` arguments pass through): each (sample, epoch) once,
    the epoch reductions and the metrics over them as in the run in one go."""
    from inspect_ai import eval

    from selfdx.inspect_tasks.mentalbench import mentalbench

    store = str(tmp_path / "store")
    for i in (1, 2, 3):
        assert run_sample_sweep(["selfdx/first-option"], store, (i, 3), benchmark="mentalbench",
                                variants=[4], epochs=2, display="none")  # fmt: skip
    ((location, _),) = merge_log_dir(store)
    merged = read_eval_log(location)
    (whole,) = eval(mentalbench(types=4), model="selfdx/first-option", epochs=2,
                    log_dir=str(tmp_path / "whole"), display="none")  # fmt: skip
    whole = read_eval_log(whole.location)
    assert len(merged.samples) == 16
    assert_same_run(whole, merged)
    assert [r.model_dump() for r in merged.reductions] == [r.model_dump() for r in whole.reductions]


def test_a_shard_moved_out_of_its_folder_is_never_a_run(shards, tmp_path):
    """A shard's log copied beside the others (or gathered flat) is left out, by what its log
    records, not reported as a run with a projection of its own."""
    import shutil

    from selfdx.analysis.logs import find_runs

    for index in (1, 2, 3):
        shutil.copy(shard_log(shards, index), tmp_path / f"shard-{index}.eval")
    runs, skipped = find_runs(tmp_path)
    assert runs == [] and len(skipped) == 3
    assert all("outside its task's `.shards/` folder" in why for _, why in skipped)
