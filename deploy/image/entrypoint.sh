#!/bin/sh
# The image's entry point, run by tini (PID 1). `main` (the default) serves the app APP names,
# `migrate` runs its migrations and exits; any other command runs as given (`node --version`).
set -eu
case "${1:-main}" in
  main | migrate) ;;
  *) exec "$@" ;;
esac
entry="dist/apps/${APP:-}/src/${1:-main}.js"
if [ -z "${APP:-}" ] || [ ! -f "/srv/pim/$entry" ]; then
  echo "APP must name an app: one of $(cd /srv/pim/dist/apps && echo *) (got '${APP:-}')" >&2
  exit 64
fi
cd /srv/pim
# The build's JavaScript; stack traces name the .ts lines (libs/app/src/source-maps.ts).
exec node -r ./dist/libs/app/src/source-maps.js "$entry"
