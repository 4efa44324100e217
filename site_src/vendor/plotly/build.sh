#!/bin/sh
# Rebuild plotly-kb.min.js from plotly.js's npm sources (see README.md); needs node and npm.
#   sh site_src/vendor/plotly/build.sh [VERSION]     # default 4.1.1, the `plotly` Python package's plotly.js
set -eu
version=${1:-4.1.1}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
echo '{"name": "kb-plotly", "version": "1.0.0", "private": true}' >package.json
npm install --no-audit --no-fund --ignore-scripts "plotly.js@$version" esbuild@0.28.2 >/dev/null
cp "$here/entry.js" .
node_modules/.bin/esbuild entry.js --bundle --minify --format=iife --global-name=Plotly --target=es2016 \
    --define:global=window --define:define.amd=false --define:process.env.NODE_DEBUG=false \
    --alias:stream=stream-browserify --loader:.css=empty --legal-comments=eof \
    --banner:js="/* plotly.js v$version (MIT, see LICENSE): core + heatmap, built by site_src/vendor/plotly/build.sh */" \
    --outfile="$here/plotly-kb.min.js"
cp node_modules/plotly.js/LICENSE "$here/LICENSE"
