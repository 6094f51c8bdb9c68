"""`selfdx/patient_check -T wording=written`: probes in words the patient was never given (the
question-check set's doctor questions, written blind for named profiles), so the check can fail
an offline patient that passes every probe worded as its own cues."""

from __future__ import annotations

import json

import pytest
from test_patient_check import check, run

from selfdx.datasets.interview.loading import load_cases
from selfdx.datasets.interview.written_probes import written_probes
from selfdx.datasets.paths import DEMO_DIR


def blind_questions() -> dict[str, dict]:
    """The question-check items usable as probes, read from the JSONL files directly: one
    topic, no turn before it, a question a separate labeller marked `positive`."""
    positive = set()
    for part in ("dev", "heldout"):
        for line in (DEMO_DIR / f"reply_stance_{part}.jsonl").read_text().splitlines():
            row = json.loads(line)
            if row["polarity"] == "positive":
                positive.add(row["question"])
    found = {}
    for part in ("dev", "heldout"):
        for line in (DEMO_DIR / f"question_check_{part}.jsonl").read_text().splitlines():
            row = json.loads(line)
            if len(row["asks"]) == 1 and not row["context"] and row["question"] in positive:
                found[row["id"]] = row | {"part": part}
    return found


def test_written_probes_are_the_blind_questions_with_the_profile_s_answer():
    _, cases = load_cases("demo", ("1", "2"))
    blind = blind_questions()
    probes = {p.question_id: (case, p) for case in cases for p in written_probes(case)}
    assert len(probes) == 146
    for qid, (case, probe) in probes.items():
        item = blind[qid]
        assert item["profile"] == f"demo:{case.id}" and probe.questions == [item["question"]]
        assert probe.about == item["asks"][0] and probe.part == item["part"]
    # by hand, from the profiles: D013's patient has diurnal variation (S101); D011's patient
    # does not feel a failure; D020's patient had a stressor
    case, probe = probes["B-0209"]
    assert (case.id, probe.kind, probe.expected) == ("demo-t1-D013_l001", "present", ["S101"])
    assert probe.questions == [
        "Is there any diurnal variation in your mood - for instance, is it worse first thing in "
        "the morning?"
    ]
    case, probe = probes["A-0225"]
    assert (case.id, probe.kind, probe.expected) == ("demo-t1-D011_l001", "absent", [])
    case, probe = probes["D-0273"]
    assert (case.id, probe.kind, probe.expected) == ("demo-t1-D020_l001", "stressor", ["STRESSOR"])
    # a follow-up, a two-topic question and a "Can you keep yourself safe?" are left out
    for qid in ("B-0233", "A-0229", "B-0262"):  # a follow-up; sleep and appetite; safe now?
        assert qid not in probes


def test_most_are_worded_apart_from_the_patient_s_cues():
    _, cases = load_cases("demo", ("1", "2"))
    apart = total = 0
    for case in cases:
        facts = {f.id: f for f in [*case.facts, *case.absent]}
        for probe in written_probes(case):
            total += 1
            words = probe.questions[0].lower()
            apart += not any(cue.lower() in words for cue in facts[probe.about].cues)
    assert total == 146 and apart >= 80  # 85 hold none of their fact's cue phrases


def test_the_offline_patient_fails_where_the_words_are_not_its_own(log_dir):
    log = run(log_dir, wording="written")
    assert {s.metadata["wording"] for s in log.samples} == {"written"}
    assert len(log.samples) == 146
    values = check(log)  # the logged metrics equal the measures recomputed by hand
    # the question reader of issue 32's second round hears idioms ("cut yourself off") and
    # screens that set a scene without wrongly heard denials: denied_when_absent 0.900 -> 0.980
    assert values["revealed_when_asked"] < 0.95 and values["denied_when_absent"] < 1.0
    # "apprehensive expectation" asks about uncontrollable worry in words the reader lacks
    (worry,) = [s for s in log.samples if s.id == "demo-t1-D011_l001-present-A-0213"]
    reply = worry.store["PatientCheckTrace:replies"][0]
    assert reply["revealed"] == [] and "not sure what you mean" in reply["shown"]
    assert worry.scores["patient_check_scorer"].value["revealed_when_asked"] == 0.0


@pytest.mark.parametrize("style", ["minimising", "vague"])
def test_a_style_sets_the_written_probes_expectations(style):
    """A minimising patient keeps a symptom back until asked how often, long, much or bad; a
    vague one until asked anything concrete (an example too)."""
    from selfdx.datasets.interview.facts import Fact
    from selfdx.datasets.interview.risk import fact_domain
    from selfdx.datasets.interview.styles import DETAIL, FREQUENCY
    from selfdx.inspect_tasks.patient_check import patient_check

    opens = FREQUENCY if style == "minimising" else DETAIL
    task = patient_check(wording="written", patient_style=style)
    present = [s for s in task.dataset if s.metadata["kind"] == "present"]
    assert present
    for sample in present:
        facts = {f["id"]: f for f in sample.metadata["case"]["facts"]}
        about = Fact.model_validate(facts[sample.metadata["probe"]["about"]])
        # a risk is told as far as asked, whatever the style
        told = fact_domain(about) is not None or bool(opens.search(sample.input))
        assert (sample.metadata["probe"]["expected"] != []) == told, sample.input


def test_per_style_and_per_wording_figures_equal_the_samples_grouped_by_hand(log_dir):
    from conftest import clustered_means
    from test_patient_check import logged

    log = run(log_dir, patient_style="plain,guarded", types="1")
    got = logged(log)
    for field, key, group in (
        ("patient_style", "volunteered", "plain"),
        ("patient_style", "volunteered", "guarded"),
        ("wording", "revealed_when_asked", "written"),
        ("wording", "denied_when_absent", "scripted"),
        ("wording", "words_match_ids", "written"),
    ):
        rows = [
            (s.scores["patient_check_scorer"].value, s.metadata["case_id"])
            for s in log.samples
            if s.metadata[field] == group
        ]
        ((mean, se),) = clustered_means(rows, (key,)).values()
        assert got[f"{key}_{group}"] == pytest.approx(mean, abs=1e-12), (key, group)
        assert got[f"{key}_{group}_stderr"] == pytest.approx(se, abs=1e-12), (key, group)
    assert "style_followed_guarded" in got and "style_followed_plain" not in got  # plain has none
    assert got["revealed_when_asked_written"] < got["revealed_when_asked_scripted"] == 1.0
