#!/usr/bin/env bash
# Creates .venv if absent, installs scripts/requirements-test.txt into it when the pinned list
# changed since the last install, and prints the venv's Python:
#
#   export BLEU_PYTHON="$(scripts/python-env.sh)"
set -euo pipefail
cd "$(dirname "$0")/.."
requirements=scripts/requirements-test.txt
[ -x .venv/bin/python ] || python3 -m venv .venv >&2
stamp=.venv/.bleu-requirements
if ! cmp -s "$requirements" "$stamp"; then
    .venv/bin/pip install --quiet --disable-pip-version-check -r "$requirements" >&2
    cp "$requirements" "$stamp"
fi
echo "$PWD/.venv/bin/python"
