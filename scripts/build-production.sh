#!/bin/sh
# Builds the tree the production image runs, from a clean checkout, into <out-dir>: for each package under
# packages/ and services/ only its package.json and dist/ (compiled JavaScript, with its Prisma migrations
# in dist/prisma/migrations), the root manifest and lockfile, and node_modules with production
# dependencies only. The Dockerfile's build stage runs it after `pnpm fetch`; infra/test/production-image/
# runs it on a copy of the working tree. Everything comes from pnpm's store: nothing is downloaded.
# Usage: sh scripts/build-production.sh <out-dir>   (out-dir must be absent or empty)
set -eu
if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: sh scripts/build-production.sh <out-dir>" >&2
  exit 2
fi
case "$1" in /*) out="$1" ;; *) out="$(pwd)/$1" ;; esac
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
  echo "build-production: $out is not empty; give a new or empty folder" >&2
  exit 2
fi
cd "$(dirname "$0")/.."
step() { echo "[build-production] $*"; }

step "install every dependency from the store (offline, lockfile as it is)"
pnpm install --offline --frozen-lockfile --reporter=append-only
step "generate the Prisma clients"
pnpm --silent -r --if-present generate
step "type-check what the image ships, as one program (tsconfig.production.json)"
./node_modules/.bin/tsc -p tsconfig.production.json
# In dependency order, so that a package's workspace imports find their dist/ (see tsconfig.build.json).
step "compile each of packages/* and services/* with tsc"
pnpm -r --filter "./packages/*" --filter "./services/*" --reporter=append-only run build

step "assemble $out"
mkdir -p "$out"
# No .npmrc: registry settings, and any token in them, stay in the build stage, out of the runtime image.
cp package.json pnpm-lock.yaml pnpm-workspace.yaml "$out/"
for pkg in packages/* services/*; do
  [ -f "$pkg/package.json" ] || continue
  if [ ! -d "$pkg/dist" ]; then
    echo "build-production: $pkg has no dist/ after the build (is its \"build\" script missing?)" >&2
    exit 1
  fi
  mkdir -p "$out/$pkg"
  cp "$pkg/package.json" "$out/$pkg/"
  cp -R "$pkg/dist" "$out/$pkg/dist"
done
# The lockfile's other projects (infra, bench and the harness packages) are not in the tree; the filters keep pnpm from
# installing their dependencies anyway. Known gap: a development dependency that satisfies a production
# dependency's optional peer is still installed (pnpm issue #15344: prisma and typescript, as peers of
# @prisma/client); see docs/production-image.md.
step "install production dependencies into $out"
(cd "$out" && pnpm install --offline --frozen-lockfile --prod --reporter=append-only \
  --filter "./packages/*" --filter "./services/*")
step "done"
