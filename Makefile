# selfconf-book.  Two commands do everything on a fresh machine:
#   make book   install requirements (into .venv), execute every notebook, build _build/html
#               (make book DATA=data/raw: compute from the original package where it holds a data family)
#   make test   install requirements, run the test suite (which builds the whole book once)
#   make check  while working: the gate (make lint), the unit tests and the doctests, in under a minute
#   make lint   ruff (lint and format), mypy and the import-layer contracts; zero findings at every commit
#   make pdf    the book as one PDF, typeset by LaTeX: _build/pdf/selfconf-book.pdf
#   make student  the student edition of the teaching chapter: _build/student/ (solutions removed, checks kept)
#   make book EDITION=student  also the student-only site: _build/student-site/ (no reference solution on any page)
SHELL := /bin/bash
PY    := .venv/bin/python
STAMP := .venv/.installed-$(shell cat requirements.txt pyproject.toml 2>/dev/null | sha256sum | cut -c1-12)


.PHONY: lint check browser tex tools install book execute html student notebooks pdf test bench data external rerun clean

$(STAMP):
	@test -x $(PY) || python3 -m venv .venv
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements.txt
	$(PY) -m pip install -q --no-deps -e .
	$(PY) -m ipykernel install --sys-prefix --name python3 --display-name "Python 3" >/dev/null
	rm -f .venv/.installed-* && touch $(STAMP)

install: $(STAMP)

book: install external
	$(PY) -m selfconf.book.build all $(if $(DATA),-p data_dir '"$(DATA)"') $(if $(EDITION),--edition $(EDITION))

execute: install
	$(PY) -m selfconf.book.build execute

html: install
	$(PY) -m selfconf.book.build html $(if $(EDITION),--edition $(EDITION))

# otter assign on every teaching notebook -> _build/student/<page>.ipynb (and the site's download copy)
student: install
	$(PY) -m selfconf.book.build student

# the tree the launch buttons open (the 'notebooks' branch): executed pages, student notebooks, Binder env
notebooks: book student
	$(PY) -m selfconf.course publish _build/notebooks

# the whole book as one PDF, typeset by LaTeX (Jupyter Book's LaTeX builder, xelatex via latexmk; no network:
#   offline, the chapters whose third-party data could not be fetched say so instead of showing them)
#   -> _build/pdf/selfconf-book.pdf, and a copy in _build/html/ that every page's footer links
#   (python -m selfconf.book.pdf --browser prints the HTML pages with Chromium instead)
pdf: book tex
	$(PY) -m selfconf.book.pdf

# Debian's TeX Live for the PDF (xelatex, latexmk, FreeFont) and poppler-utils (no-op when present)
tex:
	bash scripts/install_tex.sh

# Debian's Chromium + ChromeDriver for the browser test (no-op when present)
browser:
	bash scripts/install_browser.sh

# cffconvert and actionlint for the publication tests, in .tools/ (no-op when present)
tools:
	bash scripts/install_tools.sh

# the gate: ruff lint + ruff format, mypy on the package, import-linter's layer contracts
lint: install
	$(PY) -m ruff check --quiet .
	$(PY) -m ruff format --check --quiet .
	$(PY) -m mypy
	@out=$$(.venv/bin/lint-imports --no-cache 2>&1) || { echo "$$out"; exit 1; }

# the one-minute tier: the gate and every test not marked book, browser, slow or lint, plus the package's
# doctests.  mypy (incremental, its cache in .mypy_cache/) runs beside the tests on the second core; a finding
# of any step fails the target after all have run.
check: install
	@log=$$(mktemp); $(PY) -m mypy >"$$log" 2>&1 & mypy=$$!; rc=0; \
	$(PY) -m ruff check --quiet . || rc=1; \
	$(PY) -m ruff format --check --quiet . || rc=1; \
	out=$$(.venv/bin/lint-imports --no-cache 2>&1) || { echo "$$out"; rc=1; }; \
	$(PY) -m pytest -q -p no:cacheprovider -m "not book and not browser and not slow and not lint" \
	  --doctest-modules tests src/selfconf || rc=1; \
	wait $$mypy || { cat "$$log"; rc=1; }; rm -f "$$log"; exit $$rc

# the whole suite and the package's doctests; prints its 15 slowest tests and its wall time, and exits with pytest's status
test: install external browser tex tools
	@t0=$$(date +%s); rc=0; $(PY) -m pytest -q -p no:cacheprovider --durations=15 --doctest-modules tests src/selfconf || rc=$$?; \
	echo "make test: $$(( $$(date +%s) - t0 )) s wall (install excluded), pytest exit $$rc"; exit $$rc

bench: install
	$(PY) bench/bootstrap.py
	$(PY) bench/build.py
	$(PY) bench/auroc.py
	$(PY) bench/report.py

# rerun one section with other bootstrap settings and diff it against the default build
rerun: install
	@test -n "$(SECTION)" || { echo "usage: make rerun SECTION=result1 [SEED=7] [N_BOOT=5000]" >&2; exit 2; }
	$(PY) -m selfconf.book.rerun $(SECTION) $(if $(SEED),--seed $(SEED)) $(if $(N_BOOT),--n-boot $(N_BOOT))

# third-party data for the beyond-the-paper chapters -> data/external/ (never committed);
# copies ../shared/external when it exists (CI), downloads from the public sources otherwise; a data set it can
# get neither way is named and skipped (the pages that need it say so); under CI (CI set) or with
# SELFCONF_EXTERNAL_STRICT=1 it fails instead, so a published build never lacks them
external: install
	PY=$(PY) SELFCONF_EXTERNAL_STRICT="$${SELFCONF_EXTERNAL_STRICT:-$${CI:+1}}" bash scripts/fetch_external.sh

data: install
	$(PY) -m selfconf.reconstruct
	$(PY) -m selfconf.datasets pack
	$(PY) -m selfconf.book.seedstudy --ship

clean:
	rm -rf _build book/*.ipynb book/_static/tables book/_static/student book/.OTTER_LOG notebooks/*.ipynb
