#!/bin/sh
# Stands in for Prisma's native schema engine, which the install does not download. It fails loudly:
# an empty stub exiting 0 would make `prisma migrate deploy` silently do nothing. Apply migrations with
# @orderflow/db's applyMigrations (or `outbox migrate <dir>`) instead.
echo "prisma schema engine is not available offline: use applyMigrations from @orderflow/db" >&2
exit 1
