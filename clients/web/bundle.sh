#!/bin/sh
# Bundle the page (src/app.ts and the generated client) into the file server/web.py serves.
# tests/web/test_bundle.py bundles into a temporary file (BUNDLE_OUT) and compares.
set -eu
cd "$(dirname "$0")"
node_modules/.bin/esbuild src/app.ts --bundle --format=esm --target=es2022 --minify \
  --outfile="${BUNDLE_OUT:-../../server/web_static/app.js}"
