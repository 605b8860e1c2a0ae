# formguard verify service. The bundled models are baked in (mount a folder on /app/models to replace them); the
# tenants file is mounted, never baked in (.dockerignore keeps tenants/, .env and exported labels out).
FROM node:20-bookworm-slim
WORKDIR /app
# /metrics and /docs listen on ADMIN_PORT for a scraper on the container network; publish 3000 only (-p 3000:3000).
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 ADMIN_HOST=0.0.0.0 ADMIN_PORT=9464
COPY package.json package-lock.json ./
RUN npm ci && npm cache clean --force
COPY . .
# What `npm start` does before it starts: bundle the TypeScript service into dist/ (esbuild, ~0.3 s).
RUN npm run build
# The review spool (REVIEW_SPOOL_DIR, default /app/.spool) must be writable by the user the service runs as.
RUN mkdir -p /app/.spool && chown node:node /app/.spool
USER node
# Only the public port: ADMIN_PORT (9464) is for containers on the same network, which reach it without EXPOSE, and
# `docker run -P` publishes what is exposed.
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:3000/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# node itself as PID 1 gets SIGTERM and shuts down gracefully; npm would sit in between.
CMD ["node", "dist/server.js"]
