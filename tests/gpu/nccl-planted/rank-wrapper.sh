#!/bin/bash
# rank 1 takes the other NCCL library (mixed versions)
if [ "$LOCAL_RANK" = 1 ] && [ -n "$OTHER_NCCL" ]; then export LD_PRELOAD=$OTHER_NCCL; fi
exec python3 "$(dirname "$0")/allreduce.py"
