# paddle_nb: `make lab` opens the notebooks, `make test` runs every test.
# Both install what they need first: Python packages into .venv (pyproject.toml's extras) and,
# when missing, the Debian packages graphviz (`dot`) and chromium (browser tests).

SHELL   := /bin/bash
PYTHON  ?= python3
VENV    := .venv
PY      := $(VENV)/bin/python
EXTRAS  ?= test
STAMP   := $(VENV)/.stamp-$(EXTRAS)
SYSPKGS := graphviz chromium fonts-dejavu-core

PYTEST_ARGS ?=
LAB_ARGS    ?=
# Jupyter refuses to start as root without --allow-root.
ALLOW_ROOT   = $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)

export PIP_NO_INPUT := 1
export PIP_DISABLE_PIP_VERSION_CHECK := 1
# ipykernel's debugger otherwise warns about frozen modules in every kernel a test starts.
export PYDEVD_DISABLE_FILE_VALIDATION := 1

.PHONY: venv sysdeps widgetjs lint test lab notebooks proto bench clean

## venv: .venv with `pip install -e '.[$(EXTRAS)]'`; redone only when pyproject.toml is newer than the stamp
venv: $(STAMP)
	@# An editable install made before paddle_nb/ existed maps nothing; redo it (cheap, no deps).
	@if [ -d paddle_nb ] && ! (cd / && "$(abspath $(PY))" -c 'import importlib.util as u, sys; sys.exit(u.find_spec("paddle_nb") is None)'); then \
	  echo "paddle_nb is not importable from .venv; reinstalling it (editable, no deps)"; \
	  $(PY) -m pip install -q --no-deps -e . ; \
	fi

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || \
	  { echo "paddle_nb needs Python >= 3.10; '$(PYTHON)' is $$($(PYTHON) --version 2>&1). Run: make PYTHON=python3.11 ..."; exit 1; }
	@if ! $(PYTHON) -c 'import venv, ensurepip' 2>/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -q </dev/null && apt-get install -y -q --no-install-recommends python3-venv </dev/null; \
	  else \
	    echo "'$(PYTHON) -m venv' is unavailable: install Debian's python3-venv (sudo apt-get install python3-venv)"; exit 1; \
	  fi; \
	fi
	@if [ -x $(PY) ] && $(PY) -c 'import sys' 2>/dev/null; then :; \
	  else echo "creating $(VENV)"; $(PYTHON) -m venv --clear $(VENV); fi
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -e '.[$(EXTRAS)]'
	@touch $@

## sysdeps: graphviz's `dot` and /usr/bin/chromium, from Debian when root; otherwise says what to install
sysdeps:
	@if command -v dot >/dev/null 2>&1 && [ -x /usr/bin/chromium ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing Debian packages: $(SYSPKGS)"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  if apt-get update -q </dev/null && \
	     apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 $(SYSPKGS) </dev/null; then :; \
	  else \
	    echo "WARNING: apt-get could not install $(SYSPKGS); tests that need dot or chromium will be skipped."; \
	  fi; \
	else \
	  echo "NOTE: graphviz's 'dot' or /usr/bin/chromium is missing, and this is not a root Debian shell."; \
	  echo "      Install them with: sudo apt-get install graphviz chromium"; \
	  echo "      (or 'conda install -c conda-forge graphviz' for dot). Tests that need them will be skipped."; \
	fi

## lint: ruff (pyflakes, pycodestyle) over paddle_nb, tests, bench, tools and interop, and mypy over paddle_nb/ (pyproject.toml configures both); any error fails
lint: venv
	$(VENV)/bin/ruff check paddle_nb tests bench tools interop
	$(PY) -m mypy

## test: lint, then every test (tests/ and the doctests in paddle_nb/); extra pytest options via PYTEST_ARGS
test: venv sysdeps widgetjs lint
	$(PY) -m pytest -q $(PYTEST_ARGS)

## widgetjs: the widget JavaScript a static HTML export loads (npm pack into build/widget-js/),
## so the browser test can answer the page's CDN requests from local files
widgetjs: venv
	@if $(PY) -c 'import sys; sys.path.insert(0, "."); from tests.browser import fetch_widget_js as f; sys.exit(not f.installed())'; then :; \
	elif command -v npm >/dev/null 2>&1; then $(PY) tests/browser/fetch_widget_js.py || \
	  echo "WARNING: could not fetch the widget JavaScript; the static-export browser test will be skipped."; \
	else echo "npm is missing (Debian: apt-get install npm); the static-export browser test will be skipped."; fi

## lab: JupyterLab on the notebooks, on 127.0.0.1; extra options via LAB_ARGS
## (tools/lab/overrides.json turns off JupyterLab's news prompt and update check: nothing is fetched).
## Work freely: scratch notebooks (Untitled*) are ignored by git and the tests, and the tests read
## the tour notebooks as committed; `git checkout -- notebooks/` brings back the committed ones.
lab: venv sysdeps
	@mkdir -p notebooks
	@install -D -m 644 tools/lab/overrides.json $(VENV)/share/jupyter/lab/settings/overrides.d/paddle_nb.json
	@echo "lab: scratch notebooks (Untitled*) stay out of git and the tests; saved tour notebooks: 'git checkout -- notebooks/' restores them"
	$(VENV)/bin/jupyter lab --ip=127.0.0.1 $(ALLOW_ROOT) $(LAB_ARGS) notebooks/

## notebooks: sync each notebooks/scripts/NN_name.py with its .ipynb (jupytext: the newer wins), re-run it and
## store its outputs readable without a kernel (pictures as PNG drawn by chromium); NOTEBOOKS=... picks some
NOTEBOOKS ?= $(wildcard notebooks/scripts/[0-9][0-9]_*.py)
notebooks: venv sysdeps
	PYTHONPATH="$(CURDIR)$${PYTHONPATH:+:$$PYTHONPATH}" $(PY) tools/run_notebooks.py $(NOTEBOOKS)

## proto: regenerate paddle_nb/proto/framework_pb2.py from proto/framework.proto (protoc, then
## proto/generate.py writes a module that imports under protobuf 3.20.2 to the newest)
proto: venv
	$(PY) proto/generate.py

## bench: run every bench/bench_*.py and print their tables
bench: venv
	@if [ -f bench/__main__.py ]; then $(PY) -m bench; else echo "no bench/__main__.py: nothing to run"; fi

## tour: execute every notebooks/NN_*.ipynb into build/tour/NN_*.html (widget state embedded, readable without a kernel)
.PHONY: tour
tour: venv
	@mkdir -p build/tour
	@set -e; for nb in notebooks/[0-9][0-9]_*.ipynb; do \
	  echo "tour: $$nb -> build/tour/$$(basename "$$nb" .ipynb).html"; \
	  PYTHONPATH="$(CURDIR)$${PYTHONPATH:+:$$PYTHONPATH}" $(VENV)/bin/jupyter nbconvert --to html \
	    --execute --ExecutePreprocessor.store_widget_state=True --ExecutePreprocessor.timeout=120 \
	    --log-level=WARN --output-dir build/tour "$$nb"; \
	done
	@$(PY) -c "$$TOUR_CHECK" notebooks/[0-9][0-9]_*.ipynb

# The check after `make tour`: each page exists, shows every heading of its notebook, and embeds
# the widgets' state when it shows widgets (ipywidgets, anywidget: nbconvert stores their state).
define TOUR_CHECK
import html, pathlib, re, sys
import nbformat
problems = []
for notebook in map(pathlib.Path, sys.argv[1:]):
    page = pathlib.Path("build/tour") / (notebook.stem + ".html")
    if not page.is_file():
        problems.append(f"{page}: missing")
        continue
    text = page.read_text(encoding="utf-8")
    shown = {" ".join(html.unescape(re.sub(r"<[^>]+>", "", h)).replace("\u00b6", "").split())
             for h in re.findall(r"<h[1-6][^>]*>(.*?)</h[1-6]>", text, re.S)}
    wanted, fenced = [], False
    for cell in nbformat.read(notebook, as_version=4).cells:
        for line in cell.source.splitlines() if cell.cell_type == "markdown" else []:
            fenced ^= line.lstrip().startswith("```")
            heading = None if fenced else re.match(r"#{1,6}\s+(.+)", line)
            if heading:
                wanted.append(" ".join(re.sub(r"[`*]", "", heading.group(1)).split()))
    problems += [f"{page}: no heading {w!r}" for w in wanted if w not in shown]
    if "widget-view+json" in text and "application/vnd.jupyter.widget-state+json" not in text:
        problems.append(f"{page}: shows widgets but embeds no widget state")
    print(f"tour: {page} ({len(text) // 1024} KiB, {len(wanted)} headings)")
sys.exit("\n".join(problems) if problems else 0)
endef
export TOUR_CHECK

## interop: PaddlePaddle 2.6.2 (CPU, from PyPI) in .venv-interop makes fresh fixtures and the corpus of real programs, then paddle_nb and PaddlePaddle run each other's files, and PaddlePaddle runs a sample of the differential test's programs (not part of `make test`)
# INTEROP_FIXTURES=tests/fixtures/paddle26 regenerates the committed fixtures and corpus in
# place, and docs/paddle_coverage.md with them; otherwise all goes to build/interop/.
INTEROP_PYTHON   ?= $(PYTHON)
INTEROP_VENV     := .venv-interop
INTEROP_PY       := $(INTEROP_VENV)/bin/python
INTEROP_STAMP    := $(INTEROP_VENV)/.stamp-paddlepaddle-2.6.2
# the model zoos' packages (interop/zoo/requirements.txt: exact versions, installed --no-deps)
ZOO_STAMP        := $(INTEROP_VENV)/.stamp-zoo-paddleclas-2.6.0-paddledet-2.6.0-paddleseg-2.8.0-paddlenlp-2.8.1
INTEROP_FIXTURES ?= build/interop/paddle26
# (defined before the interop target: make expands a rule's prerequisites as it reads it)
FLEET_VENV  := build/fleet-venv
FLEET_PY    := $(FLEET_VENV)/bin/python
FLEET_STAMP := $(FLEET_VENV)/.stamp-protobuf4
INTEROP_CORPUS   := $(INTEROP_FIXTURES)/corpus
INTEROP_COVERAGE ?= $(if $(filter tests/fixtures/paddle26,$(patsubst %/,%,$(INTEROP_FIXTURES))),docs/paddle_coverage.md,build/interop/paddle_coverage.md)
.PHONY: interop
interop: venv $(INTEROP_STAMP) $(ZOO_STAMP) $(FLEET_STAMP)
	$(INTEROP_PY) interop/make_fixtures.py --out $(INTEROP_FIXTURES)
	$(PY) interop/check_both_ways.py --fixtures $(INTEROP_FIXTURES) --work build/interop/work \
	  --nb-python $(PY) --paddle-python $(INTEROP_PY)
	@# PaddlePaddle and paddle_nb in one process, imported in either order (and from_paddle / to_paddle)
	PYTHONPATH="$(CURDIR)$${PYTHONPATH:+:$$PYTHONPATH}" $(INTEROP_PY) interop/check_coexist.py
	@# the preamble's mark (op attribute initializes_once) kept and run by PaddlePaddle
	PYTHONPATH="$(CURDIR)$${PYTHONPATH:+:$$PYTHONPATH}" $(INTEROP_PY) interop/check_initializes_once.py \
	  --out $(INTEROP_FIXTURES)
	@# the corpus (interop/README.md): PaddlePaddle's programs, timed; PaddlePaddle runs them as
	@# paddle_nb writes them; paddle_nb runs them (the coverage table; fails unless all run)
	$(INTEROP_PY) interop/make_corpus.py --time --out $(INTEROP_CORPUS)
	$(PY) interop/check_corpus.py --corpus $(INTEROP_CORPUS) --work build/interop/corpus_work \
	  --nb-python $(PY) --paddle-python $(INTEROP_PY)
	$(PY) tools/paddle_coverage.py --corpus $(INTEROP_CORPUS) --out $(INTEROP_COVERAGE) --check
	@# other models with the same op types at other sizes (nothing fitted to the corpus)
	$(INTEROP_PY) interop/outside_corpus.py make --out build/interop/outside
	$(PY) interop/outside_corpus.py check --out build/interop/outside
	$(PY) interop/differential_paddle.py --count 100 --work build/interop/differential \
	  --nb-python $(PY) --paddle-python $(INTEROP_PY)
	@# the API sweep: every public callable of PaddlePaddle on small inputs (interop/sweep/), then
	@# the coverage pages (docs/api_coverage.md, the op-type table of docs/paddle_coverage.md)
	$(INTEROP_PY) -m interop.sweep.make_sweep --out $(INTEROP_FIXTURES)/sweep
	$(PY) tools/api_coverage.py --sweep $(INTEROP_FIXTURES)/sweep \
	  $(if $(filter tests/fixtures/paddle26,$(patsubst %/,%,$(INTEROP_FIXTURES))),,--check)
	@# the model zoos: PaddleClas, PaddleDetection, PaddleSeg and PaddleNLP models as their export
	@# tools write them (interop/README.md, "The model zoos"); paddle_nb runs those it can
	$(INTEROP_PY) interop/make_zoo.py --time --out $(INTEROP_FIXTURES)/zoo
	$(PY) -m interop.zoo.check_zoo --zoo $(INTEROP_FIXTURES)/zoo
	@# PaddlePaddle 2.x training scripts (interop/scripts/), run unchanged by both frameworks from
	@# the same parameters: same op types, persistable names and fetched values, step by step
	$(INTEROP_PY) interop/run_scripts.py paddle --out $(INTEROP_FIXTURES)/scripts
	$(PY) interop/run_scripts.py nb --out build/interop/scripts
	$(PY) interop/run_scripts.py compare --out build/interop/scripts \
	  --reference $(INTEROP_FIXTURES)/scripts
	@# training programs exported by pd.io.export_training and trained by PaddlePaddle's train.py:
	@# losses step by step and the saved weights, then Fleet (1 server, 2 CPU workers)
	$(PY) interop/export/check_export.py --paddle-python $(INTEROP_PY) --fleet-python $(FLEET_PY) \
	  --work build/interop/export --fixture $(INTEROP_FIXTURES)/export/losses.json

# paddlepaddle 2.6.2 has wheels for CPython 3.8 to 3.12 and needs NumPy < 2.
$(INTEROP_STAMP):
	@$(INTEROP_PYTHON) -c 'import sys; sys.exit(not (3, 8) <= sys.version_info[:2] <= (3, 12))' || \
	  { echo "paddlepaddle 2.6.2 needs Python 3.8 to 3.12; '$(INTEROP_PYTHON)' is $$($(INTEROP_PYTHON) --version 2>&1). Run: make interop INTEROP_PYTHON=python3.11"; exit 1; }
	$(INTEROP_PYTHON) -m venv --clear $(INTEROP_VENV)
	$(INTEROP_PY) -m pip install -q --upgrade pip
	$(INTEROP_PY) -m pip install 'paddlepaddle==2.6.2' 'numpy<2'
	@touch $@

# Fleet 2.6.2 needs protobuf 4.x (with 7.x it fails printing its strategy): a venv of its own that
# reuses .venv-interop's packages through a .pth file, with protobuf 4 installed in front of them
$(FLEET_STAMP): $(INTEROP_STAMP)
	$(INTEROP_PY) -m venv --clear $(FLEET_VENV)
	$(INTEROP_PY) -c 'import site; print(site.getsitepackages()[0])' \
	  > "$$($(FLEET_PY) -c 'import site; print(site.getsitepackages()[0])')/interop.pth"
	$(FLEET_PY) -m pip install -q 'protobuf>=4.21,<5'
	@touch $@

# --no-deps: the zoos pin numpy 1.24 (their models run with PaddlePaddle's 1.26) and require
# servers and converters their models never import
$(ZOO_STAMP): $(INTEROP_STAMP) interop/zoo/requirements.txt
	$(INTEROP_PY) -m pip install --no-deps -r interop/zoo/requirements.txt
	@touch $@

clean:
	rm -rf $(VENV) build dist *.egg-info .hypothesis .pytest_cache .mypy_cache .ruff_cache
	find . -path ./.git -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
