#!/usr/bin/env bash
# Put the third-party data sets used "beyond the paper" into data/external/ (gitignored, never committed).
#
#   bash scripts/fetch_external.sh            # copy from ../shared/external if it exists, else download
#   SELFCONF_EXTERNAL_FROM=/path bash scripts/fetch_external.sh   # copy from another folder
#   SELFCONF_EXTERNAL_FROM=none  bash scripts/fetch_external.sh   # always download
#
# Sources, licences and pinned versions: `selfconf fetch --help` and src/selfconf/fetch.py.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PY:-.venv/bin/python}"
[ -x "$PY" ] || PY=python3
FROM="${SELFCONF_EXTERNAL_FROM:-../shared/external}"

fetch() {  # fetch <dataset> <subfolder>
  if [ "$FROM" != "none" ] && [ -d "$FROM/$2" ]; then
    "$PY" -m selfconf.cli fetch "$1" --from "$FROM/$2"
  else
    "$PY" -m selfconf.cli fetch "$1"
  fi
}

fetch mmlu-pro-calibration mmlu-pro-calibration
fetch simpleqa simpleqa
