"""The reading times that notebooks/README.md and each notebook's top note state are the
ones counted from the notebooks (tests/notebooks/reading_times.py), so they stay honest as
the notebooks change (issue 26: a core path of about 90 minutes)."""
import re

import pytest

from tests.notebooks import reading_times

README = reading_times.SCRIPTS.parent / "README.md"
ROW = re.compile(r"^\| \d \| \[(\d\d) [^]]*\]\(\d\d_\w+\.ipynb\), ([^|]*?) \| [^|]* \| (\d+) min")
OPTIONAL = re.compile(r"^\| \[(\d\d) [^]]*\]\(\d\d_\w+\.ipynb\) \| [^|]* \| (\d+) min")
NOTE = re.compile(r"^# > \*\*(?:Core path|Optional lab)[^*]*?· about (\d+) min", re.MULTILINE)
SLACK = 1.0          # minutes: the stated times are rounded


def listed_sections(spec):
    """['1', '2', '3', '5'] for '§1–3, §5'."""
    keys = []
    for first, last in re.findall(r"§(\d+)(?:–(\d+))?", spec):
        keys += [str(k) for k in range(int(first), int(last or first) + 1)]
    return keys


def readme_rows():
    core, optional = {}, {}
    for line in README.read_text(encoding="utf-8").splitlines():
        if found := ROW.match(line):
            core[found.group(1)] = (listed_sections(found.group(2)), int(found.group(3)))
        elif found := OPTIONAL.match(line):
            optional[found.group(1)] = int(found.group(2))
    return core, optional


def script(number):
    return next(reading_times.SCRIPTS.glob(f"{number}_*.py"))


def whole(number):
    return sum(a + b for a, b in reading_times.sections(script(number)).values())


def test_readme_lists_the_five_core_notebooks_and_the_optional_ones():
    core, optional = readme_rows()
    assert list(core) == ["01", "02", "06", "03", "04"]
    assert sorted(optional) == ["05", "07", "08", "09", "10"]


@pytest.mark.parametrize("number", ["01", "02", "06", "03", "04"])
def test_a_core_notebooks_time_is_the_counted_one(number):
    sections, stated = readme_rows()[0][number]
    counted = reading_times.core_minutes(script(number), sections)
    assert abs(counted - stated) <= SLACK, f"{number}: README says {stated}, counted {counted:.1f}"


@pytest.mark.parametrize("number", ["05", "07", "08", "09", "10"])
def test_an_optional_notebooks_time_is_the_counted_one(number):
    stated = readme_rows()[1][number]
    assert abs(whole(number) - stated) <= SLACK, \
        f"{number}: README {stated}, counted {whole(number):.1f}"


def test_the_core_path_reads_in_about_ninety_minutes():
    core, _ = readme_rows()
    counted = sum(reading_times.core_minutes(script(n), sections)
                  for n, (sections, _) in core.items())
    stated = int(re.search(r"Reading: about (\d+) minutes as counted",
                           README.read_text(encoding="utf-8")).group(1))
    assert abs(counted - stated) <= SLACK and counted <= 95, counted


def test_each_notebooks_note_states_the_readmes_time():
    core, optional = readme_rows()
    stated = {**{n: minutes for n, (_, minutes) in core.items()}, **optional}
    for number, minutes in stated.items():
        note = NOTE.search(script(number).read_text(encoding="utf-8"))
        assert note, f"{number}: no 'Core path ... · about N min' note at its top"
        assert int(note.group(1)) == minutes, f"{number}: note {note.group(1)}, README {minutes}"


def test_a_lab_subsection_and_a_folded_cell_are_not_core(tmp_path):
    path = tmp_path / "99_x.py"
    path.write_text("# %% [markdown]\n# ## 1. A\n# " + "word " * 200 + "\n"
                    "# %% [markdown]\n# ### Lab: b\n# " + "word " * 400 + "\n"
                    '# %% jupyter={"source_hidden": true}\n' + "x = 1\n" * 300 +
                    "# %% [markdown]\n# ## Summary\n# " + "word " * 100 + "\n", encoding="utf-8")
    found = reading_times.sections(path)
    assert round(found["1"][0], 1) == 1.0 and round(found["1"][1], 1) == 2.0
    assert round(reading_times.core_minutes(path, ["1"]), 1) == 1.5
