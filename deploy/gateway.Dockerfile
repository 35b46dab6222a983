# syntax=docker/dockerfile:1
# @aigw/gateway: build the workspace, then ship only the app's production dependencies on Node 24.
# Build from the repository root: docker build -f deploy/gateway.Dockerfile -t aigw/gateway .

FROM node:24-bookworm-slim AS build
ENV COREPACK_INTEGRITY_KEYS=0 PNPM_HOME=/pnpm PATH=/pnpm:$PATH
RUN corepack enable
WORKDIR /repo
COPY pnpm-lock.yaml pnpm-workspace.yaml package.json .npmrc ./
RUN pnpm fetch
COPY . .
RUN pnpm install --frozen-lockfile --offline \
 && pnpm exec turbo run build --filter=@aigw/gateway... \
 && pnpm --filter=@aigw/gateway deploy --prod --legacy /out

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production PORT=8787
WORKDIR /app
# Code stays owned by root: the non-root user can read it but not change it.
COPY --from=build /out/package.json ./package.json
COPY --from=build /out/node_modules ./node_modules
COPY --from=build /out/dist ./dist
USER node
EXPOSE 8787
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8787)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
# The app's Node flags (aigw.nodeFlags in apps/gateway/package.json; docs/performance.md, "Runtime flags").
CMD ["node", "--max-semi-space-size=16", "dist/main.js"]
