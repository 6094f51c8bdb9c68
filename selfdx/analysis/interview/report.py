"""`selfdx/interview` in `selfdx report`, and `selfdx export interview` (transcripts).

Report section: every metric per configuration (model x mode x types) with 95% intervals, the
same by type; the static-interactive gap (accuracy with the whole profile, after the interview
and from the opening alone, for each model and case set run in all three modes); accuracy by
fact recall at the answer; and two figures (accuracy by mode; accuracy against fact recall).

Export: `transcripts.jsonl` (one JSON object per case: identifiers, answer, scores, and every
turn with the question, what the patient said and what the interviewer was shown, the ids
revealed and the leaks) and `transcripts.md` (the same, readable).
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Collection
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from inspect_ai.log import EvalSample

from selfdx.analysis.figures import (
    CATEGORY,
    PANEL_HEIGHT,
    Figure,
    category_bar,
    label_ticks,
    legend_below,
    model_styles,
    save,
    subplots,
)
from selfdx.analysis.logs import ConfigKey, Run, read_samples, score_values
from selfdx.analysis.metric_table import MetricAccumulator
from selfdx.analysis.outputs import finish, json_safe, start_export
from selfdx.analysis.statistics import bootstrap_interval, case_means, paired_mode_gap
from selfdx.datasets.interview.dsm5_flags import UNFLAGGED
from selfdx.datasets.interview.styles import STYLES
from selfdx.errors import SelfdxError
from selfdx.run_facts import interview_variant, styles_of
from selfdx.scorers.interview.metrics import COUNT_KEYS
from selfdx.scorers.interview.risk_handling import KEYS as RISK_HANDLING
from selfdx.scorers.interview.risk_handling import RISK_FACTS, risk_groups
from selfdx.solvers.interview.solver import DEFAULT_PATIENT

SCORER = "interview_scorer"
MODE_ORDER = ("full", "interview", "initial")  # as the figure and table show them
MODE_COLOURS = {
    "full": CATEGORY["blue"],
    "interview": CATEGORY["mint"],
    "initial": CATEGORY["yellow"],
}
RECALL_BINS = (0.0, 0.25, 0.5, 0.75, 1.0001)
METRIC_GROUPS = {
    "Diagnosis": [
        "accuracy",
        "criteria_call",
        "criteria_unsure",
        "premature",
        "invalid_answer",
        "no_answer",
        "declined",
    ],
    "Eliciting": ["questions", "fact_recall", "critical_recall"],
    "Risk": [
        "risk_asked",
        "risk_found",
        "risk_level_found",
        "risk_responded",
        "risk_handled",
        "risk_not_alarmed",
        "accuracy_with_risk",
        "accuracy_without_risk",
    ],
    "Patient": ["patient_leaks", "patient_volunteered", "patient_contradictions", "excluded"],
}
TYPE_LABELS = {"1": "Type 1", "2": "Type 2", "3": "Type 3", "4a": "Type 4a", "4b": "Type 4b"}


class CaseResult(NamedTuple):
    """One case of one run, for the paired gap and the patient comparison."""

    case: str
    cluster: object
    mode: str
    patient: str  # the interview's patient model; "" in full and initial mode
    correct: float
    recall: float
    risk: tuple[float, ...] = ()  # the values of POOLED_RISK, in its order


# What the patient comparison pools over patient models beside accuracy and fact recall: the
# risk measures, screening and the response to a disclosure included, since how far a patient
# model lets the interviewer screen it and what it discloses move them too.
POOLED_RISK = (
    "risk_asked",
    "risk_level_found",
    "risk_responded",
    "risk_handled",
    "risk_not_alarmed",
)


def interval_text(low: float, high: float) -> str:
    """`[low, high]` to three places, or `-` when there is no interval."""
    if math.isnan(low) or math.isnan(high):
        return "-"
    return f"[{low:.3f}, {high:.3f}]"


def without_mode(variant: str) -> str:
    return variant.split(", ", 1)[1] if ", " in variant else ""


class InterviewCollector:
    """Accumulates interview samples from many runs."""

    benchmark = "interview"

    def __init__(self) -> None:
        self.metrics = MetricAccumulator(ranges=dict.fromkeys(COUNT_KEYS, (0.0, math.inf)))
        self.modes: dict[ConfigKey, str] = {}
        # interview-mode configs: fact-recall bin -> [correct, cases]
        self.recall: dict[ConfigKey, dict[int, list[float]]] = defaultdict(
            lambda: defaultdict(lambda: [0.0, 0.0])
        )
        # (model, cases run, judge, dataset) -> every case's result in each mode and patient
        self.paired: dict[tuple[str, ...], list[CaseResult]] = defaultdict(list)
        # (model, variant without the style, judge, data source) -> patient style -> case ->
        # its results (one per epoch): runs of one style each pair up with the plain run by case
        self.styles: dict[tuple[str, ...], dict[str, dict[str, list[float]]]] = defaultdict(
            lambda: defaultdict(lambda: defaultdict(list))
        )

    def add(self, run: Run, sample: EvalSample) -> None:
        values = score_values(sample, SCORER)
        if not values:
            return
        meta = sample.metadata or {}
        cluster = meta.get("seed_group", sample.id)
        variant = str(meta.get("variant", ""))
        style = str(meta.get("patient_style", "plain"))
        groups: list[str | None] = [None]
        if variant in TYPE_LABELS:
            groups.append(TYPE_LABELS[variant])
        if style != "plain" or len(styles_of(run.task_args)) > 1:
            groups.append(f"patient {style}")
        if not run.is_demo and not meta.get("dsm5_flags"):
            groups.append(UNFLAGGED)  # the figures without profiles a clinician would dispute
        correct = values.get("accuracy", math.nan)
        mode = str(run.task_args["mode"])
        if not math.isnan(correct) and mode == "interview":
            # the same model and cases, any patient style: one row of the styles table
            base = interview_variant(run.task_args, run.changed_args, with_style=False)
            by_case = self.styles[(run.model, base, run.judge or "", run.data_source)][style]
            by_case[str(sample.id).rsplit("@", 1)[0]].append(correct)
        for group in groups:
            for name, value in values.items():
                # a mean over cases (as the task reports it), resampled by seed profile
                if not math.isnan(value):
                    self.metrics.add_ratio(run, cluster, name, value, 1.0, group)
        # what the interviewer did with the risk (screening included), by the patient's level and
        # the disclosure's turn
        for group in risk_groups(sample.scores[SCORER].metadata or {}):
            for name in ("risk_asked", *RISK_HANDLING):
                if not math.isnan(values.get(name, math.nan)):
                    self.metrics.add_ratio(run, cluster, name, values[name], 1.0, group)
        self.modes[run.key] = mode
        if style == "plain":  # full and initial have no patient; the interview, a plain one
            base = without_mode(interview_variant(run.task_args, run.changed_args, False))
            patient = run.roles.get("patient", DEFAULT_PATIENT) if mode == "interview" else ""
            self.paired[(run.model, base, run.judge or "", run.dataset)].append(
                CaseResult(
                    str(sample.id),
                    cluster,
                    mode,
                    patient,
                    values.get("accuracy", math.nan),
                    values.get("fact_recall", math.nan),
                    tuple(values.get(key, math.nan) for key in POOLED_RISK),
                )  # fmt: skip
            )
        recall = values.get("fact_recall", math.nan)
        if mode == "interview" and not math.isnan(recall) and not math.isnan(correct):
            index = int(np.digitize(recall, RECALL_BINS)) - 1
            pair = self.recall[run.key][index]
            pair[0] += correct
            pair[1] += 1

    def cells(self):
        return self.metrics.cells()

    def metric_groups(self) -> dict[str, list[str]]:
        return METRIC_GROUPS

    def group_notes(self, runs: list) -> dict[str, str]:
        """What the eliciting and risk figures rest on: the question reader, uncorrected."""
        checks = [
            r
            for r in runs
            if r.benchmark == "question_check" and r.model == "selfdx offline reader"
        ]
        measured = "measured in docs/question_check.md"
        if checks:
            m = checks[-1].metrics
            measured = (
                f"measured by {checks[-1].path.rsplit('/', 1)[-1]} on its held-out turns: risk "
                f"F1 {m.get('heldout_risk_f1', math.nan):.3f}, topic F1 "
                f"{m.get('heldout_topic_f1', math.nan):.3f}"
            )
        note = (
            "Uncorrected for the question reader's error: what a question asks about (whether it "
            "screened risk, which facts it asked for, and so what the offline patient tells) is "
            f"decided by the offline question reader ({measured}). Its error is measured per "
            "question, and a case's value depends on all of its questions, so it is not turned "
            "into a corrected rate here."
        )
        return {"Eliciting": note, "Risk": note}

    def gap_frame(self, cells) -> pd.DataFrame:
        """Accuracy in each mode per (model, case set), and the gaps between them."""
        rows: dict[tuple[str, str, str, str], dict[str, float]] = defaultdict(dict)
        for key, mode in self.modes.items():
            _, model, variant, judge, dataset = key
            cell = cells.get(key, {}).get("accuracy")
            if cell is not None:
                rows[(model, without_mode(variant), judge, dataset)][mode] = cell.value
        table = []
        for (model, cases, _, dataset), by_mode in sorted(rows.items()):
            full, talk, first = (by_mode.get(m, math.nan) for m in MODE_ORDER)
            span = full - first
            table.append(
                {
                    "model": model,
                    "cases": cases,
                    "dataset": dataset,
                    "full": full,
                    "interview": talk,
                    "initial": first,
                    "static-interactive gap": full - talk,
                    "share of the gap recovered": (talk - first) / span if span else math.nan,
                }
            )
        return pd.DataFrame(table)

    def recall_frame(self) -> pd.DataFrame:
        rows = []
        for key, bins in sorted(self.recall.items()):
            _, model, variant, _, dataset = key
            for index, (correct, cases) in sorted(bins.items()):
                low, high = RECALL_BINS[index], min(1.0, RECALL_BINS[index + 1])
                rows.append(
                    {
                        "model": model,
                        "variant": variant,
                        "dataset": dataset,
                        "fact recall": f"{low:.2f}-{high:.2f}",
                        "cases": int(cases),
                        "accuracy": correct / cases if cases else math.nan,
                    }
                )
        return pd.DataFrame(rows)

    def styles_frame(self) -> pd.DataFrame:
        """Models x patient styles: accuracy with each style, and the drop from `plain` over
        the cases run with both (`paired: <style>` of them), whether the styles ran in one run
        or one run each (shown when some model met a patient other than the plain one)."""
        if not any(set(by_style) - {"plain"} for by_style in self.styles.values()):
            return pd.DataFrame()
        rows = []
        for (model, cases_run, _, dataset), by_style in sorted(self.styles.items()):
            per_case = {
                style: {case: sum(v) / len(v) for case, v in cases.items()}
                for style, cases in by_style.items()
            }
            row: dict[str, object] = {"model": model, "cases": cases_run, "dataset": dataset}
            for style in STYLES:
                if per_case.get(style):
                    row[style] = sum(per_case[style].values()) / len(per_case[style])
            plain = per_case.get("plain", {})
            for style in STYLES[1:]:
                common = sorted(set(plain) & set(per_case.get(style, {})))
                if common:  # over the cases both ran, in one run or one run per style
                    row[f"drop: {style}"] = sum(
                        plain[c] - per_case[style][c] for c in common
                    ) / len(common)
                    row[f"paired: {style}"] = len(common)
            rows.append(row)
        return pd.DataFrame(rows)

    def paired_gap_frame(self) -> pd.DataFrame:
        """Per model, case set and interview patient, for cases run in `full` and `interview`
        (and `initial`): the gap over the paired cases with its paired bootstrap interval over
        seed profiles, and the share of the full - initial difference the interview recovers
        (`paired_mode_gap`)."""
        rows = []
        for (model, cases_run, _, dataset), found in sorted(self.paired.items()):
            patients = sorted({r.patient for r in found if r.mode == "interview"})
            if "full" not in {r.mode for r in found}:
                continue
            for patient in patients:
                mine = [r for r in found if r.mode != "interview" or r.patient == patient]
                gap = paired_mode_gap((r.case, r.cluster, r.mode, r.correct) for r in mine)
                if not gap["cases"]:
                    continue
                rows.append(
                    {
                        "model": model,
                        "cases": cases_run,
                        "patient": patient,
                        "dataset": dataset,
                        "paired cases": int(gap["cases"]),
                        "full": gap["full"],
                        "interview": gap["interview"],
                        "initial": gap["initial"],
                        "gap (full - interview)": gap["gap"],
                        "gap 95% CI": interval_text(gap["gap_low"], gap["gap_high"]),
                        "share recovered": gap["share"],
                        "share 95% CI": interval_text(gap["share_low"], gap["share_high"]),
                    }
                )
        return pd.DataFrame(rows)

    def patient_frame(self) -> pd.DataFrame:
        """Interviews that differ only in the patient model, side by side: accuracy, fact
        recall and the risk measures with each patient, their spread (highest minus lowest),
        and pooled over the patients (each case's mean over the patients it ran with, then the
        mean over cases, with a bootstrap interval over cases)."""
        measures = [("accuracy", lambda r: r.correct), ("fact recall", lambda r: r.recall)]
        measures += [
            (key.replace("_", " "), lambda r, i=i: r.risk[i] if r.risk else math.nan)
            for i, key in enumerate(POOLED_RISK)
        ]
        rows = []
        for (model, cases_run, _, dataset), found in sorted(self.paired.items()):
            talks = [r for r in found if r.mode == "interview"]
            patients = sorted({r.patient for r in talks})
            if len(patients) < 2:
                continue
            row: dict[str, object] = {"model": model, "cases": cases_run, "dataset": dataset}
            for measure, pick in measures:
                means = {}
                for patient in patients:
                    got = [pick(r) for r in talks if r.patient == patient]
                    kept = [v for v in got if not math.isnan(v)]
                    means[patient] = sum(kept) / len(kept) if kept else math.nan
                    row[f"{measure}: {patient}"] = means[patient]
                known = [v for v in means.values() if not math.isnan(v)]
                row[f"{measure} spread"] = max(known) - min(known) if known else math.nan
                pooled = case_means((r.case, pick(r)) for r in talks)
                row[f"{measure}: pooled"] = float(pooled.mean()) if len(pooled) else math.nan
                row[f"{measure} pooled 95% CI"] = interval_text(*bootstrap_interval(pooled))
            rows.append(row)
        return pd.DataFrame(rows)

    def extra_tables(self) -> dict[str, pd.DataFrame]:
        tables = {
            "static_interactive_gap": self.gap_frame(self.cells()),
            "paired_gap": self.paired_gap_frame(),
            "patient_models": self.patient_frame(),
            "patient_styles": self.styles_frame(),
        }
        recall = self.recall_frame()
        if not recall.empty:
            tables["accuracy_by_fact_recall"] = recall
        return {name: frame for name, frame in tables.items() if not frame.empty}

    def figures(self, out_dir: Path, cells) -> list[Figure]:
        figures = []
        gap = self.gap_frame(cells)
        if not gap.empty:
            figures.append(self._accuracy_by_mode(out_dir, gap))
        recall = self.recall_frame()
        if not recall.empty:
            figures.append(self._recall_figure(out_dir, recall))
        return figures

    def _accuracy_by_mode(self, out_dir: Path, gap: pd.DataFrame) -> Figure:
        # the best in an interview first (then with the whole profile); rows with no
        # interview last
        gap = gap.assign(
            _talk=gap["interview"].fillna(-1.0), _full=gap["full"].fillna(-1.0)
        ).sort_values(["_talk", "_full", "model"], ascending=[False, False, True])
        fig, axes = subplots(1, wide=len(gap) > 3, height=PANEL_HEIGHT + 1.0)
        ax = axes[0]
        width = 0.8 / len(MODE_ORDER)
        for index, mode in enumerate(MODE_ORDER):
            positions = np.arange(len(gap)) + index * width - 0.4 + width / 2
            ax.bar(
                positions,
                np.nan_to_num(gap[mode].to_numpy(float)),
                width,
                label=mode,
                **category_bar(MODE_COLOURS[mode]),
            )
        labels = [f"{m}\n{c}" for m, c in zip(gap["model"], gap["cases"], strict=True)]
        label_ticks(ax, labels)
        ax.set(ylabel="accuracy", ylim=(0, 1.05))
        legend_below(fig, axes, title="mode")
        return save(
            fig,
            out_dir,
            "interview_accuracy_by_mode",
            "Accuracy by mode",
            "Whole profile at once (full), after the interview, and from the opening alone; "
            "the most accurate in an interview first (no bar: mode not run).",
        )

    def _recall_figure(self, out_dir: Path, recall: pd.DataFrame) -> Figure:
        groups = list(recall.groupby(["model", "variant", "dataset"]))
        styles = model_styles(f"{model} {variant}" for (model, variant, _), _ in groups)
        bins = [
            f"{low:.2f}-{min(1.0, high):.2f}"
            for low, high in zip(RECALL_BINS, RECALL_BINS[1:], strict=False)
        ]
        fig, axes = subplots(1, height=PANEL_HEIGHT + 0.9)
        ax = axes[0]
        for (model, variant, _), part in groups:
            label = f"{model} {variant}"
            ax.plot(
                [bins.index(b) for b in part["fact recall"]],
                part["accuracy"],
                marker=styles[label].marker,
                color=styles[label].colour,
                linestyle=styles[label].line,
                label=label,
            )
        label_ticks(ax, bins)
        ax.set(xlabel="fact recall at the answer", ylabel="accuracy", ylim=(0, 1.05))
        legend_below(fig, axes, sort=True)
        return save(
            fig,
            out_dir,
            "interview_accuracy_by_fact_recall",
            "Accuracy against fact recall",
            "Interview runs: accuracy of the cases in each band of elicited facts.",
        )


def answer_names(case: dict[str, Any]) -> list[str]:
    """The names of the key's disorders, from the options shown (the gold name alone when the
    case has one answer or its options do not name the others)."""
    names = dict(zip(case.get("option_codes") or [], case.get("option_names") or [], strict=False))
    answers = case.get("answers") or []
    if len(answers) > 1 and all(code in names for code in answers):
        return [names[code] for code in answers]
    return [case["gold_name"]] if case.get("gold_name") else []


def transcript(sample: EvalSample, model: str, path: str) -> dict[str, Any]:
    """One case as a plain record: identifiers, answer, scores and every turn."""
    store = sample.store or {}
    meta = sample.metadata or {}
    case = meta.get("case") or {}
    score = next((s for name, s in (sample.scores or {}).items() if name == SCORER), None)
    scored = (score.metadata if score else None) or {}
    turns = []
    for turn in store.get("InterviewTrace:turns", []):
        patient = turn.get("patient") or {}
        turns.append(
            {
                "interviewer": turn.get("interviewer"),
                "action": turn.get("action"),
                "question": turn.get("question"),
                "patient_said": patient.get("raw"),
                "interviewer_heard": patient.get("shown"),
                "revealed": patient.get("revealed", []),
                "asked": patient.get("asked", []),
                "volunteered": patient.get("volunteered", []),
                "unknown_ids": patient.get("unknown_ids", []),
                "diagnosis_names": patient.get("diagnosis_names", []),
            }
        )
    return {
        "log": path,
        "model": model,
        "sample_id": sample.id,
        "epoch": sample.epoch,
        "mode": store.get("InterviewTrace:mode"),
        "variant": meta.get("variant"),
        "key": case.get("key"),
        "gold": case.get("gold"),
        "gold_name": case.get("gold_name"),
        # Type 3: every disorder of the key (main, then sub), and their names
        "answers": case.get("answers") or ([case["gold"]] if case.get("gold") else []),
        "answer_names": answer_names(case),
        "patient_style": case.get("patient_style", "plain"),
        "criteria_met": case.get("criteria_met"),
        "opening": store.get("InterviewTrace:opening"),
        "turns": turns,
        "stop_reason": store.get("InterviewTrace:stop_reason"),
        "diagnosis": store.get("InterviewTrace:diagnosis_text"),
        # read by the scorer (logs written before it did: by the solver, in the store)
        "diagnosis_code": scored.get("diagnosis_code", store.get("InterviewTrace:diagnosis_code")),
        "answer_status": scored.get("answer_status"),
        "criteria_claim": scored.get("criteria_claim", store.get("InterviewTrace:criteria_claim")),
        "elicited": store.get("InterviewTrace:elicited", []),
        # the patient's levels of risk, those told by the end, any risk added to the profile and
        # the turn it first told one (the response measures are among the scores)
        **{key: scored.get(key) for key in RISK_FACTS},
        "scores": score_values(sample, SCORER),
        "error": sample.error.message if sample.error else None,
    }


def markdown(record: dict[str, Any]) -> str:
    lines = [
        f"## {record['sample_id']} ({record['model']}, {record['mode']})",
        "",
        f"Key: {' and '.join(record['answer_names']) or record['gold_name']} "
        f"({', '.join(record['answers']) or record['gold']}); patient style "
        f"{record['patient_style']}; criteria met on the whole profile: {record['criteria_met']}.",
        "",
        f"> {record['opening']}".replace("\n", "\n> "),
        "",
    ]
    for turn in record["turns"]:
        lines.append(f"**Interviewer:** {turn['interviewer']}".replace("\n", " / "))
        if turn["interviewer_heard"] is not None:
            revealed = ", ".join(turn["revealed"]) or "none"
            lines.append(f"**Patient:** {turn['interviewer_heard']} *(revealed: {revealed})*")
        lines.append("")
    scores = ", ".join(f"{k} {v:g}" for k, v in record["scores"].items() if not math.isnan(v))
    lines += [f"Ended: {record['stop_reason']}. Scores: {scores}.", "", ""]
    return "\n".join(lines)


def export_interview(
    logs: list[str], out_dir: str | Path, force: bool = False, from_folders: Collection[str] = ()
) -> list[Path]:
    """Write the transcripts of the interview runs in `logs`; return the files written."""
    out = Path(out_dir)
    headers = start_export(logs, out, force, "export interview", "interview", from_folders)
    records = []
    for path, header in headers.items():
        records += [transcript(s, header.eval.model, path) for s in read_samples(path)]
    if not records:
        raise SelfdxError(f"no selfdx/interview samples in {', '.join(headers)}")
    out.mkdir(parents=True, exist_ok=True)
    jsonl, md = out / "transcripts.jsonl", out / "transcripts.md"
    with jsonl.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(json_safe(record), ensure_ascii=False, default=str) + "\n")
    md.write_text("# Interview transcripts\n\n" + "".join(map(markdown, records)), "utf-8")
    finish(out, "export interview", [jsonl, md])
    return [jsonl, md]
