"""The *For instructors* page (book/27_for_instructors.md) says what the code does: each check's rule and
decimals, the example messages, the points of the hidden tests and the plan's times.  Each test reads the fact
from the code or the master notebooks and fails when the page disagrees."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from selfconf import course
from selfconf.course import grading, verify

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "book" / "27_for_instructors.md").read_text(encoding="utf-8")
MASTERS = {s: (ROOT / "notebooks" / f"{s}.py").read_text(encoding="utf-8") for s in course.TEACHING}


def _rows() -> dict[str, str]:
    """{exercise: its row} of the page's exercises table."""
    return dict(re.findall(r"^\| 2[01] \| `([\w-]+)` \|(.*)$", PAGE, flags=re.M))


def _exercises() -> list[str]:
    return [n for text in MASTERS.values() for n in re.findall(r"^# # BEGIN QUESTION\n# name: (\S+)", text, flags=re.M)]


def test_the_exercises_table_lists_every_exercise_and_each_numbers_decimals():
    rows = _rows()
    assert sorted(rows) == sorted(_exercises())
    shown = {}
    for row in rows.values():
        shown.update({name: int(d) for name, d in re.findall(r"`([\w.]+)` \((\d)\)", row)})
    computed = {name: d for name, d in shown.items() if name not in verify.PRINTED}
    assert computed == {"conf_after": verify.COMPUTED_DECIMALS, "conf_rev": verify.COMPUTED_DECIMALS}
    assert {n: d for n, d in shown.items() if n in verify.PRINTED} == {
        name: d for name, (d, _) in verify.PRINTED.items() if name in shown
    }
    missing = sorted(set(verify.PRINTED) - set(shown))
    assert not missing, f"the page does not say at how many decimals these are compared: {missing}"


def test_the_example_messages_are_ones_the_checks_print():
    quoted = re.search(r'\(for example, "(Not yet:[^"]+)"\)', PAGE.replace("\n", " "))
    assert quoted, "no example 'Not yet' message on the page"
    shipped = " ".join(ex.failure for s in course.TEACHING for ex in grading.EXERCISES[s].values())
    assert quoted.group(1) in shipped
    examples = re.findall(r"`AssertionError: ([^`]+)`", PAGE.replace("\n", " "))
    assert len(examples) >= 2
    rng = np.random.default_rng(0)
    score = rng.uniform(0, 1, 500)
    y = (rng.random(500) < score).astype(int)
    grid = tuple(np.round(np.arange(0.05, 1.0001, 0.05), 2))
    printed = []
    for call in (
        lambda: verify.coverage_below_10(0.05, score, y, grid),
        lambda: verify.reverse_ranking(np.zeros((2, 750)), rng.uniform(0, 1, 1500), np.ones(1500)),
    ):
        with pytest.raises(AssertionError) as e:
            call()
        printed.append(str(e.value))
    assert sorted(examples) == sorted(printed)


def test_the_points_on_the_page_are_the_hidden_tests_points():
    points = {}
    for text in MASTERS.values():
        for name, body in re.findall(r"^# name: (\S+)\n(.*?)^# # END QUESTION", text, flags=re.M | re.S):
            found = re.findall(r"hidden: true\npoints: (\d+)", body)
            if found:
                points[name] = int(found[0])
    sentence = re.search(r"The points: (.*?) graded by hand", PAGE.replace("\n", " ")).group(1)
    twos = re.search(r"2 for (.*?) 1 for each of the others", sentence).group(1)
    assert sorted(re.findall(r"`([\w-]+)`", twos)) == sorted(n for n, p in points.items() if p == 2)
    assert set(points.values()) == {1, 2}


def _minutes(block: str) -> list[int]:
    return [int(m) for m in re.findall(r"^\d+\. \*\*\((\d+) min\)\*\*", block, flags=re.M)]


def test_the_plans_add_up_and_use_every_exercise_once():
    s50 = PAGE.split("## A 50-minute session", 1)[1].split("## ", 1)[0]
    s90 = PAGE.split("## A 90-minute session", 1)[1].split("## ", 1)[0]
    assert sum(_minutes(s50)) == 50
    assert sum(_minutes(s90)) == 90
    in_class, homework = s90.split("**Homework**", 1)
    total = re.match(r" \(about (\d) h (\d+) min in all\)", homework)
    items = re.findall(r"`([\w-]+)`\s+\((\d+) min", homework)
    assert total and sum(int(m) for _, m in items) == 60 * int(total.group(1)) + int(total.group(2))
    exercised = re.findall(r"Exercises? `([\w-]+)`", in_class) + [n for n, _ in items]
    assert sorted(exercised) == sorted(_exercises())


def test_the_student_site_page_has_no_solution_and_keeps_everything_else():
    """``course.without_solutions`` (the student-only site's teaching pages): no line marked ``# SOLUTION``, no
    written reference answer, no check or hidden test, no output under a solution; every other cell kept as is."""
    import jupytext
    import nbformat

    for stem in course.TEACHING:
        nb = jupytext.read(ROOT / "notebooks" / f"{stem}.py")
        for c in nb.cells:  # pretend it was executed: every code cell has an output
            if c.cell_type == "code":
                c.outputs = [nbformat.v4.new_output("stream", text="shown\n")]
        out = course.without_solutions(nb)
        text = "\n".join(c.source for c in out.cells)
        solution_lines = [ln for ln in MASTERS[stem].splitlines() if ln.rstrip().endswith("# SOLUTION")]
        assert solution_lines
        assert "# SOLUTION" not in text and "Reference answer" not in text and "verify." not in text
        assert not [ln for ln in solution_lines if ln.lstrip("# ").strip() in text]
        assert "reference solution is shown" not in text
        kept_ids = {c.get("id") for c in out.cells}
        dropped = [c for c in nb.cells if c.get("id") not in kept_ids]
        assert all(c.cell_type == "markdown" or "verify." in c.source for c in dropped), (
            "a cell other than a check or a written answer was dropped"
        )
        for c in out.cells:
            if c.cell_type == "code" and "= ..." in c.source:
                assert c.outputs == [] and "mystnb" not in c.metadata  # no "Show the reference solution" toggle
        glue_cells = [c for c in nb.cells if c.cell_type == "code" and "glue." in c.source]
        assert all(c.get("id") in kept_ids for c in glue_cells)


def test_the_page_names_the_student_site_build_and_its_branch():
    text = re.sub(r"\s+", " ", PAGE)
    assert "`make book EDITION=student`" in text
    assert "publish --edition student" in text
    assert f"`{course.student_branch(ROOT)}`" in text
    from selfconf.book import build

    assert f"`{build.STUDENT_SITE}/_build/html/`" in text
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "$(if $(EDITION),--edition $(EDITION))" in makefile


def test_the_grading_limits_on_the_page_are_the_commands_defaults(capsys):
    """Page 27 names each limit of ``python -m selfconf.course grade`` with its default; the command's help says
    the same default (a changed default fails until the page follows)."""
    quoted = dict(re.findall(r"`(--[a-z-]+) (\d+)`", re.sub(r"\s+", " ", PAGE)))
    assert sorted(quoted) == ["--cell-timeout", "--memory-gb", "--time-limit"]
    with pytest.raises(SystemExit):
        course.main(["grade", "--help"])
    help_text = re.sub(r"\s+", " ", capsys.readouterr().out)
    for flag, value in quoted.items():
        assert re.search(rf"{flag} [A-Z_]+ [^(]*\(default {value}[;)]", help_text), (flag, value, help_text)
