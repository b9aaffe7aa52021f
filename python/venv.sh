#!/usr/bin/env bash
# The Python environment of python/: a virtual environment with the pinned packages of
# python/requirements.lock (pip --require-hashes, from PyPI), made once per lock and Python
# version under .cache/python/venv-<12 hex>/, and this checkout's runtime and reference packages
# on its path (a .pth file: python/runtime/src, python/reference). Prints the environment's
# folder on stdout (its interpreter is <folder>/bin/python); everything else goes to stderr.
#
# Idempotent: an environment whose lock and interpreter are unchanged is reused at once (it is
# ready once its .ready mark is written, last; a run stopped halfway is built again). Callers
# at once wait on one lock. Older environments of this checkout are removed.
#   PYTHON=python3.12 python/venv.sh    # another interpreter (3.11 or later; default python3)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
lock="$root/python/requirements.lock"
python=${PYTHON:-python3}

if ! command -v "$python" >/dev/null 2>&1; then
  echo "python/venv.sh: $python not found (Python 3.11 or later is needed)" >&2
  exit 1
fi
version=$("$python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
if ! "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  echo "python/venv.sh: $python is Python $version; 3.11 or later is needed" >&2
  exit 1
fi

key=$({ cat "$lock"; echo "$version"; echo "$root"; } | sha256sum | cut -c1-12)
base="$root/.cache/python"
venv="$base/venv-$key"
if [ -f "$venv/.ready" ]; then
  echo "$venv"
  exit 0
fi

mkdir -p "$base"
# one builder at a time; a second caller waits, then finds the environment ready
exec 9>"$base/.lock"
flock 9
if [ -f "$venv/.ready" ]; then
  echo "$venv"
  exit 0
fi
rm -rf "$venv"
echo "python/venv.sh: building $venv (Python $version)" >&2
"$python" -m venv "$venv" >&2
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
  --require-hashes --only-binary :all: -r "$lock" >&2
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
printf '%s\n' "$root/python/runtime/src" "$root/python/reference" > "$site/mcpgen-checkout.pth"
touch "$venv/.ready"
for old in "$base"/venv-*; do
  [ "$old" = "$venv" ] || rm -rf "$old"
done
echo "$venv"
