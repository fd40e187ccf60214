# syntax=docker/dockerfile:1
# Image of the pager app: built in a full Node image, run as the unprivileged node user in a slim one.
# Build from the repo root: docker build -f infra/compose/pager.Dockerfile -t clickstream/pager:dev .

FROM node:20-bookworm AS build
# librdkafka (inside @confluentinc/kafka-javascript) links dynamically against these.
RUN apt-get update && apt-get install -y --no-install-recommends \
      python3 make g++ zlib1g-dev libssl-dev libzstd-dev liblz4-dev libsasl2-dev libcurl4-openssl-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . .
RUN CKJS_LINKING=dynamic npm ci --no-audit --no-fund
# Builds the app and, through Nx's ^build dependencies, the libraries it imports.
RUN npx nx run pager:build --outputStyle=static && npm prune --omit=dev

FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends \
      zlib1g libssl3 libzstd1 liblz4-1 libsasl2-2 libcurl4 ca-certificates \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production
# Workspace packages are symlinked from node_modules, so the libs and the app keep their paths.
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/libs ./libs
COPY --from=build --chown=node:node /app/apps/pager ./apps/pager
USER node
ENTRYPOINT ["node", "apps/pager/dist/main.js"]
