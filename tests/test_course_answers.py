"""The exercise checks' answer helpers (selfconf.course.answers): what they accept, and that a failure message
never contains the expected value, in any of the ways a number could be printed."""

from __future__ import annotations

import numpy as np
import pytest

from selfconf.course import answers


def _printed(want: float) -> list[str]:
    forms = {repr(want), str(want), f"{want:g}"} | {f"{want:.{d}f}" for d in range(1, 9)}
    return [f for f in forms if len(f.strip("-0.")) >= 2]  # forms like '0.0' carry no information


@pytest.mark.parametrize("got", [0.2739, np.float64(0.2739), np.float32(0.2739), np.array(0.2739), [0.2739], (0.2739,)])
def test_any_numeric_type_and_container_is_accepted(got):
    assert answers.number("ece_hand", got, 0.273866, decimals=4) == pytest.approx(0.2739, abs=1e-6)


def test_the_pages_printed_precision_is_accepted_and_half_a_unit_more_is_not():
    want = 0.27386666
    assert answers.number("x", 0.274, want, decimals=3)  # the page prints 0.274
    assert answers.number("x", 0.2739, want, decimals=4)
    with pytest.raises(AssertionError):
        answers.number("x", 0.2733, want, decimals=3)  # off by more than half a unit of the third decimal


@pytest.mark.parametrize("got", [np.int64(7), np.int32(7), 7, 7.0, np.array([7])])
def test_whole_numbers_in_any_integer_type(got):
    assert answers.whole("n_mass_bins", got, 7) == 7


def test_a_blank_says_not_written_yet():
    for check in (
        lambda: answers.number("a", ..., 0.5),
        lambda: answers.whole("b", ..., 3),
        lambda: answers.same_set("c", ..., {"x"}),
        lambda: answers.array("d", ..., [1.0]),
    ):
        with pytest.raises(AssertionError, match="not written yet"):
            check()


@pytest.mark.parametrize("seed", range(5))
def test_a_failure_message_never_contains_the_expected_value(seed):
    rng = np.random.default_rng(seed)
    want = float(rng.uniform(0.01, 0.99))
    wrong_numbers = [want + 0.01, want * 2, -want, 0.0, "0.5", True, None, [want, want], np.nan]
    for got in wrong_numbers:
        with pytest.raises(AssertionError) as e:
            answers.number("x", got, want, decimals=4)
        assert not [f for f in _printed(want) if f in str(e.value)], str(e.value)
    n = int(rng.integers(11, 99))
    for got in (n + 1, n - 1, 2.5):
        with pytest.raises(AssertionError) as e:
            answers.whole("n", got, n)
        assert str(n) not in str(e.value)
    terms = {"reliability", "resolution"}
    for got in ({"uncertainty"}, ["reliability"], "resolution"):
        with pytest.raises(AssertionError) as e:
            answers.same_set("zero_terms", got, terms)
        assert not [t for t in terms if t in str(e.value)], str(e.value)
    ref = rng.uniform(0, 1, 4)
    with pytest.raises(AssertionError) as e:
        answers.array("acc", ref + 0.1, ref, decimals=3)
    assert not [f for v in ref for f in _printed(float(v)) if f in str(e.value)]
