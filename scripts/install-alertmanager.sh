#!/usr/bin/env bash
# Install Alertmanager (Debian's `prometheus-alertmanager` package) for the lab-tier test that
# runs the whole alert path: Prometheus rules from `kvdoctor alerts` → Alertmanager →
# `kvdoctor serve` → a sink. Idempotent: does nothing when the binary is already on PATH.
# The package's service is never started here: the test runs its own Alertmanager on loopback
# with a generated config.
set -euo pipefail

if command -v prometheus-alertmanager >/dev/null 2>&1; then
  echo "alertmanager: already installed ($(prometheus-alertmanager --version 2>&1 | head -n1))"
  exit 0
fi

SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "install-alertmanager: need root (or sudo) to apt-get install prometheus-alertmanager" >&2
    exit 1
  fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-alertmanager: apt-get not found; install prometheus-alertmanager by hand" >&2
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
if ! apt-cache show prometheus-alertmanager >/dev/null 2>&1; then
  $SUDO apt-get update -q
fi
$SUDO apt-get install -y -q --no-install-recommends prometheus-alertmanager

if ! command -v prometheus-alertmanager >/dev/null 2>&1; then
  echo "install-alertmanager: prometheus-alertmanager missing after install" >&2
  exit 1
fi
echo "alertmanager: installed ($(prometheus-alertmanager --version 2>&1 | head -n1))"
