# syntax=docker/dockerfile:1.7
# payments-service: built in the workspace; the runtime image holds Node.js and what runs, owned by root
# and read-only to the non-root user it runs as, without a package manager or the TypeScript
# compiler (infra/docker/README.md). Build from the repository root:
#   docker build -f infra/docker/payments-service.Dockerfile -t holdfast/payments-service \
#     --build-arg VERSION=0.2.0 --build-arg REVISION="$(git rev-parse HEAD)" --build-arg CREATED="$(date -u +%Y-%m-%dT%H:%M:%SZ)" .
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
RUN pnpm --filter=@holdfast/payments-service deploy --prod --legacy /out
# What runs, and nothing else: the bundle (ADR 31), its migrations and the hosted checkout page. The production node_modules of
# `pnpm deploy` would bring the TypeScript compiler along (a peer of viem) and dist/.
RUN mkdir /app && cp -r /out/package.json /out/bundle /out/drizzle /out/page-build /app/

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
# No package manager in the image: npm, npx and corepack (with its pnpm and yarn shims) go.
RUN rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
    /usr/local/bin/pnpm /usr/local/bin/pnpx /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-*
ARG VERSION=0.0.0-dev
ARG REVISION=unknown
ARG CREATED=unknown
ARG SOURCE=unknown
LABEL org.opencontainers.image.title="holdfast-payments-service" \
      org.opencontainers.image.description="Holdfast Payments API (v1, v2): payments, escrow, disputes, checkout." \
      org.opencontainers.image.vendor="Holdfast" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.base.name="docker.io/library/node:${NODE_VERSION}-bookworm-slim"
ENV NODE_ENV=production APP_ENV=production HOST=0.0.0.0
# glibc returns freed allocations over 128 KiB at once (argon2id's 19 MiB per check stayed otherwise; ADR 29).
ENV MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
# Owned by root, not writable by the user below: the process cannot change its own code.
COPY --from=build /app ./
# The image's `node` user (uid 1000), by number so that the kubelet can check runAsNonRoot.
USER 1000:1000
EXPOSE 3001
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s CMD ["node", "-e", "fetch('http://127.0.0.1:3001/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Migrations are a separate step (the migration Job, or `docker compose run`): node bundle/migrate.js
# The NATS setup too (streams and durable consumers, before any process; ADR 54): node bundle/nats-setup.js
# The young generation capped at 2 x 8 MiB, the old generation grown by half its live size, start-up garbage collected once after ready (ADR 29, 31, 37; scripts/lib/stack/processes.ts SERVICE_NODE_FLAGS).
CMD ["node", "--max-semi-space-size=8", "--heap-growing-percent=50", "--expose-gc", "bundle/main.js"]
