#!/usr/bin/env bash
# Runs the suite on the oldest Node.js the tool supports (engines.node), pinned in .ci/node-floor.
# `npm test` runs it on the Node 24 that the devDependency `node` brings.
set -euo pipefail
cd "$(dirname "$0")/.."
npm ci --prefix .ci/node-floor --no-audit --no-fund
FLOOR_BIN="$PWD/.ci/node-floor/node_modules/.bin"
echo "suite on the Node.js floor: $("$FLOOR_BIN/node" --version)"
# The floor's node first on PATH, so the CLI processes the tests start run on it too.
PATH="$FLOOR_BIN:$PATH" "$FLOOR_BIN/node" node_modules/vitest/vitest.mjs run
