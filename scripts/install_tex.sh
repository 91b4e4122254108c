#!/usr/bin/env bash
# Install the TeX that `make pdf` typesets the book with (selfconf.book.pdf, Jupyter Book's LaTeX builder):
# Debian's TeX Live packages (xelatex, latexmk, the LaTeX packages Sphinx's LaTeX uses, the FreeFont
# OpenType fonts Sphinx sets xelatex in) and poppler-utils (pdffonts/pdftotext, read by the PDF tests).
# About 85 MB to download, about 2.5 min to install on 2 cores; nothing is fetched at typesetting time.
# Idempotent: does nothing when xelatex, latexmk and the packages are present.
set -euo pipefail
PKGS="latexmk texlive-xetex texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended fonts-freefont-otf tex-gyre poppler-utils"
have() { command -v xelatex >/dev/null && command -v latexmk >/dev/null && command -v pdftotext >/dev/null \
  && kpsewhich pdflscape.sty >/dev/null && kpsewhich FreeSerif.otf >/dev/null; }
if have; then
  echo "TeX present: $(xelatex --version | head -1)"
  exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $PKGS >/dev/null
have || { echo "install_tex.sh: TeX is still incomplete after installing $PKGS" >&2; exit 1; }
echo "installed: $(xelatex --version | head -1)"
