#!/usr/bin/env bash
# N shards on one machine with GNU parallel (each shard uses one core:
# -j 1 inside, N shards side by side), then the merge.
#   KC_CAMPAIGN_ROOT=/data/nightly KC_SHARDS=8 KC_BUDGET=2h deploy/parallel.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
: "${KC_SHARDS:=$(nproc)}" "${KC_CAMPAIGN_ROOT:?set KC_CAMPAIGN_ROOT}"
export KC_SHARDS KC_CAMPAIGN_ROOT KC_ARGS="${KC_ARGS:-} -j 1"
status=0
seq 0 $((KC_SHARDS - 1)) | parallel --line-buffer "$here/kconform-shard.sh" {} || status=$?
# Exit 1 from a shard is a contract failure, not a failed job: merge anyway.
[ "$status" -le "$KC_SHARDS" ] || exit "$status"
"${KONFORM:-kconform}" merge "$KC_CAMPAIGN_ROOT"/shard-* --out "$KC_CAMPAIGN_ROOT/merged"
