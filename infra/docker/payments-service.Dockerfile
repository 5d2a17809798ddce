# syntax=docker/dockerfile:1.7
# payments-service: built in the workspace, shipped with only its own production dependencies, run as a
# non-root user. Build from the repository root:
#   docker build -f infra/docker/payments-service.Dockerfile -t holdfast/payments-service .
ARG NODE_VERSION=24.21.0

FROM node:${NODE_VERSION}-bookworm-slim AS build
RUN npm install -g pnpm@10.34.8
WORKDIR /repo
COPY pnpm-lock.yaml pnpm-workspace.yaml package.json turbo.json tsconfig.base.json .npmrc ./
COPY patches ./patches
COPY packages ./packages
COPY services ./services
# The bundler of the services' production entries (ADR 31), run by each service's build.
COPY scripts/bundle-service.ts ./scripts/bundle-service.ts
RUN pnpm install --frozen-lockfile --ignore-scripts=false
RUN pnpm exec turbo run build --filter=@holdfast/payments-service...
# A self-contained folder: the service's bundle (what runs) and dist, drizzle migrations and production node_modules.
RUN pnpm --filter=@holdfast/payments-service deploy --prod --legacy /out

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production APP_ENV=production HOST=0.0.0.0
# glibc returns freed allocations over 128 KiB at once (argon2id's 19 MiB per check stayed otherwise; ADR 29).
ENV MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY --from=build --chown=node:node /out ./
USER node
EXPOSE 3001
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s CMD ["node", "-e", "fetch('http://127.0.0.1:3001/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Migrations are a separate step (an init container or `docker compose run`): node bundle/migrate.js
# The NATS setup too (streams and durable consumers, before any process; ADR 54): node bundle/nats-setup.js
# The young generation capped at 2 x 8 MiB, the old generation grown by half its live size, start-up garbage collected once after ready (ADR 29, 31, 37; scripts/lib/stack/processes.ts SERVICE_NODE_FLAGS).
CMD ["node", "--max-semi-space-size=8", "--heap-growing-percent=50", "--expose-gc", "bundle/main.js"]
