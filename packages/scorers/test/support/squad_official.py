"""SQuAD v1.1 normalize / exact match / F1, as in the official evaluate-v1.1.py.

Reads a JSON list of [prediction, ground_truth] pairs on stdin and writes one JSON object:
{"unicode": <unicodedata version>, "results": [{"prediction", "ground_truth", "exact", "f1",
"comparable"}, ...]}. "comparable" is false when a string holds a code point this Python's
Unicode database does not know (general category Cn): characters assigned in a later Unicode
version than Python's cannot be expected to agree.
"""

import json
import re
import string
import sys
import unicodedata
from collections import Counter


def normalize_answer(s):
    def remove_articles(text):
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    def lower(text):
        return text.lower()

    return white_space_fix(remove_articles(remove_punc(lower(s))))


def f1_score(prediction, ground_truth):
    prediction_tokens = normalize_answer(prediction).split()
    ground_truth_tokens = normalize_answer(ground_truth).split()
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    return (2 * precision * recall) / (precision + recall)


def exact_match_score(prediction, ground_truth):
    return normalize_answer(prediction) == normalize_answer(ground_truth)


def known_to_python(text):
    return all(unicodedata.category(ch) != "Cn" for ch in text)


def main():
    pairs = json.load(sys.stdin)
    results = [
        {
            "prediction": normalize_answer(prediction),
            "ground_truth": normalize_answer(ground_truth),
            "exact": 1 if exact_match_score(prediction, ground_truth) else 0,
            "f1": f1_score(prediction, ground_truth),
            "comparable": known_to_python(prediction) and known_to_python(ground_truth),
        }
        for prediction, ground_truth in pairs
    ]
    json.dump({"unicode": unicodedata.unidata_version, "results": results}, sys.stdout)


main()
