#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The install manifests: every kustomization renders with `kubectl kustomize`, every object
# validates against the Kubernetes OpenAPI schemas offline, the settings docs/install.md promises
# hold, and the rendered command lines work on the real binaries (tests/manifests/check.mjs).
# Its npm packages are installed by `make test` (tests/manifests/package-lock.json).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -d "$ROOT/tests/manifests/node_modules/kubernetes-models" ]; then
    fail manifests.npm-packages "tests/manifests/node_modules is missing: run make test (npm ci)"
    exit 1
fi
ROOT=$ROOT BIN=$BIN TMP=$E2E_TMP node "$ROOT/tests/manifests/check.mjs"
