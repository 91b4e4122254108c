#!/usr/bin/env bash
# Install the headless browser the browser test (tests/test_browser.py) drives: Debian's Chromium and
# ChromeDriver, from the distribution's package archive (never a browser download of a test tool).
# The Python side (playwright, which talks to /usr/bin/chromium) comes from requirements.txt.
# Idempotent: does nothing when /usr/bin/chromium already runs.
set -euo pipefail
if [ -x /usr/bin/chromium ] && /usr/bin/chromium --version >/dev/null 2>&1; then
  echo "chromium present: $(/usr/bin/chromium --version 2>/dev/null)"
  exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium chromium-driver fonts-dejavu-core >/dev/null
echo "installed: $(/usr/bin/chromium --version 2>/dev/null)"
