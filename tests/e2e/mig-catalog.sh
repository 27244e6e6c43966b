#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# One source of truth for MIG profile names (data/mig-profiles.csv, docs/mig-profiles.md): the
# scheduler configurations, the default policy and the docs agree with it; and the check itself
# notices a profile missing from a scheduler configuration or a policy profile no GPU offers.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
python3 "$ROOT/tools/mig-catalog.py" --check

# A copy of what the check reads, broken in two ways: each must be reported.
T=$E2E_TMP/tree
mkdir -p "$T/tools" "$T/docs"
cp -r "$ROOT/data" "$ROOT/manifests" "$T/"
cp "$ROOT/docs/"*.md "$T/docs/"
cp "$ROOT/README.md" "$T/"
grep -v 'nvidia.com/mig-7g.141gb' "$ROOT/manifests/control-plane/kube-scheduler-config.yaml" \
    > "$T/manifests/control-plane/kube-scheduler-config.yaml"
sed 's/"name": "4g.40gb", "memory": "40192Mi"/"name": "4g.40gb", "memory": "45Gi"/' \
    "$ROOT/manifests/base/policy.json" > "$T/manifests/base/policy.json"
out=$(MIG_CATALOG_ROOT=$T python3 "$ROOT/tools/mig-catalog.py" --check)
rc=$?
case $out in
    *"FAIL mig-catalog.managed.control-plane managedResources differ from the catalog: missing ['nvidia.com/mig-7g.141gb']"*)
        pass mig-catalog.detects-unmanaged-profile ;;
    *) fail mig-catalog.detects-unmanaged-profile "$out" ;;
esac
case $out in
    *"FAIL mig-catalog.default-policy"*) pass mig-catalog.detects-policy-mismatch ;;
    *) fail mig-catalog.detects-policy-mismatch "$out" ;;
esac
check mig-catalog.broken-tree-exits-nonzero test "$rc" -ne 0

# The name's figure overstates a slice's framebuffer (1g.10gb has about 9.5Gi): refused.
sed 's/"name": "1g.10gb", "memory": "9728Mi"/"name": "1g.10gb", "memory": "10Gi"/' \
    "$ROOT/manifests/base/policy.json" > "$T/manifests/base/policy.json"
cp "$ROOT/manifests/control-plane/kube-scheduler-config.yaml" "$T/manifests/control-plane/"
out=$(MIG_CATALOG_ROOT=$T python3 "$ROOT/tools/mig-catalog.py" --check)
case $out in
    *"FAIL mig-catalog.default-policy migProfiles memory ['10Gi']"*) pass mig-catalog.detects-nominal-memory ;;
    *) fail mig-catalog.detects-nominal-memory "$out" ;;
esac
