# Two commands do all the set-up:  `make serve` (the site)  and  `make test` (the whole suite).
# Both install into .venv from uv.lock (every package pinned, for Linux and macOS). uv itself, pinned
# in pyproject.toml, is pip-installed into .tools/ first: nothing outside the checkout changes.
#
#   serve   the docs install only (no torch), then `mkdocs serve`. With an NVIDIA GPU (`nvidia-smi -L`
#           answers) the build measures live, so it adds the `measure` extra and prints its torch.
#   test    docs + test + measure + lint: the lint (ruff, ruff format, mypy), then the whole suite.
#   lint    the lint alone: `ruff check`, `ruff format --check`, `mypy` (configured in pyproject.toml).
#
# TORCH: where the `measure` extra's torch comes from.
#   lock    the lock's: PyPI's build of the pinned version (Linux: CUDA 13, about 3 GB; macOS: CPU + MPS).
#           The default with a GPU, and on macOS.
#   pip     the lock's version, installed by pip with your pip configuration: an index or a folder of
#           wheels that has the CPU build gives it (PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu),
#           else PyPI's CUDA build. The default on Linux without a GPU.
#   system  the torch that $(PYTHON) already has (a GPU builder's own build): .venv sees its
#           site-packages and nothing installs torch. `TORCH=` (empty) means the same.
#           `make clean` first when an existing .venv switches to or from it.
PYTHON     ?= python3
VENV       ?= .venv
TOOLS      ?= .tools
DEV_ADDR   ?= 127.0.0.1:8000
UV_VERSION := $(shell sed -n 's/^required-version = "==\(.*\)"/\1/p' pyproject.toml)
UV         := $(TOOLS)/bin/uv
UV_STAMP   := $(TOOLS)/.uv-$(UV_VERSION)
BIN        := $(VENV)/bin
GPU        := $(shell nvidia-smi -L >/dev/null 2>&1 && echo yes)
TORCH      ?= $(if $(or $(GPU),$(filter Darwin,$(shell uname -s))),lock,pip)
TORCH_MODE := $(if $(TORCH),$(TORCH),system)
ifneq ($(filter-out lock pip system,$(TORCH_MODE)),)
$(error TORCH=$(TORCH): expected lock, pip or system (see the Makefile's header))
endif
export UV_PROJECT_ENVIRONMENT := $(abspath $(VENV))
export NO_MKDOCS_2_WARNING := 1

# --locked: exactly uv.lock, and a stop with uv's one line when pyproject.toml changed without
# `.tools/bin/uv lock`. --inexact: `make serve` after `make test` keeps the test tools and pip's torch.
SYNC := $(UV) sync --locked --inexact --quiet
MEASURE_EXTRA := $(if $(filter lock,$(TORCH_MODE)),--extra measure)

.PHONY: serve build sites test lint install install-test tools gpu-builder gpu-wheels clean

serve: $(VENV)/.docs
	$(BIN)/mkdocs serve --strict --dev-addr $(DEV_ADDR)

build: $(VENV)/.docs
	$(BIN)/mkdocs build --strict

# The site, plus one site per committed snapshot under site/snapshots/ (what publishing uploads).
sites: $(VENV)/.docs
	$(BIN)/python -m attn_examples.site.sites -d site

test: lint
	$(BIN)/python -m pytest

lint: $(VENV)/.test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

install: $(VENV)/.docs
install-test: $(VENV)/.test
tools: $(UV_STAMP)

# .tools/pip is the pip that installs uv (and torch with TORCH=pip): $(PYTHON)'s own when it has one
# that takes --python (pip >= 22.3), which spares setting up a second pip (5 s here), else one that
# ensurepip puts into .tools (a Python without pip, such as Debian's python3 without python3-pip).
$(TOOLS)/pip:
	$(PYTHON) -m venv --without-pip $(TOOLS)
	@if $(PYTHON) -m pip --python $(TOOLS)/bin/python --version >/dev/null 2>&1; \
	then echo 'exec $(PYTHON) -m pip "$$@"' > $@; \
	else $(TOOLS)/bin/python -m ensurepip --default-pip >/dev/null && echo 'exec "$(abspath $(TOOLS))/bin/python" -m pip "$$@"' > $@; fi

# Named by its version: a new pin in pyproject.toml installs the new uv.
$(UV_STAMP): | $(TOOLS)/pip
	sh $(TOOLS)/pip --python $(TOOLS)/bin/python install --quiet --disable-pip-version-check uv==$(UV_VERSION)
	@touch $@

$(BIN)/python: | $(UV_STAMP)
	$(UV) venv --quiet --python $(PYTHON) $(if $(filter system,$(TORCH_MODE)),--system-site-packages) $(VENV)

$(VENV)/.docs: pyproject.toml uv.lock $(UV_STAMP) | $(BIN)/python
	$(SYNC) --extra docs $(if $(GPU),$(MEASURE_EXTRA))
	$(if $(GPU),@$(MAKE) --no-print-directory torch)
	@touch $@

$(VENV)/.test: pyproject.toml uv.lock $(UV_STAMP) | $(BIN)/python
	$(SYNC) --extra docs --extra test --extra lint $(MEASURE_EXTRA)
	@$(MAKE) --no-print-directory torch
	@touch $@

# The measure extra's torch by TORCH (lock: the sync above installed it), and which build it is.
.PHONY: torch
torch: | $(BIN)/python
ifeq ($(TORCH_MODE),pip)
	$(UV) export --locked --quiet --no-hashes --no-emit-project --extra measure -o $(VENV)/measure-constraints.txt
	sh $(TOOLS)/pip --python $(BIN)/python install --quiet --disable-pip-version-check \
	  --no-compile -c $(VENV)/measure-constraints.txt torch
endif
	@$(BIN)/python -c "$$TORCH_BUILD" $(TORCH_MODE) $(if $(GPU),gpu)

define TORCH_BUILD
import sys
try:
    import torch
except ImportError:
    sys.exit(f"TORCH={sys.argv[1]}: no torch in {sys.prefix} (see the Makefile's header)")
cuda = torch.version.cuda
note = ""
if "gpu" in sys.argv:
    note = ("it sees the GPU" if torch.cuda.is_available() else
            f"it does NOT see the GPU (a driver older than CUDA {cuda}?)" if cuda else "it cannot use the GPU")
print(f"torch {torch.__version__}, {'CUDA ' + cuda if cuda else 'CPU'} build (TORCH={sys.argv[1]}){'; ' + note if note else ''}")
endef
export TORCH_BUILD

# The docs and test stack as wheels in .whl/ for a GPU builder without network (scripts/gpu-wheels.sh).
gpu-wheels: $(UV_STAMP)
	bash scripts/gpu-wheels.sh

clean:
	rm -rf $(VENV) $(TOOLS) site .cache
