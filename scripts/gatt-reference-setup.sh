#!/usr/bin/env bash
# Installs the independent GATT implementation BleuGATT's cross-check test decodes with
# (PyPI bluetooth-sig, pinned) into the repository's .venv, and prints that Python's path:
#
#   export BLEU_GATT_REFERENCE_PYTHON="$(scripts/gatt-reference-setup.sh)"
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv >&2
fi
if ! .venv/bin/python -c "import bluetooth_sig" 2>/dev/null; then
    .venv/bin/pip install --quiet --disable-pip-version-check "bluetooth-sig==0.6.0" >&2
fi
echo "$PWD/.venv/bin/python"
