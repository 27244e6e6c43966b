# SPDX-License-Identifier: Apache-2.0
# Helpers for fixture cases (sourced by tests/cases/run.sh and each case's input.sh).
# Pods are made from real `kubectl create ... --dry-run=client -o json` templates and then
# defaulted the way kube-apiserver has defaulted them by the time a mutating webhook sees them
# (Pod defaults, ServiceAccount volume, DefaultTolerationSeconds, Priority, requests defaulted
# from limits), as the captured v1.32 reviews in tests/fixtures/ show.

# template deployment|job|cronjob NAME IMAGE: the pod template kubectl writes.
template() {
    case "$1" in
        deployment) kubectl create deployment "$2" --image="$3" --dry-run=client -o json ;;
        job) kubectl create job "$2" --image="$3" --dry-run=client -o json ;;
        cronjob) kubectl create cronjob "$2" --image="$3" --schedule='0 3 * * *' \
                     --dry-run=client -o json | jq '.spec.jobTemplate' ;;
    esac | jq '.spec.template'
}

# pod_from_template OWNER_KIND OWNER_NAME NAMESPACE < template: a Pod as kube-apiserver hands it
# to a mutating webhook. OWNER_KIND "" makes a bare pod named OWNER_NAME.
pod_from_template() {
    jq --arg kind "$1" --arg owner "$2" --arg ns "$3" '
      def owner_api: {"ReplicaSet":"apps/v1","StatefulSet":"apps/v1","Job":"batch/v1",
                      "DaemonSet":"apps/v1"}[$kind] // "example.com/v1";
      def image_policy: if (.image | test(":[^/]+$")) and (.image | test(":latest$") | not)
                        then "IfNotPresent" else "Always" end;
      def default_requests: if .resources.limits then
          .resources.requests = (.resources.limits + (.resources.requests // {})) else . end;
      def default_container: . + {terminationMessagePath: "/dev/termination-log",
                                  terminationMessagePolicy: "File", imagePullPolicy: image_policy}
          | default_requests
          | .volumeMounts = ((.volumeMounts // []) + [{name: "kube-api-access-x7k2p", readOnly: true,
                mountPath: "/var/run/secrets/kubernetes.io/serviceaccount"}]);
      {kind: "Pod", apiVersion: "v1",
       metadata: ((.metadata // {}) + {namespace: $ns}
         + (if $kind == "" then {name: $owner}
            else {generateName: ($owner + "-"),
                  ownerReferences: [{apiVersion: owner_api, kind: $kind, name: $owner,
                    uid: "5f0c4a1e-0d2b-4c3e-9a8f-1b2c3d4e5f60", controller: true,
                    blockOwnerDeletion: true}]} end)),
       spec: (.spec
         | .containers |= map(default_container)
         | if .initContainers then .initContainers |= map(default_container) else . end
         | .volumes = ((.volumes // []) + [{name: "kube-api-access-x7k2p", projected: {
               defaultMode: 420, sources: [{serviceAccountToken: {expirationSeconds: 3607,
               path: "token"}}]}}])
         | .restartPolicy = (.restartPolicy // "Always")
         | .terminationGracePeriodSeconds = (.terminationGracePeriodSeconds // 30)
         | .dnsPolicy = (.dnsPolicy // "ClusterFirst")
         | .serviceAccountName = (.serviceAccountName // "default")
         | .serviceAccount = (.serviceAccountName // "default")
         | .securityContext = (.securityContext // {})
         | .schedulerName = (.schedulerName // "default-scheduler")
         | .tolerations = ((.tolerations // []) + [
             {key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute",
              tolerationSeconds: 300},
             {key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute",
              tolerationSeconds: 300}])
         | .priority = (.priority // 0)
         | .enableServiceLinks = true
         | .preemptionPolicy = (.preemptionPolicy // "PreemptLowerPriority")),
       status: {}}'
}

# set_limits INDEX JSON < pod: sets container INDEX's limits (requests defaulted from them, as
# kube-apiserver does) and keeps the other resources.
set_limits() {
    jq --argjson i "$1" --argjson l "$2" '
      .spec.containers[$i].resources.limits = ((.spec.containers[$i].resources.limits // {}) + $l)
      | .spec.containers[$i].resources.requests =
          ((.spec.containers[$i].resources.requests // {}) + $l)'
}

# review [OPERATION] [DRYRUN] < pod: wraps a pod into the AdmissionReview kube-apiserver sends.
review() {
    jq --arg op "${1:-CREATE}" --argjson dry "${2:-false}" '
      {kind: "AdmissionReview", apiVersion: "admission.k8s.io/v1",
       request: {uid: "0d7e4b8a-3c2f-4e1a-9b6d-5f4a3c2b1a09",
         kind: {group: "", version: "v1", kind: "Pod"},
         resource: {group: "", version: "v1", resource: "pods"},
         requestKind: {group: "", version: "v1", kind: "Pod"},
         requestResource: {group: "", version: "v1", resource: "pods"},
         namespace: .metadata.namespace, operation: $op,
         userInfo: {username: "system:serviceaccount:kube-system:replicaset-controller",
                    groups: ["system:serviceaccounts", "system:authenticated"]},
         object: ., oldObject: null, dryRun: $dry,
         options: {kind: "CreateOptions", apiVersion: "meta.k8s.io/v1"}}}
      | if .request.name == null and .request.object.metadata.name then
          .request.name = .request.object.metadata.name else . end'
}
