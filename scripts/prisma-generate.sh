#!/bin/sh
# Generates a service's Prisma client offline. The service's schema (prisma/schema.prisma) is joined with
# the outbox and inbox models it includes, as docs/prisma.md describes; the client needs no native engine.
# Usage (from a service folder): sh ../../scripts/prisma-generate.sh
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p generated
cat prisma/schema.prisma "$root/packages/outbox/prisma/outbox.prisma" "$root/packages/messaging/prisma/inbox.prisma" \
  > generated/schema.prisma
PRISMA_SCHEMA_ENGINE_BINARY="$root/scripts/no-schema-engine.sh" ./node_modules/.bin/prisma generate \
  --schema generated/schema.prisma >/dev/null
