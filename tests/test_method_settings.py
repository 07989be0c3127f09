"""What the pages ask the engine about a method: which settings apply, their choices, the
algorithm's name. The answers must agree with what ``PackMethod`` accepts and refuses."""
import pytest

from packing import ALGORITHMS, PackMethod
from packing.method import ALL_ALGORITHMS, ONE_DIM_ALGORITHMS, ONE_DIM_WORDS, PUBLISHED, PUBLISHED_HEURISTICS, WEIGHTED

SAMPLE = {"heuristic": None, "one_dim": "spfhp", "weights": (1.0, 2.0), "improve": True}


def test_every_algorithm_has_a_name_summary_and_settings():
    for algorithm, info in ALGORITHMS.items():
        assert info.name and info.summary.endswith(".") and set(info.settings) <= set(SAMPLE), algorithm


@pytest.mark.parametrize("algorithm", ALL_ALGORITHMS)
def test_a_setting_is_accepted_exactly_when_the_engine_says_it_applies(algorithm):
    takes = PackMethod.settings_for(algorithm)
    for setting, value in SAMPLE.items():
        if setting == "heuristic":
            value = next(iter(PackMethod.choices(algorithm, "heuristic")), "sum")
        extra = {"heuristic": WEIGHTED} if setting == "weights" else {}
        if setting in takes:
            method = PackMethod(algorithm, **{**extra, setting: value})
            assert getattr(method, setting) is not None
        elif value is not None:
            with pytest.raises(ValueError):
                PackMethod(algorithm, **{**extra, setting: value})


@pytest.mark.parametrize("algorithm", ALL_ALGORITHMS)
def test_every_choice_offered_makes_a_valid_method(algorithm):
    for setting in ("heuristic", "one_dim"):
        for value in PackMethod.choices(algorithm, setting):
            weights = (1.0, 1.0) if value == WEIGHTED else None
            assert getattr(PackMethod(algorithm, **{setting: value}, weights=weights), setting) == value


def test_the_choices_are_the_engines_lists():
    assert list(PackMethod.choices(PUBLISHED, "heuristic")) == list(PUBLISHED_HEURISTICS)
    assert list(ONE_DIM_WORDS) == list(ONE_DIM_ALGORITHMS)
    assert PackMethod.choices("best", "heuristic") == {}
    with pytest.raises(ValueError, match="Unknown algorithm 'fastest'"):
        PackMethod.settings_for("fastest")
