# One image, several entry points (node dist/cmd/<name>/main.js): catalogd, operator-controller
# and the olmv1 CLI (its `console --in-cluster` is config/console's Pod); config/manager/*.yaml
# name them in `command`. The build stage compiles TypeScript to JavaScript and the console's UI
# to static files; the runtime stage holds only production dependencies and dist/.
# scripts/build-image.ts builds it without a Docker daemon (pkg/olmv1/images: buildah) and runs
# each entry point; scripts/check-image.ts checks it without a container engine.
FROM node:24-slim AS build
# The reproducible build's one time for the tools the steps run (pkg/olmv1/images passes it,
# and the same time to buildah's --timestamp; decision 0139).
ARG SOURCE_DATE_EPOCH
WORKDIR /src
COPY package.json package-lock.json ./
# --ignore-scripts: the `node` devDependency would download a second Node; the image's is used.
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY cmd cmd
COPY pkg pkg
RUN node node_modules/typescript/bin/tsc -p tsconfig.build.json
# catalogd and operator-controller each bundled into one file, dist/cmd/<name>/start.cjs, which
# the main.js written over tsc's runs with a V8 code cache (decision 0147).
COPY scripts/build-bundles.ts scripts/build-bundles.ts
RUN node scripts/build-bundles.ts
# The console's UI as static files (dist/console, decision 0141): React, PatternFly and esbuild
# are build tools, left in this stage; the console serves the files as they are.
COPY scripts/build-console.ts scripts/build-console.ts
RUN node scripts/build-console.ts

FROM node:24-slim
ARG SOURCE_DATE_EPOCH
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force \
  && rm -rf /root/.npm /tmp/node-compile-cache \
  && groupadd --gid 65532 nonroot \
  && useradd --uid 65532 --gid 65532 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin nonroot \
  && mkdir -p /var/cache/catalogd /var/cache/operator-controller \
  && chown 65532:65532 /var/cache/catalogd /var/cache/operator-controller
COPY --from=build /src/dist ./dist
# Numeric, so that Kubernetes can verify runAsNonRoot. The kubelet passes only the uid on to
# the runtime, which takes the group from /etc/passwd: without the nonroot entry above the
# processes would run with group 0. The Deployments mount emptyDirs on the
# cache directories and /tmp and run with a read-only root filesystem.
# Node's compile cache is kept in each component's cache directory at run time
# (cmd/shared/compile-cache.ts), not built into the image (decision 0097).
USER 65532:65532
ENTRYPOINT []
CMD ["node", "dist/cmd/olmv1/main.js", "--help"]
