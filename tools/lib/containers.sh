# The pipeline's apps as containers (tools/pipeline up --containers, issue #20): the images that
# tools/images builds, run with podman (runtime runc) on the host network against the local stack,
# as the image's non-root user with a read-only root filesystem (podman adds a tmpfs /tmp).
# shellcheck shell=bash
# Sourced by tools/pipeline after tools/lib/common.sh. Containers are named clickstream-<app>; an
# unexpected exit (the gatekeeper SIGKILLs itself when a transactional call hangs) is restarted by
# podman's on-failure policy, like the host supervisor does.

CONTAINER_PREFIX=clickstream-${PIPELINE_INSTANCE:+$PIPELINE_INSTANCE-}
CONTAINER_IMAGE_TAG=${IMAGE_TAG:-dev}

podman_() { podman --runtime runc "$@"; }
# Explicit limits: podman's defaults for root (1048576 open files, the host's process limit) fail
# here with "error setting rlimit ...: operation not permitted"; these are within what this
# machine allows and far above what an app needs.
CONTAINER_LIMITS=(--ulimit "nofile=$(ulimit -Hn):$(ulimit -Hn)" --ulimit nproc=4096:4096)
container_name() { printf '%s%s' "$CONTAINER_PREFIX" "$1"; }
container_image() { printf 'clickstream/%s:%s' "$1" "$CONTAINER_IMAGE_TAG"; }
container_state() { podman_ inspect --format '{{.State.Status}}' "$(container_name "$1")" 2>/dev/null || echo absent; }
containers_available() { command -v podman >/dev/null && command -v runc >/dev/null; }

# Builds the images that are missing (tools/images caches the base and the shared build stage).
containers_ensure_images() {
  local a missing=()
  containers_available || die "podman/runc not installed: run tools/setup"
  for a in "$@"; do podman_ image exists "$(container_image "$a")" || missing+=("$a"); done
  ((${#missing[@]} == 0)) || bash "$REPO_ROOT/tools/images" build "${missing[@]}"
}

# container_start APP ARG...: runs the app's image detached with the given app arguments.
container_start() {
  local app=$1 name; shift
  name=$(container_name "$app")
  case $(container_state "$app") in
    running) log "$app container already running ($name)"; return ;;
    absent) ;;
    *) podman_ rm -f "$name" >/dev/null ;;
  esac
  container_mounts "$@"
  podman_ run -d --name "$name" --network host --read-only --restart on-failure "${CONTAINER_LIMITS[@]}" \
    "${CONTAINER_MOUNTS[@]}" "$(container_image "$app")" "$@" >/dev/null
}

# An argument naming a directory under results/ (the pager's --pages-dir) is the one place an app
# writes: it is bind-mounted at the same path, owned by the image's user (:U) so the app can write.
container_mounts() {
  CONTAINER_MOUNTS=()
  local arg
  for arg in "$@"; do
    [[ $arg == "$REPO_ROOT/results/"* ]] || continue
    mkdir -p "$arg"
    CONTAINER_MOUNTS+=(-v "$arg:$arg:U")
  done
}

# container_run_once APP ARG...: a one-shot run (e.g. loader --migrate), removed afterwards.
container_run_once() {
  local app=$1; shift
  podman_ run --rm --network host --read-only "${CONTAINER_LIMITS[@]}" "$(container_image "$app")" "$@"
}

container_stop() {
  local app=$1 name; name=$(container_name "$app")
  [[ $(container_state "$app") == absent ]] && return
  # The apps end their open transaction or flush on SIGTERM; 35 s as for the host processes.
  podman_ stop -t 35 "$name" >/dev/null || warn "$name did not stop cleanly"
  podman_ rm -f "$name" >/dev/null
  log "$app container stopped"
}
