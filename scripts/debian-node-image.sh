#!/bin/sh
# Makes a base image for the Dockerfile where no image registry is reachable: Debian bookworm from Debian's archive
# (debootstrap) with this machine's Node and npm laid out as the official node image has them (/usr/local) and the
# certificates this machine trusts (Node is told of them), then `docker import`ed as TAG. Needs root, debootstrap and a
# running Docker engine.
#   scripts/debian-node-image.sh herald-node:20 && docker build --build-arg NODE_IMAGE=herald-node:20 -t herald .
set -eu
tag=${1:?usage: scripts/debian-node-image.sh TAG}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase bookworm "$root" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >/dev/null
node=$(readlink -f "$(command -v node)")
prefix=$(dirname "$(dirname "$node")")
mkdir -p "$root/usr/local/bin" "$root/usr/local/include" "$root/usr/local/lib/node_modules"
cp "$node" "$root/usr/local/bin/node"
cp -r "$prefix/include/node" "$root/usr/local/include/node"
cp -r "$prefix/lib/node_modules/npm" "$root/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
mkdir -p "$root/etc/ssl/certs"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
tar -C "$root" -c . | docker import --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'CMD ["node"]' - "$tag" >/dev/null
echo "$tag"
