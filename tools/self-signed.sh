#!/bin/sh
# Renders gpupack for a cluster without cert-manager: the self-signed overlay plus the webhook's
# serving certificate, made with bin/gpupack-certs and kept in CERTDIR (outside the repository
# or git-ignored: it holds the CA key).
#
#   tools/self-signed.sh [--rotate | --finish] CERTDIR | kubectl apply -f -
#
# First run: makes ca.crt, ca.key, tls.crt, tls.key in CERTDIR. Later runs reuse them while
# `gpupack-certs --check` finds them usable (otherwise they say to rotate).
# --rotate: keeps the old CA as ca.crt.previous and makes a new CA and pair; caBundle then trusts
#           both CAs, so kube-apiserver accepts the old pair until the pods have the new one.
# --finish: forgets ca.crt.previous; caBundle trusts the new CA only.
# The output is the overlay with the Secret gpupack-webhook-tls and the MutatingWebhookConfiguration's
# caBundle added. Nothing is sent to a cluster: pipe it to kubectl apply.
# Environment: BIN (default bin), KUBECTL (default kubectl), SERVICE/NAMESPACE (defaults
# gpupack-webhook/gpupack-system), DAYS (serving certificate lifetime, default 365).
set -eu
usage() { echo "usage: tools/self-signed.sh [--rotate | --finish] CERTDIR" >&2; exit 2; }
mode=keep
case "${1:-}" in
    --rotate) mode=rotate; shift ;;
    --finish) mode=finish; shift ;;
    -h|--help) usage ;;
    -*) echo "self-signed: unknown flag $1" >&2; usage ;;
esac
[ $# -eq 1 ] || usage
dir=$1
root=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$root/bin}
KUBECTL=${KUBECTL:-kubectl}
SERVICE=${SERVICE:-gpupack-webhook}
NAMESPACE=${NAMESPACE:-gpupack-system}
DAYS=${DAYS:-365}
certs="$BIN/gpupack-certs"
[ -x "$certs" ] || { echo "self-signed: $certs not found (run make first)" >&2; exit 2; }

make_pair() { # [--force]
    "$certs" --service "$SERVICE" --namespace "$NAMESPACE" --out "$dir" --days "$DAYS" \
        --log-level warn "$@" > /dev/null
}
usable() {
    "$certs" --check "$dir/tls.crt" --key "$dir/tls.key" --ca "$dir/ca.crt" --log-level error \
        > /dev/null 2>&1
}

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
    echo "self-signed: $dir/tls.crt is not usable (expired or mismatched): run with --rotate" >&2
    exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/gpupack-selfsigned.XXXXXX")
trap 'rm -rf "$work"' EXIT
prev=""
[ -f "$dir/ca.crt.previous" ] && prev="$dir/ca.crt.previous"
bundle=$(cat "$dir/ca.crt" $prev | base64 | tr -d '\n')
# kustomize takes only relative paths to other kustomizations.
overlay=$(realpath --relative-to="$work" "$root/manifests/overlays/self-signed" 2>/dev/null ||
    python3 -c 'import os, sys; print(os.path.relpath(sys.argv[1], sys.argv[2]))' \
        "$root/manifests/overlays/self-signed" "$work")
"$KUBECTL" create secret generic gpupack-webhook-tls --namespace "$NAMESPACE" \
    --type kubernetes.io/tls --from-file=tls.crt="$dir/tls.crt" --from-file=tls.key="$dir/tls.key" \
    --from-file=ca.crt="$dir/ca.crt" --dry-run=client -o yaml > "$work/secret.yaml"
cat > "$work/kustomization.yaml" <<YAML
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - $overlay
  - secret.yaml
patches:
  - target:
      group: admissionregistration.k8s.io
      version: v1
      kind: MutatingWebhookConfiguration
      name: gpupack-webhook
    patch: '[{"op": "add", "path": "/webhooks/0/clientConfig/caBundle", "value": "$bundle"}]'
YAML
"$KUBECTL" kustomize "$work"
