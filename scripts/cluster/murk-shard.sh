#!/usr/bin/env bash
# Runs one shard of a split murk run (datagen, match or tournament) as a batch system's task:
#   murk-shard.sh datagen --variant dark-chess --games 20000 --out /shared/data/dark-chess
# becomes `murk datagen ... --shard K/N --resume`, so a task that is killed and started again
# continues where it stopped. K and N come from the scheduler:
#   Slurm job array (--array=0-<N-1>):  SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT
#   Kubernetes Indexed Job:             JOB_COMPLETION_INDEX, with MURK_SHARDS=N
#   GNU parallel or by hand:            MURK_SHARD_INDEX, MURK_SHARDS
# `%K` in an argument becomes K (e.g. `--json games-%K.json`: each shard its own record file).
# MURK names the murk binary (default: murk on the PATH).
set -euo pipefail
index=${MURK_SHARD_INDEX:-${SLURM_ARRAY_TASK_ID:-${JOB_COMPLETION_INDEX:-}}}
count=${MURK_SHARDS:-${SLURM_ARRAY_TASK_COUNT:-}}
if [ -z "$index" ] || [ -z "$count" ]; then
  echo "murk-shard.sh: no shard index or count: run it as a Slurm array task, a Kubernetes Indexed Job with MURK_SHARDS, or with MURK_SHARD_INDEX and MURK_SHARDS" >&2
  exit 2
fi
if [ "$#" -eq 0 ]; then
  echo "murk-shard.sh: give the murk command to split, e.g. datagen --variant dark-chess --games 20000 --out DIR" >&2
  exit 2
fi
exec "${MURK:-murk}" "${@//%K/$index}" --shard "$index/$count" --resume
