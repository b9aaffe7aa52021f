#!/usr/bin/env bash
# Installs, from Debian's packages, the toolchains the binding tests (test/generator/bindings/) compile
# and run the generated bindings with, and the headless browser of test/web/. Idempotent: installs only what is missing, and runs
# `apt-get update` only when something is. The list matches the aptPackages of the table
# OWN_BINDING_LANGUAGES (generator/emit/bindings/own.ts);
# `services` lists what the tests start or drive besides them.
set -euo pipefail

packages=(
  python3                                   # python: round-trip, mutations, match, stdio client
  mypy                                      # python: the package type-checks, exhaustive match
  golang-go                                 # go: round-trip, mutations, match, stdio client
  librust-serde-dev                         # rust: crates used offline from
  librust-serde-json-dev                    #   /usr/share/cargo/registry
  default-jdk-headless libjackson2-databind-java   # java: round-trip, differential
  mono-mcs mono-runtime libnewtonsoft-json-cil-dev   # csharp: round-trip, differential
)
# what tests start besides the bindings' toolchains
services=(
  chromium                                  # test/web/browser.test.ts: the fetch client in a real browser
  redis-server                              # test/scale: several serve processes sharing Redis
  tesseract-ocr tesseract-ocr-eng           # test/apps/browser.test.ts: reads the view's screenshot
)
packages+=("${services[@]}")
# what the language SDKs' environments need: python/venv.sh makes a venv with Debian's python3;
# go/toolchain.sh fetches the Go toolchain module when no Go 1.26 is installed
sdks=(
  python3-venv
  curl unzip                                # go/toolchain.sh: Go 1.26 from the Go module proxy when the machine has none
)
packages+=("${sdks[@]}")
# rustup's cargo is on the node machines; Debian's cargo (and rustc) only when there is none.
if ! command -v cargo >/dev/null 2>&1; then
  packages+=(cargo)
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "ci-toolchains: all ${#packages[@]} packages installed"
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  sudo=(sudo)
fi

echo "ci-toolchains: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
for attempt in 1 2 3; do
  if "${sudo[@]}" apt-get update -qq && "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
    echo "ci-toolchains: done"
    exit 0
  fi
  echo "ci-toolchains: attempt $attempt failed, retrying" >&2
  sleep $((attempt * 5))
done
echo "ci-toolchains: could not install ${missing[*]}" >&2
exit 1
