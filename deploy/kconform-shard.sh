#!/usr/bin/env bash
# Runs one shard of a campaign. The shard index comes from the scheduler:
#   GNU parallel: first argument; Slurm array: SLURM_ARRAY_TASK_ID (count
#   SLURM_ARRAY_TASK_COUNT); Kubernetes Indexed Job: JOB_COMPLETION_INDEX
#   (count KC_SHARDS, the Job's completions).
# Environment: KC_CAMPAIGN_ROOT (shared folder), KC_SHARDS (N, unless the
# scheduler gives it), KC_BUDGET (default 30m; or KC_BATCHES for a fixed
# number of batches per kernel x dtype), KC_SEED (default 1),
# KONFORM (the kconform executable, default: kconform on PATH), and
# KC_ARGS (more campaign arguments, e.g. "--family unary").
set -eu
index="${1:-${SLURM_ARRAY_TASK_ID:-${JOB_COMPLETION_INDEX:-}}}"
count="${SLURM_ARRAY_TASK_COUNT:-${KC_SHARDS:-}}"
if [ -z "$index" ] || [ -z "$count" ]; then
  echo "kconform-shard.sh: no shard index or count (set KC_SHARDS and run under parallel, Slurm or an Indexed Job)" >&2
  exit 2
fi
: "${KC_CAMPAIGN_ROOT:?set KC_CAMPAIGN_ROOT to a folder every shard can write}"
if [ -n "${KC_BATCHES:-}" ]; then work=(--batches "$KC_BATCHES"); else work=(--budget "${KC_BUDGET:-30m}"); fi
exec "${KONFORM:-kconform}" campaign --seed "${KC_SEED:-1}" "${work[@]}" \
  --shard "$index/$count" --out "$KC_CAMPAIGN_ROOT/shard-$index" --quiet ${KC_ARGS:-}
