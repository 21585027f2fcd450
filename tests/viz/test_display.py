"""Rich display (IPython formatters), html_of for each type, and value previews."""

import base64
import json
import os
import pathlib
import re
import struct
import subprocess
import sys
import zlib

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.viz import display
from paddle_nb.viz.display import DISPLAYED, html_of
from paddle_nb.viz.preview import NAN_RGB, NEG_INF_RGB, POS_INF_RGB, heatmap_png, preview, summary
from tests.viz import build_ifelse, build_rnn, rnn_feed, run_recorded

ROOT = pathlib.Path(__file__).resolve().parents[2]


# -- previews --------------------------------------------------------------------------------------
def test_a_small_array_previews_as_a_table_with_nan_and_inf_marked():
    text = preview(np.array([[1.5, np.nan], [np.inf, -np.inf]], dtype="float32"))
    assert 'data-preview="table"' in text
    assert re.findall(r"<td[^>]*>([^<]*)</td>", text) == ["1.5", "nan", "+inf", "-inf"]
    assert text.count('class="pnb-nan"') == 1 and text.count('class="pnb-inf"') == 2
    assert "NaN: 1, +Inf: 1, -Inf: 1" in text


def test_scalars_ints_and_empty_arrays_preview():
    assert "<td>7</td>" in preview(np.array(7, dtype="int64"))
    assert 'data-preview="empty"' in preview(np.zeros((0, 3), "float32"))
    assert summary(np.array([True, False])) == "bool[2], 2 B; finite values in [0, 1], mean 0.5"


def decode_png(data):
    """(width, height, (H, W, 3) uint8 pixels) of an 8-bit RGB PNG without filters."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        chunks[kind] = chunks.get(kind, b"") + data[pos + 8:pos + 8 + length]
        pos += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    assert (depth, colour) == (8, 2)
    raw = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(height, 1 + 3 * width)
    assert not raw[:, 0].any()
    return width, height, raw[:, 1:].reshape(height, width, 3)


def test_a_large_array_previews_as_a_heat_map_with_nan_and_inf_marked():
    a = np.linspace(0, 1, 40 * 50, dtype="float32").reshape(40, 50)
    a[3, 4], a[10, 20], a[30, 40] = np.nan, np.inf, -np.inf
    text = preview(a)
    assert 'data-preview="heatmap"' in text and "NaN: 1, +Inf: 1, -Inf: 1" in text
    (uri,) = re.findall(r'src="data:image/png;base64,([^"]+)"', text)
    width, height, pixels = decode_png(base64.b64decode(uri))
    assert (width, height) == (50, 40)
    assert tuple(pixels[3, 4]) == NAN_RGB
    assert tuple(pixels[10, 20]) == POS_INF_RGB and tuple(pixels[30, 40]) == NEG_INF_RGB
    assert tuple(pixels[0, 0]) != tuple(pixels[-1, -1])          # low and high differ


def test_a_huge_array_is_pooled_and_a_single_nan_still_shows():
    a = np.zeros((1000, 600), "float32")
    a[500, 300] = np.nan
    width, height, pixels = decode_png(heatmap_png(a, max_side=100))
    assert (width, height) == (60, 100)
    assert [tuple(p) for p in pixels.reshape(-1, 3)].count(NAN_RGB) == 1


# -- html_of for each type -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def objects():
    """One of each displayed type, from an RNN run (record, scope, variables, tensors)."""
    main, loss = build_rnn(backward=True)
    record, scope = run_recorded(main, rnn_feed(), loss, values=True)
    w = scope.find_var("fc_0.w_0")
    return {"program": main, "block": main.block(1), "scope": scope, "variable": w,
            "tensor": w.get_tensor(), "record": record, "scope_record": record.scopes,
            "desc_variable": main.global_block().var("x"), "operator": main.global_block().ops[0]}


def test_html_of_each_type_carries_data_attributes(objects):
    html = {k: html_of(v) for k, v in objects.items()}
    assert 'data-block="1"' in html["program"] and 'data-op="0"' in html["program"]
    assert 'data-block="1"' in html["block"]
    assert f'data-scope="{objects["scope"].id}"' in html["scope"]
    assert 'data-var="fc_0.w_0" data-state="allocated"' in html["variable"]
    assert 'data-preview="table"' in html["variable"]
    assert 'data-state="allocated"' in html["tensor"] and "float32[3, 5]" in html["tensor"]
    assert 'data-scope-label="step 0"' in html["record"]
    assert 'data-scope-label="run"' in html["scope_record"]
    assert 'data-var="x" data-block="0" data-kind="data"' in html["desc_variable"]
    assert 'data-op="0"' in html["operator"]
    for text in html.values():          # a graph's pan and zoom script is inline: no fetch
        assert "<script src" not in text and "http://" not in text.replace("http://www.w3.org", "")
    assert html["operator"].count("<script") == 0 and html["program"].count("<script>") == 1


def test_html_of_empty_freed_and_destroyed_objects():
    scope = pd.Scope()
    t = scope.var("t").get_tensor()
    assert 'data-state="typed"' in html_of(t)
    assert 'data-state="created"' in html_of(scope.var("v"))
    scope.destroy()
    assert 'data-state="freed"' in html_of(t) and "destroyed" in html_of(scope)
    with pytest.raises(TypeError, match="does not draw a int"):
        html_of(3)


# -- registration with IPython ---------------------------------------------------------------------
@pytest.fixture
def shell():
    InteractiveShell = pytest.importorskip("IPython.core.interactiveshell").InteractiveShell
    shell = InteractiveShell.instance()
    yield shell
    display.unregister(shell)
    InteractiveShell.clear_instance()


def test_registered_objects_show_html_and_keep_their_plain_repr(shell, objects):
    for obj in objects.values():
        data, _ = shell.display_formatter.format(obj)
        assert "text/html" not in data
    assert display.register(shell)
    for name, obj in objects.items():
        data, _ = shell.display_formatter.format(obj)
        assert data["text/html"].startswith('<div class="pnb">'), name
        assert data["text/plain"] == repr(obj), name
    assert set(DISPLAYED) >= {pd.Program, pd.Block, pd.Scope, pd.core.Variable, pd.LoDTensor,
                              pd.executor.record.RunRecord}


def test_load_ext_registers_and_unload_ext_removes(shell):
    main, _ = build_ifelse()
    shell.run_line_magic("load_ext", "paddle_nb.viz")
    assert "text/html" in shell.display_formatter.format(main)[0]
    shell.run_line_magic("unload_ext", "paddle_nb.viz")
    assert "text/html" not in shell.display_formatter.format(main)[0]


def test_a_drawing_error_shows_as_a_note_not_a_traceback(shell, monkeypatch):
    display.register(shell)
    monkeypatch.setitem(display._DRAWERS, pd.Scope, lambda scope: 1 / 0)
    data, _ = shell.display_formatter.format(pd.Scope())
    assert "could not draw this Scope: ZeroDivisionError" in data["text/html"]
    assert data["text/plain"].startswith("<Scope ")


PROBE = """
import json, sys
import IPython
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
import paddle_nb as pd
loaded_by_import = "paddle_nb.viz" in sys.modules
pd.viz.graph                       # the first touch of pd.viz loads it and registers
data, _ = shell.display_formatter.format(pd.Scope())
print(json.dumps({"by_import": loaded_by_import, "html": "text/html" in data}))
"""


def test_touching_pd_viz_loads_the_viewer_and_registers_the_formatters():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         timeout=120, env=env, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {"by_import": False, "html": True}
