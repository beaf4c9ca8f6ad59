# One image for the three services and their relays (docker-compose.yml picks the entry point).
FROM node:20-bookworm-slim
WORKDIR /app
RUN npm install --global --no-fund --no-audit pnpm@12.4.2
COPY . .
RUN pnpm install --frozen-lockfile && pnpm -r --if-present generate
ENV NODE_ENV=production
USER node
# Overridden per service in docker-compose.yml, e.g. services/order/src/main.ts.
CMD ["node", "--import", "tsx", "services/order/src/main.ts"]
