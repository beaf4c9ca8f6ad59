#!/bin/sh
# Generates the Prisma client for the outbox's Prisma test: the test service schema plus the outbox
# models exactly as a service would include them. Offline: the schema-engine stub replaces the download.
set -eu
cd "$(dirname "$0")/.."
mkdir -p test/generated
cat test/prisma/base.prisma prisma/outbox.prisma > test/generated/schema.prisma
PRISMA_SCHEMA_ENGINE_BINARY="$(pwd)/scripts/no-schema-engine.sh" \
  ./node_modules/.bin/prisma generate --schema test/generated/schema.prisma
