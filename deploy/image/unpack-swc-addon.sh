#!/bin/sh
# Build stage of deploy/Dockerfile, in the folder holding node_modules: puts @swc/core's original
# native addon in place of the compressed "carrier" it ships as.
# The carrier unpacks the 31 MB original into a per-user cache ($HOME/.cache, else /tmp) on every
# start and refuses a cache whose parents others may write without the sticky bit — which is what
# a Kubernetes emptyDir at /tmp is (0777) — so the apps would not start on a read-only root. swc
# verifies the unpacked bytes (BLAKE3) and does this same replacement itself on btrfs (swc's
# docs/native-addon-carriers.md); done here, nothing is unpacked or written at run time.
set -eu
set -- node_modules/@swc/core-*/swc.*.node
if [ "$#" -ne 1 ] || [ ! -f "$1" ]; then
  echo "expected one @swc/core platform addon, found: $*" >&2
  exit 1
fi
addon=$1
cache=$(mktemp -d)
SWC_NATIVE_BINDING_CACHE="$cache" node -e "require('@swc/core')"
set -- "$cache"/swc-native-*/v1/*.node
if [ "$#" -ne 1 ] || [ ! -f "$1" ]; then
  echo "expected @swc/core to unpack one addon into $cache, found: $*" >&2
  exit 1
fi
cp "$1" "$addon"
chmod 0644 "$addon"
rm -rf "$cache"

# The replacement loads as is: it transforms, and the cache it was given stays empty.
cache=$(mktemp -d)
SWC_NATIVE_BINDING_CACHE="$cache" node -e "
  const { transformSync } = require('@swc/core');
  const out = transformSync('const a: number = 1', { jsc: { parser: { syntax: 'typescript' } } }).code;
  if (out.trim() !== 'var a = 1;') throw new Error('unexpected output: ' + out);"
if [ -n "$(ls -A "$cache")" ]; then
  echo "@swc/core still unpacks its addon at load time ($cache)" >&2
  exit 1
fi
rm -rf "$cache"
echo "$addon: original addon in place ($(wc -c <"$addon") bytes)"
