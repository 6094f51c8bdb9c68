"""What the offline question reader costs per doctor turn, next to a model call.

Reads every labelled turn of the question-check set that is asked of a bundled demo profile
(487 turns, each once, caches cold), and prints the median and 90th percentile time per turn.

    python bench/bench_question_reader.py
"""

from __future__ import annotations

import statistics
import time

from selfdx.datasets.question_check import PARTS, profile_of, question_check_dataset
from selfdx.instruments.question_reader import read_question
from selfdx.instruments.topics import topic_of


def main() -> None:
    samples = list(question_check_dataset("demo", PARTS))
    timings = []
    for sample in samples:
        case = profile_of(sample.metadata)
        topics = [topic_of(f) for f in [*case.facts, *case.absent]]
        previous = (sample.metadata.get("context") or {}).get("question")
        started = time.perf_counter()
        read_question(str(sample.input), topics, case.complaint, [previous] if previous else [])
        timings.append((time.perf_counter() - started) * 1000)
    timings.sort()
    median = statistics.median(timings)
    p90 = timings[int(0.9 * len(timings))]
    print(f"{len(timings)} turns: median {median:.2f} ms, 90th percentile {p90:.2f} ms a turn")


if __name__ == "__main__":
    main()
