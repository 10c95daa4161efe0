# Entry points: `make all` runs the pipeline, `make test` runs the tests, `make bench` times a cold
# build, a rerun and a dry run on a scratch copy, `make rulegraph` draws docs/rulegraph.svg. Each sets up what it needs.
VENV ?= .venv
CORES ?= 8
PYTHON ?= python3
# Debian packages the pipeline needs: Apertium (offline en<->es MT) and WordNet 3.0.
SYSTEM_PACKAGES := apertium apertium-eng-spa wordnet-base
# The single-node Slurm test (opt-in: STSYNTH_SLURM_TEST=1) also needs Slurm and munge.
TEST_SYSTEM_PACKAGES := $(SYSTEM_PACKAGES) $(if $(STSYNTH_SLURM_TEST),slurm-wlm munge)

.PHONY: all stsb test env lint bench rulegraph
BENCH_CORES ?= 2

all: env
	@$(MAKE) --no-print-directory system-packages PACKAGES="$(SYSTEM_PACKAGES)"
	$(VENV)/bin/snakemake --cores $(CORES) all

# The same system on the STS Benchmark protocol (config/stsb.yaml over config.yaml), in its own
# working directory so its results never mix with the STS 2016 ones.
STSB_DIR ?= runs/stsb
stsb: env
	@$(MAKE) --no-print-directory system-packages PACKAGES="$(SYSTEM_PACKAGES)"
	$(VENV)/bin/snakemake --directory $(STSB_DIR) --configfile $(CURDIR)/config.yaml $(CURDIR)/config/stsb.yaml --cores $(CORES) all

test: env
	@$(MAKE) --no-print-directory system-packages PACKAGES="$(TEST_SYSTEM_PACKAGES)"
	$(VENV)/bin/snakemake --lint
	$(VENV)/bin/pytest

# Cold `snakemake all`, the no-op dry run and a gold-threshold rerun on a scratch copy (workflow/bench.py).
bench: env
	@$(MAKE) --no-print-directory system-packages PACKAGES="$(SYSTEM_PACKAGES)"
	$(VENV)/bin/python workflow/bench.py --cores $(BENCH_CORES)

# The stage-level DAG (one node per rule) as docs/rulegraph.svg; needs Graphviz's dot.
rulegraph: env
	@$(MAKE) --no-print-directory system-packages PACKAGES="graphviz"
	$(VENV)/bin/snakemake all --rulegraph dot > docs/rulegraph.dot
	dot -Tsvg docs/rulegraph.dot -o docs/rulegraph.svg && rm docs/rulegraph.dot

env: $(VENV)/.installed

$(VENV)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -r requirements.txt
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
