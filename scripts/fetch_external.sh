#!/usr/bin/env bash
# Put the third-party data sets used "beyond the paper" into data/external/ (gitignored, never committed).
#
#   bash scripts/fetch_external.sh            # copy from ../shared/external if it exists, else download
#   SELFCONF_EXTERNAL_FROM=/path bash scripts/fetch_external.sh   # copy from another folder
#   SELFCONF_EXTERNAL_FROM=none  bash scripts/fetch_external.sh   # always download
#   SELFCONF_EXTERNAL_STRICT=1   bash scripts/fetch_external.sh   # exit 1 when a data set could not be had
#
# A data set that can be neither copied nor downloaded (no network) is named on stderr and skipped; the book
# then builds without it, and each page that needs it says so (selfconf.data.external). A data set already
# complete (its FETCHED.json) is kept as it is when it cannot be fetched again.
# Sources, licences and pinned versions: `selfconf fetch --help` and src/selfconf/data/fetch.py.
set -uo pipefail
cd "$(dirname "$0")/.."
PY="${PY:-.venv/bin/python}"
[ -x "$PY" ] || PY=python3
FROM="${SELFCONF_EXTERNAL_FROM:-../shared/external}"
missing=()

fetch() {  # fetch <dataset> <subfolder>
  local rc=0
  if [ "$FROM" != "none" ] && [ -d "$FROM/$2" ]; then
    "$PY" -m selfconf.cli fetch "$1" --from "$FROM/$2" || rc=$?
  else
    "$PY" -m selfconf.cli fetch "$1" || rc=$?
  fi
  if [ "$rc" -ne 0 ]; then
    if [ -f "data/external/$2/FETCHED.json" ]; then
      echo "fetch_external: $1 could not be fetched again (exit $rc); keeping the complete copy in data/external/$2/" >&2
    else
      missing+=("$1")
    fi
  fi
}

fetch mmlu-pro-calibration mmlu-pro-calibration
fetch simpleqa simpleqa

if [ "${#missing[@]}" -gt 0 ]; then
  {
    echo "fetch_external: NOT AVAILABLE: ${missing[*]} (no network, and no local copy in $FROM)."
    echo "  The book builds without them: each chapter that needs them says on its page that its data were not"
    echo "  available, and shows none of their tables or numbers. To get them: run \`make external\` with a network"
    echo "  connection, or SELFCONF_EXTERNAL_FROM=DIR make external to copy DIR/<data set>/, then build again."
  } >&2
  [ "${SELFCONF_EXTERNAL_STRICT:-0}" = "1" ] && exit 1
fi
exit 0
