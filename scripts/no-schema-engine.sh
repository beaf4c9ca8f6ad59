#!/bin/sh
# Stands in for Prisma's native schema engine, which the install does not download. It fails loudly:
# an empty stub exiting 0 would make `prisma migrate deploy` silently do nothing. Offline, make a
# migration with `pnpm db:new <service> <name>` and check them with `pnpm db:check`; the services apply
# their migrations themselves at start-up.
echo "prisma schema engine is not available offline: use pnpm db:new / pnpm db:check (README, Changing a schema)" >&2
exit 1
