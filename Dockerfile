# One image for the three services and their three outbox relays: compiled JavaScript, production
# dependencies only. docker-compose.yml picks each container's entry point (see docs/production-image.md):
#   services/<order|inventory|points>/dist/src/main.js, packages/outbox/dist/src/relay-main.js
# The build steps are scripts/build-production.sh, so that infra/test/production-image/ can run them
# where Docker cannot; a test there also keeps this file to its rules.

# The newest Node 24 release with a published image tag when this was last raised; keep both FROM lines
# equal (production-build.test.ts runs npm's node@<this version> to match).
FROM node:24.21.0-bookworm-slim AS build
WORKDIR /repo
# pnpm at the version package.json's packageManager names, then every package of the lockfile into
# pnpm's store. This layer is rebuilt only when one of these three files changes, not for a source edit.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
RUN npm install --global --no-fund --no-audit \
      "pnpm@$(node -p "require('./package.json').packageManager.split('@')[1].split('+')[0]")" \
  && pnpm fetch
COPY . .
# Offline install from that store, Prisma clients, type check, tsc per package, then /out: each
# package's package.json and dist/ (with its migrations) and production node_modules.
RUN sh scripts/build-production.sh /out

FROM node:24.21.0-bookworm-slim AS runtime
ENV NODE_ENV=production
# The workspace packages export their sources by default (the local stack runs them with tsx); the
# "production" condition selects their compiled dist/ instead.
ENV NODE_OPTIONS="--conditions=production --enable-source-maps"
WORKDIR /app
COPY --from=build /out/ ./
# Files stay root's: the service only reads them.
USER node
EXPOSE 3001 3002 3003
CMD ["node", "services/order/dist/src/main.js"]
