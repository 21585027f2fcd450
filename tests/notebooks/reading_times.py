"""Reading times of the tour's notebooks, counted from their jupytext scripts.

The rule notebooks/README.md states: the words of markdown cells at 200 a minute, the words
of code cells at 100 a minute (code is read more slowly, and each cell is run and its output
looked at); hidden solutions (``<details>``) and code cells whose source is folded
(``jupyter={"source_hidden": true}``: an answer, a printing helper) are not counted. A
notebook's *core* time is its introduction, the sections the core path lists, and its summary,
less any subsection headed ``### Lab: ...`` (optional material inside a core section); its
exercises are counted apart.

Run ``python tests/notebooks/reading_times.py`` for every section's minutes.
"""
import pathlib
import re

SCRIPTS = pathlib.Path(__file__).resolve().parents[2] / "notebooks" / "scripts"
CELL = re.compile(r"^# %%(.*)$", re.MULTILINE)
HEADING = re.compile(r"^# (#{2,3}) (.*)$", re.MULTILINE)
SOLUTION = re.compile(r"<details>.*?</details>", re.DOTALL)
WORD = re.compile(r"[A-Za-z0-9_]+")


def cells(text):
    """[(kind, body)] of a jupytext percent script, kind "markdown" or "code"."""
    parts = CELL.split(text)
    return [("markdown" if "[markdown]" in parts[i] else
             "hidden" if "source_hidden" in parts[i] else "code", parts[i + 1])
            for i in range(1, len(parts), 2)]


def section_key(title):
    """'2' for '## 2. Parents...' or '## 2 · ...'; 'Summary', 'Exercises' as they are."""
    if "Exercises" in title:
        return "Exercises"
    found = re.match(r"(\d+)\s*[.·]", title)
    return found.group(1) if found else title.split()[0]


def sections(script):
    """{section key: [minutes, lab minutes]}: 'intro' first, then each '## ' section, with
    the minutes of its '### Lab: ' subsections apart."""
    found, key, lab = {"intro": [0.0, 0.0]}, "intro", False
    for kind, body in cells(script.read_text(encoding="utf-8")):
        if kind == "hidden":
            continue
        pieces = [body] if kind == "code" else HEADING.split(SOLUTION.sub("", body))
        rate = 100 if kind == "code" else 200
        # HEADING.split gives [text, level, title, text, level, title, text, ...]
        chunks = [(None, None, pieces[0])] + [
            (pieces[i], pieces[i + 1], pieces[i + 2]) for i in range(1, len(pieces), 3)]
        for level, title, text in chunks:
            if level == "##":
                key, lab = section_key(title), False
            elif level == "###":
                lab = title.startswith("Lab:")
            minutes = (len(WORD.findall(title or "")) + len(WORD.findall(text))) / rate
            found.setdefault(key, [0.0, 0.0])[1 if lab else 0] += minutes
    return found


def core_minutes(script, listed):
    """The core time: intro, the sections ``listed`` (keys), the summary; no lab parts."""
    found = sections(script)
    return sum(found[key][0] for key in ["intro", *listed, "Summary"] if key in found)


if __name__ == "__main__":
    for path in sorted(SCRIPTS.glob("[0-9][0-9]_*.py")):
        found = sections(path)
        print(f"{path.name}: {sum(a + b for a, b in found.values()):.1f} min")
        for key, (minutes, lab) in found.items():
            print(f"   {key:10} {minutes:5.1f}" + (f"  (+{lab:.1f} lab)" if lab else ""))
