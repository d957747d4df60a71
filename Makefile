# Two commands do all the set-up:  `make serve` (the site)  and  `make test` (the whole suite).
# Both create .venv on first use. TORCH pins the CPU wheel found on this project's machines;
# a GPU builder that already has a CUDA torch can pass TORCH= (empty) to keep its own.
PYTHON ?= python3
VENV   ?= .venv
TORCH  ?= torch==2.13.0
BIN    := $(VENV)/bin
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve build sites test gpu-builder clean

$(BIN)/attn-examples: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(if $(TORCH),$(BIN)/python -m pip install --quiet "$(TORCH)")
	$(BIN)/python -m pip install --quiet -e ".[docs,test]"
	touch $@

serve: $(BIN)/attn-examples
	$(BIN)/mkdocs serve --strict

build: $(BIN)/attn-examples
	$(BIN)/mkdocs build --strict

# The site, plus one site per committed snapshot under site/snapshots/ (what publishing uploads).
sites: $(BIN)/attn-examples
	$(BIN)/python -m attn_examples.sites -d site

test: $(BIN)/attn-examples
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) site .cache
