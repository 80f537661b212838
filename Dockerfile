# Herald's image: `docker build -t herald .`; the API is `docker run herald` (serve), the publishing worker the same
# image with `worker`. compose.yaml runs both on Postgres. NODE_IMAGE is any Debian image with Node 20 or later in
# it (the official one by default; the container test builds one from Debian's archive, docs/deploy.md).
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /herald
COPY package.json package-lock.json ./
# No install scripts: nothing the build runs loads a native module, so every dependency is only unpacked.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY generated generated
COPY sdk/src sdk/src
COPY scripts scripts
COPY web web
COPY src src
RUN node_modules/.bin/tsx scripts/build-web.ts && node_modules/.bin/tsc -p tsconfig.build.json

# What runs: production dependencies, installed apart from the build (quicker than pruning it, and kept when only
# sources change). better-sqlite3's binary is the prebuilt one for the image's Node where one can be fetched (from
# GitHub, or the mirror BETTER_SQLITE3_BINARY_HOST names, with the same layout); only otherwise is a compiler
# installed and it compiled against that Node's headers. Either way it must open a database here.
FROM ${NODE_IMAGE} AS dependencies
ARG BETTER_SQLITE3_BINARY_HOST=
WORKDIR /herald
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
  && if ! (cd node_modules/better-sqlite3 \
    && npm_config_better_sqlite3_binary_host="$BETTER_SQLITE3_BINARY_HOST" ../.bin/prebuild-install); then \
    apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/* \
    && npm_config_nodedir="$(dirname "$(dirname "$(command -v node)")")" npm rebuild better-sqlite3; \
  fi \
  && node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()"

FROM ${NODE_IMAGE}
ENV NODE_ENV=production DATA_DIR=/data PORT=8080 WEB_APP_DIR=/herald/dist/web
RUN groupadd --system herald && useradd --system --gid herald --home-dir /herald --shell /usr/sbin/nologin herald \
  && mkdir -p /data && chown herald:herald /data && chmod 0700 /data
WORKDIR /herald
COPY --from=dependencies /herald/package.json ./
COPY --from=dependencies /herald/node_modules node_modules
COPY --from=build /herald/dist dist
USER herald
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", \
    "fetch('http://127.0.0.1:' + process.env.PORT + '/healthz') \
      .then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# V8's heap sized as `make run` sizes it (docs/operations.md, Memory).
ENTRYPOINT ["node", "--max-old-space-size=1024", "--max-semi-space-size=8", "dist/src/cli/main.js"]
CMD ["serve"]
