# syntax=docker/dockerfile:1
# Tally's container (ADR 0020): build with every dependency, run the compiled server with only the
# production ones, as a non-root user. Build: docker build -t tally .
# Run on PostgreSQL: docker run -p 8080:8080 -e DATABASE_URL=… -e JWT_SECRET=… -e APP_SECRETS_KEY=… tally
# (embedded PGlite instead: -v tally-data:/data and no DATABASE_URL). compose.yaml runs two nodes.

FROM node:20-slim AS build
WORKDIR /app
COPY . .
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund \
 && npm run build \
 && npm prune --omit=dev --no-audit --no-fund

FROM node:20-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DATA_DIR=/data
WORKDIR /app
# Only what the compiled server reads at run time; files stay root-owned (read-only to the server).
# Files the server reads or serves are found relative to packages/server (its migrations, the
# console's build in apps/console/dist), at the same place as in a checkout.
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/packages/server/package.json ./packages/server/
COPY --from=build /app/packages/server/bin ./packages/server/bin
COPY --from=build /app/packages/server/dist ./packages/server/dist
COPY --from=build /app/packages/server/migrations ./packages/server/migrations
COPY --from=build /app/apps/console/dist ./apps/console/dist
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
WORKDIR /app/packages/server
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# node itself is PID 1 (no npm or shell in between), so SIGTERM reaches the graceful shutdown.
CMD ["node", "--enable-source-maps", "dist/main.js"]
