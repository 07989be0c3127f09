#!/usr/bin/env bash
# One entry point for a fresh machine: creates or reuses .venv from the pinned
# requirements, then launches the dashboard or runs the whole test suite.
#   bash run.sh dashboard [streamlit options]   # http://localhost:8501
#   bash run.sh test [pytest options]
set -euo pipefail
cd "$(dirname "$0")"

VENV=.venv
STAMP="$VENV/.requirements.sha256"

ensure_venv() {
  local want
  want=$(sha256sum requirements.txt | cut -d' ' -f1)
  if [ -x "$VENV/bin/python" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
    return 0
  fi
  echo "Setting up $VENV from requirements.txt (first run takes about two minutes)..."
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  "$VENV/bin/python" -m pip install --quiet -r requirements.txt
  echo "$want" > "$STAMP"
}

ensure_chromium() {
  # The browser tests drive Debian's chromium through playwright; no browser download.
  command -v chromium >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ]; then
    echo "Installing Debian chromium for the browser tests..."
    (apt-get install -y -q chromium >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q chromium >/dev/null; })
  else
    echo "chromium is missing and this user cannot install it; browser tests will fail." >&2
  fi
}

export PYTHONDONTWRITEBYTECODE=1

case "${1:-}" in
  dashboard)
    shift
    ensure_venv
    exec "$VENV/bin/python" dashboard.py --server.headless true \
      --browser.gatherUsageStats false "$@"
    ;;
  test)
    shift
    ensure_venv
    ensure_chromium
    # one worker per core (at most 4), each file on one worker (tests/conftest.py)
    exec "$VENV/bin/python" -m pytest -n auto --maxprocesses 4 --dist loadgroup "$@"
    ;;
  *)
    echo "usage: bash run.sh dashboard|test [options]" >&2
    exit 2
    ;;
esac
