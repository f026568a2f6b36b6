# One image, several entry points (node dist/cmd/<name>/main.js): catalogd, operator-controller
# and the olmv1 CLI. The build stage compiles TypeScript to JavaScript; the runtime stage holds
# only production dependencies.
FROM node:24-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY cmd cmd
COPY pkg pkg
RUN npx tsc -p tsconfig.build.json

FROM node:24-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /src/dist ./dist
USER 65532:65532
ENTRYPOINT []
CMD ["node", "dist/cmd/olmv1/main.js", "--help"]
