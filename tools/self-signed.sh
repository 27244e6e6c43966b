#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Renders gpupack for a cluster without cert-manager: a kustomization (by default the self-signed
# overlay; with --overlay, your site overlay built on it, docs/install.md) plus the webhook's
# serving certificate, made with bin/gpupack-certs and kept in CERTDIR (outside the repository
# or git-ignored: it holds the CA key).
#
#   tools/self-signed.sh [--overlay DIR] [--rotate | --finish] CERTDIR | kubectl apply -f -
#
# First run: makes ca.crt, ca.key, tls.crt, tls.key in CERTDIR. Later runs reuse them while
# `gpupack-certs --check` finds them usable and made for the Service's namespace (otherwise they
# say to rotate).
# --overlay DIR: render DIR instead of manifests/overlays/self-signed. DIR is a kustomization whose
#           resources include gpupack's overlays/self-signed (directly or through other layers),
#           such as a copy of manifests/overlays/custom-policy-example.
# --rotate: keeps the old CA as ca.crt.previous and makes a new CA and pair; caBundle then trusts
#           both CAs, so kube-apiserver accepts the old pair until the pods have the new one.
# --finish: forgets ca.crt.previous; caBundle trusts the new CA only.
# The output is the overlay with the Secret gpupack-webhook-tls and the MutatingWebhookConfiguration's
# caBundle added. Nothing is sent to a cluster: pipe it to kubectl apply.
# Environment: BIN (default bin), KUBECTL (default kubectl), SERVICE/NAMESPACE (defaults
# gpupack-webhook/gpupack-system), DAYS (serving certificate lifetime, default 365).
# NAMESPACE moves every namespaced object there (and the references to them: the webhook
# configuration's Service, RBAC subjects, the scheduler's leader-election Lease); the webhook
# configuration's namespaceSelector excludes it as well. The RoleBinding to
# extension-apiserver-authentication-reader stays in kube-system, where that Role lives.
set -eu
usage() {
    echo "usage: tools/self-signed.sh [--overlay DIR] [--rotate | --finish] CERTDIR" >&2
    exit 2
}
root=$(cd "$(dirname "$0")/.." && pwd)
mode=keep
overlay_dir=$root/manifests/overlays/self-signed
while [ $# -gt 0 ]; do
    case "$1" in
        --rotate) [ $mode = keep ] || usage; mode=rotate; shift ;;
        --finish) [ $mode = keep ] || usage; mode=finish; shift ;;
        --overlay)
            [ $# -ge 2 ] || usage
            [ -f "$2/kustomization.yaml" ] || [ -f "$2/kustomization.yml" ] ||
                [ -f "$2/Kustomization" ] || {
                echo "self-signed: $2 holds no kustomization.yaml" >&2; exit 2; }
            overlay_dir=$(cd "$2" && pwd); shift 2 ;;
        -h|--help) usage ;;
        -*) echo "self-signed: unknown flag $1" >&2; usage ;;
        *) break ;;
    esac
done
[ $# -eq 1 ] || usage
dir=$1
BIN=${BIN:-$root/bin}
KUBECTL=${KUBECTL:-kubectl}
SERVICE=${SERVICE:-gpupack-webhook}
NAMESPACE=${NAMESPACE:-gpupack-system}
DAYS=${DAYS:-365}
case $NAMESPACE in
    ""|-*|*-|*[!a-z0-9-]*)
        echo "self-signed: NAMESPACE '$NAMESPACE' is not a namespace name (DNS label)" >&2; exit 2 ;;
esac
certs="$BIN/gpupack-certs"
[ -x "$certs" ] || { echo "self-signed: $certs not found (run make first)" >&2; exit 2; }

make_pair() { # [--force]
    "$certs" --service "$SERVICE" --namespace "$NAMESPACE" --out "$dir" --days "$DAYS" \
        --log-level warn "$@" > /dev/null
}
usable() {
    # Valid, matching, and made for this Service in this namespace (kube-apiserver checks the
    # name SERVICE.NAMESPACE.svc against the certificate).
    out=$("$certs" --check "$dir/tls.crt" --key "$dir/tls.key" --ca "$dir/ca.crt" \
        --log-level error 2>/dev/null) &&
        printf '%s\n' "$out" | grep -q "DNS:$SERVICE\.$NAMESPACE\.svc\(,\|\$\)"
}

# The overlay is rendered and checked before any certificate is made or rotated: a refused
# overlay leaves CERTDIR as it was.
work=$(mktemp -d "${TMPDIR:-/tmp}/gpupack-selfsigned.XXXXXX")
trap 'rm -rf "$work"' EXIT
relpath() { # TARGET FROM: kustomize takes only relative paths to other kustomizations.
    realpath --relative-to="$2" "$1" 2>/dev/null ||
        python3 -c 'import os, sys; print(os.path.relpath(sys.argv[1], sys.argv[2]))' "$1" "$2"
}
# The overlay, moved to NAMESPACE when that is not gpupack's own: kustomize's namespace
# transformer moves the objects, the RBAC subjects and the webhook configuration's Service
# reference; the Lease the scheduler's configuration names is inside a ConfigMap's text.
mkdir "$work/overlay"
{
    echo "apiVersion: kustomize.config.k8s.io/v1beta1"
    echo "kind: Kustomization"
    [ "$NAMESPACE" = gpupack-system ] || echo "namespace: $NAMESPACE"
    echo "resources:"
    echo "  - $(relpath "$overlay_dir" "$work/overlay")"
} > "$work/overlay/kustomization.yaml"
"$KUBECTL" kustomize "$work/overlay" > "$work/rendered.yaml"
# cert-manager would own the Secret and caBundle this script writes: one or the other.
if grep -q '^apiVersion: cert-manager\.io/' "$work/rendered.yaml"; then
    echo "self-signed: $overlay_dir renders cert-manager objects (it is built on overlays/cert-manager):" \
         "apply it with kubectl apply -k, or build it on overlays/self-signed" >&2
    exit 1
fi

case $mode in
    rotate)
        [ -f "$dir/ca.crt" ] || { echo "self-signed: nothing to rotate in $dir" >&2; exit 1; }
        # A second --rotate would replace the CA still deployed with one that never was.
        if [ -f "$dir/ca.crt.previous" ]; then
            echo "self-signed: a rotation is already in progress in $dir (ca.crt.previous exists):" \
                 "apply its output again, or finish it with --finish" >&2
            exit 1
        fi
        cp "$dir/ca.crt" "$dir/ca.crt.previous"
        make_pair --force
        echo "self-signed: new CA and serving pair in $dir; the old CA stays trusted until --finish" >&2
        ;;
    finish)
        rm -f "$dir/ca.crt.previous"
        ;;
esac
if [ ! -f "$dir/tls.crt" ]; then
    make_pair
    echo "self-signed: made a CA and serving pair in $dir" >&2
elif ! usable; then
    echo "self-signed: $dir/tls.crt is not usable (expired, mismatched, or not made for" \
         "$SERVICE.$NAMESPACE.svc): run with --rotate" >&2
    exit 1
fi
prev=""
[ -f "$dir/ca.crt.previous" ] && prev="$dir/ca.crt.previous"
bundle=$(cat "$dir/ca.crt" $prev | base64 | tr -d '\n')
"$KUBECTL" create secret generic gpupack-webhook-tls --namespace "$NAMESPACE" \
    --type kubernetes.io/tls --from-file=tls.crt="$dir/tls.crt" --from-file=tls.key="$dir/tls.key" \
    --from-file=ca.crt="$dir/ca.crt" --dry-run=client -o yaml > "$work/secret.yaml"
sed "s/^\( *resourceNamespace:\) gpupack-system\$/\1 $NAMESPACE/" "$work/rendered.yaml" \
    > "$work/overlay.yaml"
moved=""
if [ "$NAMESPACE" != gpupack-system ]; then
    moved="
  - target:
      group: rbac.authorization.k8s.io
      kind: RoleBinding
      name: gpupack-scheduler-authentication-reader
    patch: '[{\"op\": \"replace\", \"path\": \"/metadata/namespace\", \"value\": \"kube-system\"}]'
  - target:
      group: admissionregistration.k8s.io
      version: v1
      kind: MutatingWebhookConfiguration
      name: gpupack-webhook
    patch: '[{\"op\": \"add\", \"path\": \"/webhooks/0/namespaceSelector/matchExpressions/0/values/-\", \"value\": \"$NAMESPACE\"}]'"
fi
cat > "$work/kustomization.yaml" <<YAML
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - overlay.yaml
  - secret.yaml
patches:
  - target:
      group: admissionregistration.k8s.io
      version: v1
      kind: MutatingWebhookConfiguration
      name: gpupack-webhook
    patch: '[{"op": "add", "path": "/webhooks/0/clientConfig/caBundle", "value": "$bundle"}]'$moved
YAML
"$KUBECTL" kustomize "$work"
