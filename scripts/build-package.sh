#!/bin/sh
# Compiles one package (run from its folder: the "build" script of each package.json under packages/ and
# services/) into dist/, and puts its Prisma migrations beside the code: the compiled service finds them
# from dist/src at ../prisma/migrations, as the sources find prisma/migrations from src/.
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
[ -f tsconfig.build.json ] || { echo "build-package: no tsconfig.build.json in $(pwd)" >&2; exit 1; }
rm -rf dist
"$root/node_modules/.bin/tsc" -p tsconfig.build.json
if [ -d prisma/migrations ]; then
  mkdir -p dist/prisma
  cp -R prisma/migrations dist/prisma/migrations
fi
