#!/bin/sh
# Generates a service's Prisma client offline from its prisma.config.ts (schema folder prisma/schema/).
# The client needs no native engine; the CLI only looks for one, so the stub stands in for it.
# Usage (from a service folder): sh ../../scripts/prisma-generate.sh
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
PRISMA_SCHEMA_ENGINE_BINARY="$root/scripts/no-schema-engine.sh" ./node_modules/.bin/prisma generate >/dev/null
