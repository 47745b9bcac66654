#!/usr/bin/env bash
# What `npm test` runs, in order, stopping at the first failure:
#   lint, type-check, proto checks, OpenAPI document/client check, its Redocly lint and breaking
#   changes, database drift, unit, integration tests, the build, end-to-end tests (on the build, as
#   `npm start` runs the apps).
# Integration test files each use their own database and stream names, so jest runs them on two
# workers (the machine has two cores and the tests mostly wait on Postgres and NATS). Each
# end-to-end file starts a whole platform (every app as a process), so those run one at a time.
# The image test (tools/image/image.e2e.spec.ts) needs podman, runc and debootstrap: where one is
# missing it is skipped, saying why, unless PIM_REQUIRE_IMAGE_TESTS=1 (.ci/run sets it) demands it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export NX_DAEMON=false

steps=(
  "lint (project graph, then eslint with module boundaries)|npm run lint"
  "type-check|npx tsc -p tsconfig.json --noEmit"
  "proto lint|npm run proto:lint"
  "proto generated code up to date|npm run proto:check"
  "proto breaking changes|npm run proto:breaking"
  "OpenAPI document and generated client up to date|npm run openapi:check"
  "OpenAPI document passes Redocly's recommended rules|npm run openapi:lint"
  "OpenAPI breaking changes|npm run openapi:breaking"
  "database drift|npm run db:drift"
  "unit tests|npx jest --selectProjects unit"
  "integration tests|npx jest --selectProjects integration --maxWorkers=2"
  "build (what npm start and the end-to-end tests run)|npm run build"
  "end-to-end tests|env PIM_TEST_RUNTIME=build npx jest --selectProjects e2e --runInBand"
)

current=""
report() {
  local rc=$?
  if [ "$rc" -ne 0 ] && [ -n "$current" ]; then
    printf '\n=== FAILED: %s (exit code %d) ===\n' "$current" "$rc"
  fi
}
trap report EXIT

total=${#steps[@]}
began=$SECONDS
for i in "${!steps[@]}"; do
  current=${steps[$i]%%|*}
  command=${steps[$i]#*|}
  printf '\n=== [%d/%d] %s ===\n$ %s\n' "$((i + 1))" "$total" "$current" "$command"
  start=$SECONDS
  # Word splitting is intended: each command is a plain list of words.
  # shellcheck disable=SC2086
  $command
  printf '=== %s: passed in %ds ===\n' "$current" "$((SECONDS - start))"
done
current=""
printf '\n=== all %d steps passed in %ds ===\n' "$total" "$((SECONDS - began))"
