# Shared set-up of scripts/play and scripts/test (sourced, not run): the GL libraries as root on
# Debian/Ubuntu, then a project virtual environment. Nothing is installed into the system
# interpreter (PEP 668 refuses that on Debian/Ubuntu, and elsewhere it would write into the
# user's global site-packages).
#
#   FLUIDWORLD_VENV   where the environment lives (default: .venv in the project root)
#   FLUIDWORLD_EXTRAS extras to install, e.g. "[dev]" (set by the calling script)
#
# With uv on PATH the environment is made and filled by uv; otherwise by python3 -m venv + pip.
# Afterwards $PY is the environment's interpreter.

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  # headless GL (Mesa llvmpipe via EGL) and what pyglet loads at import (freetype, fontconfig)
  pkgs="libegl1 libegl-mesa0 libgl1 libgl1-mesa-dri libfreetype6 libfontconfig1 fonts-dejavu-core"
  if ! python3 -c "import ensurepip" >/dev/null 2>&1 && ! command -v uv >/dev/null 2>&1; then
    pkgs="$pkgs python3-venv"  # Debian's python3 ships venv's pip bootstrap separately
  fi
  if ! dpkg -s $pkgs >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
  fi
fi

venv="${FLUIDWORLD_VENV:-.venv}"
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "fluidworld needs Python >= 3.11; python3 is $(python3 -V 2>&1)" >&2
  exit 1
fi
if command -v uv >/dev/null 2>&1; then
  [ -x "$venv/bin/python" ] || uv venv -q --python "$(command -v python3)" "$venv"
  uv pip install -q --python "$venv/bin/python" -e ".${FLUIDWORLD_EXTRAS:-}"
else
  if [ ! -x "$venv/bin/python" ]; then
    echo "creating the project environment $venv (python3 -m venv)" >&2
    python3 -m venv "$venv"
  fi
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -e ".${FLUIDWORLD_EXTRAS:-}"
fi
PY="$venv/bin/python"
