#!/usr/bin/env bash
# a48d8ee (st-old) and the working tree of 9613245 (st-new, the same headers) in turn on the
# build machine, both threads, the build in the background stopped (SIGSTOP) while they ran
cd /work/main
perf/studies/cpu-kernels/build.sh a48d8ee /tmp/st-old
perf/studies/cpu-kernels/build.sh "$(git stash create)" /tmp/st-new   # the change, staged
perf/studies/cpu-kernels/rounds.sh 4 /tmp/ab1 /tmp/st-old /tmp/st-new -- aa-fp16-128x64x16 ab-fp16-128x64x16 \
  aa-fp32-128x64x16 ab-fp32-128x64x16 aa-fp64-128x64x16 ab-fp64-128x64x16 aa-fp16-256 ab-fp16-256 aa-fp32-256
