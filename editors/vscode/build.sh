#!/usr/bin/env bash
# Package the VS Code client as catalog-lsp.vsix (needs node and npm: fetches
# vscode-languageclient and @vscode/vsce from the npm registry). Install it with
#   code --install-extension editors/vscode/catalog-lsp.vsix
set -euo pipefail
cd "$(dirname "$0")"
npm install --no-audit --no-fund --loglevel=error
npx --no-install vsce package --allow-missing-repository --skip-license --out catalog-lsp.vsix
