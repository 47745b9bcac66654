#!/bin/sh
# The image's entry point, run by tini (PID 1). `main` (the default) serves the app APP names,
# `migrate` runs its migrations and exits; any other command runs as given (`node --version`).
set -eu
case "${1:-main}" in
  main | migrate) ;;
  *) exec "$@" ;;
esac
entry="apps/${APP:-}/src/${1:-main}.ts"
if [ -z "${APP:-}" ] || [ ! -f "/srv/pim/$entry" ]; then
  echo "APP must name an app: one of $(cd /srv/pim/apps && echo *) (got '${APP:-}')" >&2
  exit 64
fi
cd /srv/pim
exec node -r @swc-node/register "$entry"
