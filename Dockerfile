# The service in a container (docs/deploying.md, Docker). Node is pinned to one release
# inside package.json's `engines`: 22 is the line whose every release from 22.12 is
# supported, so a security patch stays inside it (24 is supported only up to 24.18).
# Raise the patch when Node publishes one; the build stage and the image move together.
FROM node:22.23.5-bookworm-slim AS build
WORKDIR /srv/prepaid
# better-sqlite3 is a native module: compiled here against this Node's headers.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev
COPY . .
RUN npm run build

FROM node:22.23.5-bookworm-slim
WORKDIR /srv/prepaid
ENV NODE_ENV=production
# Everything the build stage holds, without its compiler: dist/ for the service, the sources
# and tsx for the admin CLI (`docker exec <container> npx prepaid ...`).
COPY --from=build /srv/prepaid ./
# The gateway and the developer area on every interface; the gRPC core stays on loopback
# inside the container, and only its metrics listener is reachable for a scraper.
ENV DATA_DIR=/data HOST=0.0.0.0 DASHBOARD_HOST=0.0.0.0 CORE_METRICS_HOST=0.0.0.0
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 8080 8081 9464
STOPSIGNAL SIGTERM
# node itself, not npm: stdout then carries only the service's JSON log lines, and the
# signal reaches the service with nothing in between.
CMD ["node", "--enable-source-maps", "dist/bin/start.js"]
