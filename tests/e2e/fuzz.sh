#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A short smoke of every libFuzzer harness (tools/fuzz.sh, GP_FUZZ_SMOKE_SECONDS each, default
# 20) and a replay of every saved crash. `make test` builds the harnesses and sets FUZZ_BUILD;
# `make asan` and `make valgrind` leave it empty (the harnesses carry their own sanitizers), and
# then this part has nothing to do.
[ -n "${FUZZ_BUILD:-}" ] || exit 0
cd "$(dirname "$0")/../.."
exec tools/fuzz.sh "${GP_FUZZ_SMOKE_SECONDS:-20}"
