"""Agreement of a judge with reference labels: the one definition of each statistic.

Used by `selfdx/judge_check` (judge against the bundled or a user's labelled replies) and by
`selfdx judge-agreement` (judge against annotators). Every statistic is scikit-learn's; this
module fixes which labels enter macro-F1 and how list-valued keys (ICD codes, diagnosis names)
are compared, so that both places report the same numbers for the same labels.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from collections.abc import Iterable, Sequence
from types import ModuleType

# What a judge "said" for a reply its answer could not be read from: a label of its own, so that
# it counts as a disagreement in accuracy and kappa (and as a miss of the gold class in macro-F1).
UNPARSED = "(unparsed)"


def sklearn_metrics() -> ModuleType:
    """scikit-learn's metrics, imported on first use: the import takes about 2 s, and every
    `inspect eval` of a selfdx task loads this module through the task registry."""
    from sklearn import metrics

    return metrics


def present_labels(
    categories: Sequence[str], gold: Iterable[str], predicted: Iterable[str]
) -> list[str]:
    """The categories that occur in `gold` or `predicted`, in the order of `categories`."""
    seen = set(gold) | set(predicted)
    return [c for c in categories if c in seen]


def accuracy(gold: Sequence[str], predicted: Sequence[str]) -> float:
    """Share of items whose predicted label equals the gold label (NaN for no items)."""
    return float(sklearn_metrics().accuracy_score(gold, predicted)) if len(gold) else math.nan


def balanced_accuracy(gold: Sequence[str], predicted: Sequence[str]) -> float:
    """Mean recall over the gold classes (NaN for no items)."""
    if not len(gold):
        return math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(sklearn_metrics().balanced_accuracy_score(gold, predicted))


def macro_f1(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> float:
    """Unweighted mean F1 over `labels` (zero_division=0); NaN for no items or no labels.

    Pass the categories that occur (`present_labels`): a label outside them, such as
    UNPARSED, still counts as a miss of its gold class but gets no F1 of its own.
    """
    if not len(gold) or not len(labels):
        return math.nan
    return float(
        sklearn_metrics().f1_score(
            gold, predicted, labels=list(labels), average="macro", zero_division=0
        )
    )


def cohen_kappa(gold: Sequence[str], predicted: Sequence[str]) -> float:
    """Cohen's kappa; NaN when it is undefined (no items, or chance agreement is 1)."""
    if not len(gold):
        return math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = float(sklearn_metrics().cohen_kappa_score(gold, predicted))
    return value


def confusion(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> list:
    """Confusion matrix (rows gold, columns predicted) over `labels`, as nested lists."""
    return sklearn_metrics().confusion_matrix(gold, predicted, labels=list(labels)).tolist()


def normalise_item(item: str) -> str:
    """One code or name as compared: lower-case, single spaces, no surrounding punctuation."""
    return re.sub(r"\s+", " ", str(item)).strip().strip(".,;:\"'").strip().lower()


def item_set(items: Iterable[str] | None) -> frozenset[str]:
    """The set of normalised, non-empty items of a list-valued key."""
    return frozenset(i for i in (normalise_item(x) for x in items or []) if i)


def set_label(items: Iterable[str]) -> str:
    """A set of items as one nominal label: the JSON list of its sorted items (`[]` for the
    empty set). Two sets get one label only when they are equal: an item that holds `; ` or is
    `-` cannot make one set look like another, as a joined string could."""
    return json.dumps(sorted(items), ensure_ascii=False)


def multilabel_macro_f1(
    gold: Sequence[frozenset[str]], predicted: Sequence[frozenset[str] | None]
) -> float:
    """Mean per-item F1 over every item (code or name) in the gold or predicted sets
    (zero_division=0), as `macro_f1` takes the labels that occur.

    An unparsed prediction (None) is the empty set: each of its gold items is a miss. NaN when
    no set holds an item.
    """
    chosen = [p or frozenset() for p in predicted]
    labels = sorted(set().union(*gold, *chosen))
    if not labels:
        return math.nan
    from sklearn.preprocessing import MultiLabelBinarizer  # see sklearn_metrics

    binarizer = MultiLabelBinarizer(classes=labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gold_matrix = binarizer.fit_transform(gold)
        predicted_matrix = binarizer.transform(chosen)
    return float(
        sklearn_metrics().f1_score(gold_matrix, predicted_matrix, average="macro", zero_division=0)
    )


def label_agreement(
    gold: Sequence[str], predicted: Sequence[str], categories: Sequence[str]
) -> dict[str, object]:
    """n, accuracy, balanced accuracy, macro-F1, Cohen's kappa and the confusion matrix of
    one categorical key; macro-F1 and the matrix over the categories that occur."""
    labels = present_labels(categories, gold, predicted)
    stats: dict[str, object] = {"n": len(gold)}
    if len(gold):
        stats.update(
            accuracy=accuracy(gold, predicted),
            balanced_accuracy=balanced_accuracy(gold, predicted),
            macro_f1=macro_f1(gold, predicted, labels),
            cohen_kappa=cohen_kappa(gold, predicted),
            confusion_labels=labels,
            confusion=confusion(gold, predicted, labels),
        )
    return stats


def set_agreement(
    gold: Sequence[frozenset[str]], predicted: Sequence[frozenset[str] | None]
) -> dict[str, float]:
    """Accuracy (exact set match), multi-label macro-F1 and Cohen's kappa (each distinct set
    a category) of one list-valued key; an unparsed prediction (None) is UNPARSED."""
    gold_labels = [set_label(g) for g in gold]
    predicted_labels = [UNPARSED if p is None else set_label(p) for p in predicted]
    return {
        "n": len(gold),
        "accuracy": accuracy(gold_labels, predicted_labels),
        "macro_f1": multilabel_macro_f1(gold, predicted),
        "cohen_kappa": cohen_kappa(gold_labels, predicted_labels),
    }
