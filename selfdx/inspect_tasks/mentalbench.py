"""`selfdx/mentalbench`: DSM-grounded diagnostic choice questions (arXiv 2602.12871)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.log import HeadlineMetric
from inspect_ai.solver import generate

from selfdx.arguments import checked, flag, reject_unknown, require_role, text
from selfdx.datasets.identity import data_source, samples_sha256
from selfdx.datasets.mentalbench.dataset import (
    HF_REPO,
    HF_REVISION,
    mentalbench_samples,
    option_order_free,
)
from selfdx.datasets.mentalbench.filters import normalise_types, types_of
from selfdx.errors import ArgumentError
from selfdx.gc_tuning import use_gc_freeze
from selfdx.instruments.answers.parsers import get_parser
from selfdx.run_facts import task_facts
from selfdx.scorers.mentalbench.metrics import mentalbench_metrics
from selfdx.scorers.mentalbench.scorer import mentalbench_scorer
from selfdx.scorers.rubrics.diagnosis_agreement import diagnosis_agreement
from selfdx.solvers.mentalbench.prompts import (
    check_answer_format,
    check_style,
    mentalbench_prompt,
)

# 2: answers read as the answer check measures; 3: revised answers; 4: "B; comorbid C",
# "not A or D", and "B, probably", "B and most likely C" as hedges; 5: a verdict on each option,
# an option kept in the differential (a hedge), roles, ranges, continued lines, "Edit: C"; 6: the
# sixth and seventh probe rounds (an option joined by "with" or a later sentence, a list that
# ends the reply, ranked or kept-open lists, "Not selected:", "possible" verdicts, "C, E"); 7: the
# eighth to twelfth probe rounds (doubt kept beside the answer wherever it is said, withdrawn or
# torn answers, struck-through options, a closing arrow, JSON objects, "A et C"); 8: the
# sixteenth to twenty-second probe rounds ("Otherwise D", "I'd drop D", "Either could be right",
# "no wait", "scratch D", a summary naming other options, a question the model goes on to invent,
# "Considered and rejected", "Also possible", "unsure between", doubt in German, "If so, add D",
# the prompt's example copied, "Correction: ..., so the answer is B", a reply cut off at "A:");
# 9: the twenty-third ("All options apply except A and C", "C alone is just as defensible", "two
# of the following: A, B, D"; read now: "the best match is C", "Not C - it's B", "A e B") and
# the twenty-fifth ("Conclusion: B" after options that "Neither applies"); 10: the twenty-seventh
# (options called distractors, a set with a misspelt member, "Answer: B. My answer is D" left
# open, "B、C", an answer "depending on" a fact not known) and the twenty-eighth (the options
# echoed in order are no pick, "A. <name> B. <name>" a set, "A&P:" no option) and the twenty-ninth
# (the prompt's instruction copied back, an option joined past a negation, a closing set that
# differs, "D might be better seen as a feature of B"); 11: the thirtieth and thirty-first; 12:
# the thirty-third (another option "about as likely", "might fit better" or "instead", a member
# held back by its label, "To be confirmed: D", a table row left open, "possibly") and the
# thirty-fourth ("C too", "A = D", a smaller set offered with "or" after the answer, "a tie")
TASK_VERSION = "12-A"


@task
def mentalbench(
    data: str = "demo",
    types: int | str | Sequence[int | str] = (1, 2, 3, 4),
    prompt_style: str | None = None,
    generators: str | Sequence[str] | None = None,
    disorders: str | Sequence[str] | None = None,
    parser: str = "strict",
    shuffle_choices: bool = False,
    seed: int = 0,
    include_truncated: bool = False,
    revision: str = HF_REVISION,
    answer_format: str = "letters",
    **unknown: Any,
) -> Task:
    """MentalBench: pick the diagnosis (or diagnoses) that fit a case, scored by exact set match.

    Args:
        data: "demo" (bundled synthetic items), "hf" (hysong/MentalBench on the Hub), or a
            path: the GitHub resources/ folder or the Hugging Face mentalbench.csv.
        types: 1, 2, 3 and/or 4 (or 4a, 4b), as a list, a comma-separated string or one value.
        prompt_style: single, hybrid or multiple for every item; None uses single for Types 1-2
            and hybrid for Types 3-4, as the released runner does.
        generators: keep only items written by these case generators (gemini, gpt5, qwen235).
        disorders: keep only items involving these disorder codes (D005) or pairs (D001-D005).
        parser: "strict" (careful reading; ambiguity stays unparsed) or "reference" (the
            released extraction, for comparability).
        shuffle_choices: permute each item's options (seeded per item) instead of the
            published order.
        seed: seed of the option permutation.
        include_truncated: keep the six truncated generations of the GitHub copy.
        revision: Hub revision for data="hf".
        answer_format: "letters" (choose among the shown options) or "free_text" (name the
            diagnosis in words, options hidden; scored by `diagnosis_agreement`, the `grader`
            mapping the answer to the options).
    """
    given = dict(locals())  # every argument as run, for the facts the log records
    reject_unknown("selfdx/mentalbench", unknown, mentalbench)
    use_gc_freeze()
    data = text("data", data, "'hf', 'demo', a resources/ folder or the Hugging Face CSV")
    get_parser(parser)
    style = check_style(prompt_style)
    check_answer_format(answer_format)
    shuffle_choices = flag("shuffle_choices", shuffle_choices)
    include_truncated = flag("include_truncated", include_truncated)
    seed = checked("seed", seed, int, "expected an integer")
    revision = text("revision", revision, "a Hub revision (branch, tag or commit)")
    if revision != HF_REVISION and str(data) != "hf":
        raise ArgumentError(
            f"revision: {revision!r} applies to data=hf only (data={str(data)!r} is read as it is)"
        )
    if types is None or (isinstance(types, str) and not types.strip()):
        raise ArgumentError(f"types: expected 1, 2, 3, 4, 4a or 4b (or a list), got {types!r}")
    variants = normalise_types(types)
    if answer_format == "free_text":
        require_role("grader", "answer_format=free_text", "selfdx/rules-judge")
    samples = mentalbench_samples(
        data=data,
        types=list(variants),
        generators=generators,
        disorders=disorders,
        include_truncated=include_truncated,
        shuffle_choices=shuffle_choices,
        seed=seed,
        revision=revision,
    )
    free_text = answer_format == "free_text"
    return Task(
        dataset=MemoryDataset(samples, name="mentalbench", location=str(data)),
        solver=[mentalbench_prompt(style, answer_format), generate()],
        scorer=diagnosis_agreement() if free_text else mentalbench_scorer(parser),
        metrics=None if free_text else mentalbench_metrics(types_of(variants)),
        # the scorer's one results entry holds `accuracy` among its metrics
        headline_metric=None
        if free_text
        else HeadlineMetric(scorer="mentalbench_scorer", metric="accuracy"),
        version=TASK_VERSION,
        metadata={
            **task_facts("mentalbench", mentalbench, given),
            "benchmark": "mentalbench",
            "parser": parser,
            "variants": list(variants),
            "answer_format": answer_format,
            "data_source": data_source(data, HF_REPO, revision),
            # the option-shuffle seed reorders options only: its runs are repeats (docs/reports.md)
            "data_sha256": samples_sha256(samples, option_order_free),
        },
    )
