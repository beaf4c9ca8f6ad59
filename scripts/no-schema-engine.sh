#!/bin/sh
# Stands in for Prisma's native schema engine, which these machines cannot download. It fails loudly:
# an empty stub exiting 0 would make `prisma migrate deploy` silently do nothing. Apply migrations with
# each service's `migrate` script (applyMigrations from @orderflow/db) instead.
echo "prisma schema engine is not available offline: run the service's migrate script" >&2
exit 1
