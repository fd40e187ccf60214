# The hash of everything an app image's build reads, so that tools/images rebuilds an image only when
# it changed (issue #20).
# shellcheck shell=bash
# Sourced by tools/images; infra/images/test/image-inputs.spec.ts tests it on a scratch repository.

# build_inputs ROOT BASE_ID: the build context (every file git tracks or would add, less what
# app.Dockerfile.dockerignore drops anyway: docs/, Markdown, .github/, results/; git ignores only paths
# the .dockerignore drops too), which includes the Dockerfile, its ignore file and tools/images, plus the
# base image's id. Any source edit changes it; podman's layer cache then reruns only the steps whose
# inputs differ (npm ci only when a package.json or the lock changed).
build_inputs() {
  local root=$1 base_id=$2
  {
    git -C "$root" ls-files -z --cached --others --exclude-standard |
      while IFS= read -r -d '' f; do
        case $f in docs/* | .github/* | results/* | *.md) continue ;; esac
        if [[ -f $root/$f ]]; then printf '%s\0' "$f"; fi
      done | (cd "$root" && xargs -0 -r sha256sum)
    printf 'base %s\n' "$base_id"
  } | sha256sum | cut -c1-16
}
