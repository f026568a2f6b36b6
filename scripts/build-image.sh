#!/usr/bin/env bash
# Builds the Dockerfile with buildah (daemonless, Debian's `buildah` package) from the committed
# tree (HEAD) and runs each entry point of the image with --help as the image's user.
#
#   scripts/build-image.sh [TAG]            default TAG: localhost/olmv1:dev
#   STAND_IN_BASE=1 scripts/build-image.sh  when no registry serving node:24-slim is reachable
#
# STAND_IN_BASE=1 first builds a local stand-in for docker.io/library/node:24-slim (unless one
# is in local storage): a Debian bookworm minbase root (debootstrap) with the project's Node 24
# binary (node_modules/node/bin/node) in /usr/local/bin and the host's npm, as the official
# image lays them out. If NODE_EXTRA_CA_CERTS is set (a TLS-inspecting proxy), that CA file is
# added to the stand-in and named by its NODE_EXTRA_CA_CERTS so that the build's `npm ci` can
# reach the registry. The stand-in is not the official image: the official one's exact Debian
# release, packages and `node` user are not reproduced.
#
# Needs root (or a rootless buildah setup); uses the vfs storage driver and chroot isolation,
# which work without overlayfs or a container runtime daemon.
set -euo pipefail

TAG=${1:-localhost/olmv1:dev}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=(buildah --storage-driver vfs)
BASE=docker.io/library/node:24-slim
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

if [[ ${STAND_IN_BASE:-0} == 1 ]] && ! "${B[@]}" inspect --type image "$BASE" >/dev/null 2>&1; then
  echo "building a stand-in $BASE (debootstrap bookworm minbase + Node $("$ROOT/node_modules/node/bin/node" --version))"
  debootstrap --variant=minbase bookworm "$WORK/rootfs" http://deb.debian.org/debian >"$WORK/debootstrap.log"
  ctr=$("${B[@]}" from scratch)
  trap '"${B[@]}" rm "$ctr" >/dev/null 2>&1; rm -rf "$WORK"' EXIT
  mnt=$("${B[@]}" mount "$ctr")
  cp -a "$WORK/rootfs/." "$mnt/"
  mkdir -p "$mnt/usr/local/bin" "$mnt/usr/local/lib/node_modules"
  cp "$ROOT/node_modules/node/bin/node" "$mnt/usr/local/bin/node"
  cp -a "$(dirname "$(readlink -f "$(command -v npm)")")/.." "$mnt/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$mnt/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$mnt/usr/local/bin/npx"
  config=(--env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --cmd node)
  if [[ -n ${NODE_EXTRA_CA_CERTS:-} ]]; then
    mkdir -p "$mnt/etc/ssl/certs"
    cp "$NODE_EXTRA_CA_CERTS" "$mnt/etc/ssl/certs/build-host-ca.crt"
    config+=(--env NODE_EXTRA_CA_CERTS=/etc/ssl/certs/build-host-ca.crt)
  fi
  "${B[@]}" config "${config[@]}" "$ctr"
  "${B[@]}" umount "$ctr" >/dev/null
  "${B[@]}" commit -q --rm "$ctr" "$BASE" >/dev/null
  trap 'rm -rf "$WORK"' EXIT
fi

pull=()
[[ ${STAND_IN_BASE:-0} == 1 ]] && pull=(--pull-never)
mkdir "$WORK/context"
git -C "$ROOT" archive HEAD | tar -x -C "$WORK/context"
"${B[@]}" bud "${pull[@]}" --isolation chroot --network host -t "$TAG" "$WORK/context"

user=$("${B[@]}" inspect --type image --format '{{.OCIv1.Config.User}}' "$TAG")
[[ $user =~ ^[1-9][0-9]*(:[0-9]+)?$ ]] || { echo "image user $user: want a numeric non-root uid" >&2; exit 1; }
ctr=$("${B[@]}" from --pull-never "$TAG")
trap '"${B[@]}" rm "$ctr" >/dev/null; rm -rf "$WORK"' EXIT
for entry in catalogd operator-controller olmv1; do
  out=$("${B[@]}" run --isolation chroot "$ctr" -- node "dist/cmd/$entry/main.js" --help)
  grep -q '^Usage: ' <<<"$out" || { echo "$entry --help printed no usage" >&2; exit 1; }
  echo "$entry (as $user): $(head -1 <<<"$out")"
done
"${B[@]}" run --isolation chroot "$ctr" -- sh -c 'test -w /var/cache/catalogd && test -w /var/cache/operator-controller && test ! -e node_modules/typescript' ||
  { echo "cache directories not writable by $user, or devDependencies in the image" >&2; exit 1; }
echo "built $TAG"
