# syntax=docker/dockerfile:1
# Every app's image from one Dockerfile: the workspace is installed and built once (stage "build",
# shared through the layer cache by every app), and each runtime image holds only its app, the libs it
# imports and their production dependencies (staged by infra/compose/stage-app.mjs).
#
# On a Docker host, from the repository root:
#   docker build -f infra/compose/app.Dockerfile --build-arg APP=gatekeeper -t clickstream/gatekeeper:dev .
# Without Docker Hub, tools/images builds the same file with podman and BASE_IMAGE set to a local
# debootstrapped Debian 12 + Node 20 image (tools/lib/base-image.sh).
ARG BASE_IMAGE=node:20-bookworm-slim

# package.json files and the lock only, so that `npm ci` below is cached until they change.
FROM ${BASE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir /manifests && cp package-lock.json /manifests/ && \
    find . -name package.json -not -path '*/node_modules/*' -exec cp --parents {} /manifests/ \;

FROM ${BASE_IMAGE} AS build
# librdkafka (inside @confluentinc/kafka-javascript) is compiled here and linked dynamically against
# Debian's libraries (CKJS_LINKING=dynamic), so the runtime image needs only their .so packages.
RUN apt-get update && apt-get install -y --no-install-recommends \
      python3 make g++ zlib1g-dev libssl-dev libzstd-dev liblz4-dev libsasl2-dev libcurl4-openssl-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# node-gyp builds against the headers installed with Node instead of downloading them.
ENV CKJS_LINKING=dynamic npm_config_nodedir=/usr/local NX_DAEMON=false NX_NO_CLOUD=true
COPY --from=manifests /manifests/ ./
RUN npm ci --no-audit --no-fund
COPY . .
# The apps that have images (tools/images IMAGE_APPS); Nx builds the libraries they import first.
ARG APPS="gatekeeper loader generator reconciler probe pager collector"
RUN npx nx run-many -t build -p "$(echo $APPS | tr ' ' ,)" --outputStyle=static && \
    node infra/compose/stage-app.mjs /out ${APPS}

# The shared libraries librdkafka links against, nothing else (apt's lists and package caches go too:
# the public image's apt config already skips the caches, a debootstrapped base keeps them).
FROM ${BASE_IMAGE} AS runtime
RUN apt-get update && apt-get install -y --no-install-recommends \
      zlib1g libssl3 libzstd1 liblz4-1 libsasl2-2 libcurl4 ca-certificates \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/cache/apt/archives/*.deb /var/log/apt /var/log/dpkg.log

FROM runtime AS app
ARG APP
LABEL org.opencontainers.image.title="clickstream ${APP}"
WORKDIR /app
ENV NODE_ENV=production
# Owned by root and read-only to the app; it writes nowhere but mounted volumes (and /tmp).
COPY --from=build /out/${APP}/ ./
USER node
ENTRYPOINT ["node", "/app/main.js"]
