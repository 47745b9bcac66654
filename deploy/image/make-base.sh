#!/bin/sh
# Makes the image's base locally, for machines that reach Debian's mirror but no container
# registry: Debian bookworm, minbase, slimmed like the official debian:bookworm-slim (no docs,
# man pages, locales, apt lists or downloaded packages), imported into podman as IMAGE.
#   deploy/image/make-base.sh localhost/pim-base:bookworm
# Needs root, debootstrap and podman. tools/image/base.ts names IMAGE after this file's content,
# so a change here makes a new base instead of reusing the old one.
set -eu
image=${1:?usage: make-base.sh IMAGE}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
root=$(mktemp -d "${TMPDIR:-/tmp}/pim-base.XXXXXX")
trap 'rm -rf "$root"' EXIT

debootstrap --variant=minbase bookworm "$root" "$mirror"

# Packages installed later (apt-get install in a Dockerfile) stay slim too.
cat >"$root/etc/dpkg/dpkg.cfg.d/slim" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
CFG
find "$root/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -rf "$root/usr/share/man/"* "$root/usr/share/groff/"* "$root/usr/share/info/"* \
  "$root/usr/share/lintian/"* "$root/usr/share/linda/"* "$root/usr/share/locale/"* \
  "$root/var/cache/apt/"*.bin "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"* \
  "$root/var/log/"*.log "$root/var/log/apt/"*
# The container engine provides these at run time; the build machine's must not leak in.
: >"$root/etc/resolv.conf"
: >"$root/etc/hostname"

tar -C "$root" --numeric-owner --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' -c . |
  podman import --message "debootstrap --variant=minbase bookworm $mirror" - "$image"
