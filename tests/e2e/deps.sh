#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The package sets of tools/deps.sh: `make run` installs only what building and running need
# (the run set: every build package, no test tool), and the Makefile's run target asks for it.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
D="$ROOT/tools/deps.sh"
T=$E2E_TMP
sh "$D" --list build | sort > "$T/build" && sh "$D" --list run | sort > "$T/run" &&
    sh "$D" --list test | sort > "$T/test"
check deps.lists test -s "$T/build" -a -s "$T/run" -a -s "$T/test"
# comm -23 A B: lines only in A.
check deps.run-has-every-build-package test -z "$(comm -23 "$T/build" "$T/run")"
check deps.test-has-every-run-package test -z "$(comm -23 "$T/run" "$T/test")"
comm -23 "$T/test" "$T/build" > "$T/test-only"
in_run=$(comm -12 "$T/test-only" "$T/run" | tr '\n' ' ')
if [ -s "$T/test-only" ] && [ -z "$in_run" ]; then pass deps.run-has-no-test-tool
else fail deps.run-has-no-test-tool "test-only packages in the run set: $in_run"; fi
for p in clang-14 wrk nodejs npm kubernetes-client jq nghttp2-client prometheus; do
    check "deps.run-excludes-$p" sh -c "! grep -qx '$p' '$T/run' && grep -qx '$p' '$T/test'"
done
# Go only for `make bench` (the Go peer): never for the tests.
sh "$D" --list bench | sort > "$T/bench"
check deps.test-has-no-go sh -c "! grep -qx golang-go '$T/test'"
check deps.bench-adds-go grep -qx golang-go "$T/bench"
check deps.bench-has-every-test-package test -z "$(comm -23 "$T/test" "$T/bench")"
# etcd and the reflect2 sources only for the real control plane (`make test-kube`,
# `make bench-scheduler`), never for `make bench`.
sh "$D" --list kube | sort > "$T/kube"
check deps.kube-adds-etcd \
    sh -c "grep -qx etcd-server '$T/kube' && ! grep -qx etcd-server '$T/bench'"
check deps.kube-has-every-bench-package test -z "$(comm -23 "$T/bench" "$T/kube")"
make -n -C "$ROOT" test-kube BUILD="$T/build-dir" BIN="$T/bin-dir" > "$T/make-kube" 2>&1
check deps.make-test-kube-checks-the-kube-set grep -qx 'tools/deps.sh kube' "$T/make-kube"
sh "$D" bogus > /dev/null 2>&1
check deps.unknown-set-refused test $? -eq 2
# What `make run` would do (make -n runs nothing): check the run set, not the test set.
make -n -C "$ROOT" run BUILD="$T/build-dir" BIN="$T/bin-dir" > "$T/make-run" 2>&1
check deps.make-run-checks-the-run-set grep -qx 'tools/deps.sh run' "$T/make-run"
check deps.make-run-not-the-test-set sh -c "! grep -q 'tools/deps.sh test' '$T/make-run'"
exit 0
