#!/usr/bin/env bash
# Install Prometheus and promtool (Debian's `prometheus` package: 2.42 on bookworm) for the
# fleet integration tests and the `promtool check/test rules` tests of `kvdoctor alerts`.
# Idempotent: does nothing when both binaries are already on PATH.
# The package's service is never started here: the test harness runs its own Prometheus on
# loopback with a generated config, so a daemon on :9090 would only waste the scarce CPU.
set -euo pipefail

if command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1; then
  echo "prometheus: already installed ($(prometheus --version 2>&1 | head -n1))"
  exit 0
fi

SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "install-prometheus: need root (or sudo) to apt-get install prometheus" >&2
    exit 1
  fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-prometheus: apt-get not found; install prometheus and promtool by hand" >&2
  exit 1
fi

# A temporary policy-rc.d (exit 101 = "do not start services") keeps the package's post-install
# script from starting a daemon; an existing one is left exactly as it is.
POLICY=/usr/sbin/policy-rc.d
created_policy=0
if [ ! -e "$POLICY" ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$POLICY" >/dev/null
  $SUDO chmod 0755 "$POLICY"
  created_policy=1
fi
cleanup() {
  if [ "$created_policy" = "1" ]; then
    $SUDO rm -f "$POLICY"
  fi
}
trap cleanup EXIT

export DEBIAN_FRONTEND=noninteractive
# Fresh containers ship without package lists: refresh only when apt does not know the package.
if ! apt-cache show prometheus >/dev/null 2>&1; then
  $SUDO apt-get update -q
fi
$SUDO apt-get install -y -q --no-install-recommends prometheus

for bin in prometheus promtool; do
  if ! command -v "$bin" >/dev/null 2>&1; then
    echo "install-prometheus: $bin missing after install" >&2
    exit 1
  fi
done
echo "prometheus: installed ($(prometheus --version 2>&1 | head -n1))"
