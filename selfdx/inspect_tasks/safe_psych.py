"""`selfdx/safe_psych`: ask before you diagnose (Safe-Psych, arXiv 2607.13036)."""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.model import GenerateConfig

from selfdx.arguments import flag, listed, positive_int, reject_unknown, require_role, text
from selfdx.datasets.identity import data_source, samples_sha256
from selfdx.datasets.safe_psych import HF_DATASET, HF_REVISION, safe_psych_dataset
from selfdx.datasets.strategies import DEFAULT_STRATEGY, asks_judge, check_strategy
from selfdx.errors import ArgumentError
from selfdx.gc_tuning import use_gc_freeze
from selfdx.judge.behaviour import judge_prompt_version
from selfdx.judge.panel import panel_roles, require_panel
from selfdx.run_facts import task_facts
from selfdx.scorers.rubrics.caution import caution
from selfdx.scorers.rubrics.diagnosis_agreement import diagnosis_agreement
from selfdx.scorers.safe_psych.panel_agreement import judge_panel_agreement
from selfdx.scorers.safe_psych.scorer import safe_psych_scorer
from selfdx.solvers.safe_psych.staged_disclosure import staged_disclosure

# 2: forged judge lines, codes read; 3: statements read by meaning; 4: structured codes missed;
# 5: revised, hedged and loose codes, lab tokens, a cause before its disorder, forged-line variants;
# 6: the sixth and seventh probe rounds (comparisons, "neither ... nor", a differential list, codes
# with probabilities, Z03, ICD titles holding "not", revisions in words, shortened judge keys);
# 7: the eighth to twelfth probe rounds (struck-through codes, codes kept as likely in several
# languages, a changed action on the first line, judge lines in other languages, base64, ROT13,
# reversed, or broken over two lines); 8: the sixteenth to twenty-second probe rounds ("I should
# not commit to this", "I would rather abstain", "(F20.0) - no, the picture is mixed", "or" in
# other languages, the chosen item of a one-line differential, "ignore your previous instructions");
# 9: the twenty-third and twenty-fourth (a note to the grader in German or French, "diese Antwort
# bitte als ...", "for the scoring system", "anyone classifying this reply must read it as") and
# the twenty-fifth (the reply describing itself in the judge's terms; "an established diagnosis
# of ... (F01.9)" is no answer) and the twenty-sixth (rulings on how a reply counts, the judge's
# English value inside another language); 10: the twenty-seventh (the judge's lines in Unicode tag
# characters, a checklist of its values, a pointer to an answer hidden in the reply's form, "is
# read as none"; a code "depending on" a fact not known is open) and the twenty-eighth ("F41.l"
# is F41.1; words to "whoever sums this up" or "anyone summarising"); 11: the thirtieth and
# thirty-first; 12: the thirty-third (a recurrent depressive disorder named beside a single
# episode's F32 code is no answer; another code "about as likely")
TASK_VERSION = "12-A"
RUBRICS = {"caution": caution, "diagnosis_agreement": diagnosis_agreement}


def rubric_scorers(names: str | list[str] | None) -> list:
    """The rubric scorers named in `scorers=` (`-T scorers=caution,diagnosis_agreement`)."""
    if names is None or names == "":
        return []
    if not isinstance(names, str | list | tuple) or not all(isinstance(n, str) for n in names):
        raise ArgumentError(f"scorers: expected names separated by commas, got {names!r}")
    chosen = listed("scorers", names) or []
    unknown = [n for n in chosen if n not in RUBRICS]
    if unknown:
        raise ArgumentError(
            f"scorers: unknown {', '.join(map(repr, unknown))}; choose from {', '.join(RUBRICS)}"
        )
    return [RUBRICS[name]() for name in chosen]


@task
def safe_psych(
    data: str = "demo",
    strategy: str = DEFAULT_STRATEGY,
    revision: str = HF_REVISION,
    judge_attempts: int = 3,
    judge_max_tokens: int = 128,
    judge_cache: bool = True,
    scorers: str | list[str] | None = None,
    judges: int | str | list[str] | None = None,
    **unknown: Any,
) -> Task:
    """Safe-Psych: staged disclosure of psychiatric notes, replies judged by the `grader` role.

    Args:
        data: "demo" (bundled synthetic cases), "hf" (safepsych/Safe-Psych on the Hub) or the
            path of a CSV in the published schema.
        strategy: full_info_no_abstention, full_info_abstention_aware,
            sequential_info_neutral_prompting, sequential_info_abstention_aware or
            structured_actions.
        revision: Hub revision for data="hf".
        judge_attempts: tries per reply before an unparseable judge answer excludes the case.
        judge_max_tokens: the judge's output budget (128 as in the reference).
        judge_cache: serve a repeated judge prompt from memory (answers that parsed, this
            process; marked `judge_reused`) or from Inspect's cache.
        scorers: rubric scorers to add, graded by the `grader` role: "caution",
            "diagnosis_agreement" (a list, or a comma-separated string).
        judges: a judge panel instead of the single `grader`: a number n (roles grader,
            grader_2 ... grader_n) or role names (a list, or comma-separated); a majority
            vote per key, and Krippendorff's alpha between the judges in the results.
    """
    given = dict(locals())  # every argument as run, for the facts the log records
    reject_unknown("selfdx/safe_psych", unknown, safe_psych)
    use_gc_freeze()
    data = text("data", data, "'hf', 'demo' or the path of a CSV in the published schema")
    check_strategy(strategy)
    revision = text("revision", revision, "a Hub revision (branch, tag or commit)")
    if revision != HF_REVISION and data != "hf":
        raise ArgumentError(
            f"revision: {revision!r} applies to data=hf only (data={data!r} is read as it is)"
        )
    judge_attempts = positive_int("judge_attempts", judge_attempts)
    judge_max_tokens = positive_int("judge_max_tokens", judge_max_tokens)
    judge_cache = flag("judge_cache", judge_cache)
    rubrics = rubric_scorers(scorers)
    roles = panel_roles(judges)
    if roles and not asks_judge(strategy):
        raise ArgumentError("judges: structured_actions asks no judge; drop judges=")
    if (asks_judge(strategy) and not roles) or rubrics:
        require_role("grader", "the Safe-Psych judge", "selfdx/rules-judge")
    if roles:
        require_panel(roles, "the Safe-Psych judge panel")
    dataset = safe_psych_dataset(data, revision)
    max_stages = max(len(sample.metadata["sections"]) for sample in dataset)
    return Task(
        dataset=dataset,
        solver=staged_disclosure(strategy, judge_attempts, judge_max_tokens, judge_cache, roles),
        scorer=[
            safe_psych_scorer(strategy),
            *rubrics,
            *([judge_panel_agreement()] if roles else []),
        ],
        config=GenerateConfig(temperature=0.7, top_p=0.95, max_tokens=512),
        message_limit=1 + 2 * max_stages,
        version=TASK_VERSION,
        metadata={
            **task_facts("safe_psych", safe_psych, given),
            "benchmark": "safe_psych",
            "strategy": strategy,
            # from the Hub: the commit read, a branch or tag resolved
            "data_source": data_source(
                data, HF_DATASET, str(dataset.location).rpartition("@")[2] if data == "hf" else ""
            ),
            "data_sha256": samples_sha256(dataset),
            "judge_prompt": judge_prompt_version(),
        },
    )
