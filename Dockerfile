# syntax=docker/dockerfile:1
# The dashboard as an image (the default target): the built dashboard from `npm run build`
# (dist/dashboard: server.js, .next, its node_modules), run by plain node as a non-root user.
# The `worker` target is the source tree with tsx: the worker, the demo agents and the CLI.
#   docker build -t agent-ledger-dashboard .
#   docker build --target worker -t agent-ledger-worker .
# compose.yaml runs both with PostgreSQL.

FROM node:20-bookworm-slim AS build
WORKDIR /src
ENV NEXT_TELEMETRY_DISABLED=1
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM build AS worker
USER node
CMD ["node", "--import", "tsx", "worker/main.ts"]

FROM node:20-bookworm-slim AS dashboard
WORKDIR /app
# HOST: listen beyond the container's loopback. The rest (DATABASE_URL, AUTH_SECRET,
# AUTH_BASE_URL, …) comes from whoever runs the image: `agent-ledger dashboard --help` lists them.
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 NEXT_TELEMETRY_DISABLED=1
COPY --from=build /src/dist/dashboard ./
USER node
EXPOSE 3000
CMD ["node", "server.js"]
