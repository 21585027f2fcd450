"""The README's Python examples run as written (a newcomer copies them first)."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_the_readme_examples_run_and_the_loss_is_a_python_float(capsys):
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert blocks, "the README has Python examples"
    namespace = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)
    printed = capsys.readouterr().out.splitlines()
    losses = [float(line.split()[-1]) for line in printed if line.startswith("step")]
    assert len(losses) == 3 and losses[0] > losses[1] > losses[2]
    assert namespace["value"].shape == ()            # a 0-D loss: float() takes it
