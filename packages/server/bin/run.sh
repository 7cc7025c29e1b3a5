#!/bin/sh
# Runs one entry point of the server: src/<name>.ts through tsx (development, the default), or the
# compiled dist/<name>.js with plain node when NODE_ENV=production (`npm run build` first; ADR 0020).
# `exec` hands the process over to node, so SIGTERM from npm or a supervisor reaches the server.
name=$1
shift
if [ "$NODE_ENV" = production ]; then
  if [ ! -f "dist/$name.js" ]; then
    echo "NODE_ENV=production runs the compiled build, and dist/$name.js is missing: run 'npm run build' first." >&2
    exit 1
  fi
  exec node --enable-source-maps "dist/$name.js" "$@"
fi
exec node --import tsx "src/$name.ts" "$@"
