// SPDX-License-Identifier: Apache-2.0
// Offline checks of what `kubectl kustomize` renders from manifests/: every object against the
// Kubernetes OpenAPI schemas (kubernetes-models, cert-manager's and the Prometheus Operator's CRD
// schemas), the settings
// docs/install.md promises, the webhook's CEL match condition evaluated on real pods, and the
// rendered command lines run against the real binaries.
// Usage: node check.mjs   (from anywhere; env ROOT = repository, BIN = binaries, TMP = scratch)
// Prints one "PASS name" or "FAIL name: why" line per check.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import YAML from "yaml";
import { run as celRun } from "@bufbuild/cel";

const ROOT = process.env.ROOT;
const BIN = path.resolve(ROOT, process.env.BIN || "bin");
const TMP = process.env.TMP;
const FIXTURES = path.join(ROOT, "tests/fixtures");
const VERSION = fs.readFileSync(path.join(ROOT, "VERSION"), "utf8").trim();
const POLICY_FILE = path.join(ROOT, "manifests/base/policy.json");
const POLICY = JSON.parse(fs.readFileSync(POLICY_FILE, "utf8"));

let failures = 0;
function check(name, fn) {
  try {
    const why = fn();
    if (why === true || why === undefined) console.log(`PASS manifests.${name}`);
    else { failures++; console.log(`FAIL manifests.${name}: ${why}`); }
  } catch (e) {
    failures++;
    console.log(`FAIL manifests.${name}: ${String(e.message || e).split("\n").slice(0, 6).join(" | ")}`);
  }
}
async function checkAsync(name, fn) {
  try {
    const why = await fn();
    if (why === true || why === undefined) console.log(`PASS manifests.${name}`);
    else { failures++; console.log(`FAIL manifests.${name}: ${why}`); }
  } catch (e) {
    failures++;
    console.log(`FAIL manifests.${name}: ${String(e.message || e).split("\n").slice(0, 6).join(" | ")}`);
  }
}
const expect = (cond, msg) => { if (!cond) throw new Error(msg); };

function parseAll(text) {
  const docs = YAML.parseAllDocuments(text);
  for (const d of docs) if (d.errors.length) throw new Error(d.errors[0].message);
  return docs.map((d) => d.toJS()).filter((o) => o !== null);
}
function render(dir) {
  return parseAll(execFileSync("kubectl", ["kustomize", path.join(ROOT, dir)],
    { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }));
}
// A kustomization outside the repository (a user's site overlay): kubectl kustomize of DIR.
function renderAbs(dir) {
  return parseAll(execFileSync("kubectl", ["kustomize", dir], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }));
}
const find = (objs, kind, name) => objs.find((o) => o.kind === kind && o.metadata.name === name);
const all = (objs, kind) => objs.filter((o) => o.kind === kind);

// ---- schema validation -------------------------------------------------------------------
async function modelFor(o) {
  const [group, version] = o.apiVersion.includes("/") ? o.apiVersion.split("/") : ["", o.apiVersion];
  const mod = group === "cert-manager.io"
    ? `@kubernetes-models/cert-manager/${group}/${version}/${o.kind}`
    : group === "monitoring.coreos.com"
      ? `@kubernetes-models/prometheus-operator/${group}/${version}/${o.kind}`
      : `kubernetes-models/${group ? group + "/" : ""}${version}/${o.kind}`;
  return (await import(mod))[o.kind];
}
async function validate(o) {
  const M = await modelFor(o);
  if (!M) throw new Error(`no schema for ${o.apiVersion} ${o.kind}`);
  new M(o).validate();
}
async function validateAll(name, objs) {
  await checkAsync(`schema-${name}`, async () => {
    const bad = [];
    for (const o of objs) {
      try { await validate(o); } catch (e) {
        bad.push(`${o.kind}/${o.metadata?.name}: ${String(e.message).slice(0, 300)}`);
      }
    }
    return bad.length ? bad.join("; ") : true;
  });
}

// ---- rendering ---------------------------------------------------------------------------
const renders = {};
for (const [name, dir] of [["root", "manifests"], ["base", "manifests/base"],
  ["scheduler", "manifests/scheduler"], ["cert-manager", "manifests/overlays/cert-manager"],
  ["self-signed", "manifests/overlays/self-signed"],
  ["custom-policy-example", "manifests/overlays/custom-policy-example"],
  ["prometheus-operator", "manifests/overlays/prometheus-operator"]]) {
  check(`render-${name}`, () => {
    renders[name] = render(dir);
    expect(renders[name].length > 0, "rendered nothing");
  });
}
const certDir = path.join(TMP, "cluster-certs");
const selfSignedIn = (dir, env, ...args) => parseAll(execFileSync(path.join(ROOT, "tools/self-signed.sh"),
  [...args, dir], { encoding: "utf8", env: { ...process.env, BIN, ...env }, stdio: ["ignore", "pipe", "pipe"] }));
const selfSigned = (...args) => selfSignedIn(certDir, {}, ...args);
check("render-self-signed-with-certificate", () => { renders["self-signed-full"] = selfSigned(); });

const controlPlaneFiles = {
  "control-plane-static-pod": parseAll(fs.readFileSync(path.join(ROOT, "manifests/control-plane/gpupack-extender.yaml"), "utf8")),
};
for (const [name, objs] of Object.entries(renders)) await validateAll(name, objs);
for (const [name, objs] of Object.entries(controlPlaneFiles)) await validateAll(name, objs);

// The validator is real: it rejects what kube-apiserver would reject.
await checkAsync("schema-validator-rejects-bad-objects", async () => {
  const dep = structuredClone(find(renders.root, "Deployment", "gpupack-webhook"));
  dep.spec.replicas = "two";
  let threw = false;
  try { await validate(dep); } catch { threw = true; }
  const mwc = structuredClone(find(renders.root, "MutatingWebhookConfiguration", "gpupack-webhook"));
  delete mwc.webhooks[0].sideEffects;
  let threw2 = false;
  try { await validate(mwc); } catch { threw2 = true; }
  return threw && threw2 ? true : `accepted: replicas "two" ${!threw}, no sideEffects ${!threw2}`;
});

const R = renders.root || [];
const mwc = find(R, "MutatingWebhookConfiguration", "gpupack-webhook");
const hook = mwc?.webhooks?.[0];
const whDep = find(R, "Deployment", "gpupack-webhook");
const schedDep = find(R, "Deployment", "gpupack-scheduler");
const whSvc = find(R, "Service", "gpupack-webhook");

// ---- the webhook configuration -----------------------------------------------------------
check("webhook-config-settings", () => {
  expect(mwc.webhooks.length === 1, "one webhook entry");
  expect(hook.failurePolicy === "Ignore", `failurePolicy ${hook.failurePolicy}`);
  expect(hook.sideEffects === "None", `sideEffects ${hook.sideEffects}`);
  expect(Number.isInteger(hook.timeoutSeconds) && hook.timeoutSeconds >= 1 && hook.timeoutSeconds <= 5,
    `timeoutSeconds ${hook.timeoutSeconds} (want 1-5)`);
  expect(hook.reinvocationPolicy === "IfNeeded", `reinvocationPolicy ${hook.reinvocationPolicy}`);
  expect(JSON.stringify(hook.admissionReviewVersions) === '["v1"]', "admissionReviewVersions");
  expect(hook.rules.length === 1, "one rule");
  const r = hook.rules[0];
  expect(JSON.stringify(r.operations) === '["CREATE"]', `operations ${r.operations}`);
  expect(JSON.stringify(r.resources) === '["pods"]', `resources ${r.resources}`);
  expect(JSON.stringify(r.apiGroups) === '[""]' && JSON.stringify(r.apiVersions) === '["v1"]', "group/version");
});
check("webhook-config-reaches-the-service", () => {
  const s = hook.clientConfig.service;
  expect(s.name === whSvc.metadata.name && s.namespace === whSvc.metadata.namespace, "service name");
  expect(s.path === "/mutate", `path ${s.path}`);
  const port = whSvc.spec.ports.find((p) => p.port === (s.port ?? 443));
  expect(port, `Service has no port ${s.port}`);
  const c = whDep.spec.template.spec.containers[0];
  expect(c.ports.some((p) => p.name === port.targetPort || p.containerPort === port.targetPort), "targetPort");
  for (const [k, v] of Object.entries(whSvc.spec.selector))
    expect(whDep.spec.template.metadata.labels[k] === v, `selector ${k}`);
  expect(!hook.clientConfig.url, "no url");
});
check("webhook-config-namespace-selector", () => {
  const e = hook.namespaceSelector.matchExpressions.find((x) => x.key === "kubernetes.io/metadata.name");
  expect(e && e.operator === "NotIn", "NotIn on kubernetes.io/metadata.name");
  for (const ns of ["kube-system", "gpupack-system", ...POLICY.excludedNamespaces])
    expect(e.values.includes(ns), `${ns} not excluded`);
  expect(whDep.metadata.namespace === "gpupack-system", "the webhook runs in an excluded namespace");
});
// Settings that must agree: the policy is the source; the webhook configuration's
// namespaceSelector and matchConditions mirror its excludedNamespaces and gpuResources (edit both).
function policyOf(objs) {
  const cm = find(objs, "ConfigMap", "gpupack-policy");
  return cm && JSON.parse(cm.data["policy.json"]);
}
function agreesWithPolicy(objs) {
  const m = find(objs, "MutatingWebhookConfiguration", "gpupack-webhook");
  const pol = policyOf(objs);
  const dep = find(objs, "Deployment", "gpupack-webhook");
  if (!m || !pol) return "no webhook configuration or policy rendered";
  const h = m.webhooks[0];
  const bad = [];
  // excludedNamespaces: each plain name is in the selector's NotIn list (globs cannot be said in
  // a label selector: the webhook applies those itself); the selector excludes nothing else but
  // the webhook's own namespace.
  const e = h.namespaceSelector.matchExpressions.find((x) => x.key === "kubernetes.io/metadata.name" && x.operator === "NotIn");
  const sel = new Set(e ? e.values : []);
  const plain = (pol.excludedNamespaces || []).filter((n) => !/[*?]/.test(n));
  for (const n of plain) if (!sel.has(n)) bad.push(`policy excludes ${n}, the namespaceSelector does not`);
  for (const n of sel) if (!plain.includes(n) && n !== dep.metadata.namespace)
    bad.push(`the namespaceSelector excludes ${n}, the policy's excludedNamespaces does not`);
  if (!sel.has(dep.metadata.namespace)) bad.push(`the webhook's own namespace ${dep.metadata.namespace} is not excluded`);
  // gpuResources: the match condition names exactly these (exact names with ==, a trailing *
  // with startsWith), and a pod asking for each one is sent.
  const want = pol.gpuResources || ["nvidia.com/gpu", "nvidia.com/mig-*"];
  const expr = h.matchConditions[0].expression;
  const named = new Set([...expr.matchAll(/k == '([^']*)'/g)].map((x) => x[1])
    .concat([...expr.matchAll(/k\.startsWith\('([^']*)'\)/g)].map((x) => x[1] + "*")));
  for (const r of want) if (!named.has(r)) bad.push(`gpuResources has ${r}, the match condition does not`);
  for (const r of named) if (!want.includes(r)) bad.push(`the match condition has ${r}, gpuResources does not`);
  for (const r of want) {
    const name = r.endsWith("*") ? r.slice(0, -1) + "1g.10gb" : r;
    for (const where of ["limits", "requests"])
      if (celRun(expr, { object: toCel(pod([ctr({ [where]: { [name]: "1" } })])) }) !== true)
        bad.push(`a pod with ${name} in ${where} is not sent`);
  }
  return bad.length ? bad.join("; ") : true;
}
check("webhook-config-object-selector-skip", () => {
  const e = hook.objectSelector.matchExpressions;
  expect(e.length === 1 && e[0].key === "gpupack.io/skip" && e[0].operator === "NotIn" &&
    JSON.stringify(e[0].values) === '["true"]', JSON.stringify(e));
  expect(whDep.spec.template.metadata.labels["gpupack.io/skip"] === "true", "own pods skipped");
});

// The match condition, evaluated as kube-apiserver does: `object` is the pod.
const toCel = (v) => Array.isArray(v) ? v.map(toCel)
  : v && typeof v === "object" ? new Map(Object.entries(v).map(([k, x]) => [k, toCel(x)]))
  : typeof v === "number" && Number.isInteger(v) ? BigInt(v) : v;
const pod = (containers, init) => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "ml" },
  spec: { containers, ...(init ? { initContainers: init } : {}) } });
const ctr = (resources) => ({ name: "c", image: "x", ...(resources === undefined ? {} : { resources }) });
check("webhook-match-condition-cel", () => {
  expect(hook.matchConditions.length === 1, "one match condition");
  const expr = hook.matchConditions[0].expression;
  const cases = [
    ["gpu limit", pod([ctr({ limits: { "nvidia.com/gpu": "1" } })]), true],
    ["gpu request only", pod([ctr({ requests: { "nvidia.com/gpu": "1" } })]), true],
    ["mig limit", pod([ctr({ limits: { "nvidia.com/mig-2g.20gb": "1" } })]), true],
    ["second container", pod([ctr({ limits: { cpu: "1" } }), ctr({ limits: { "nvidia.com/gpu": "2" } })]), true],
    ["init container", pod([ctr({})], [ctr({ limits: { "nvidia.com/gpu": "1" } })]), true],
    ["cpu only", pod([ctr({ limits: { cpu: "1", memory: "1Gi" } })]), false],
    ["no resources", pod([ctr(undefined)]), false],
    ["empty resources", pod([ctr({})]), false],
    ["other vendor", pod([ctr({ limits: { "amd.com/gpu": "1" } })]), false],
    ["lookalike", pod([ctr({ limits: { "nvidia.com/gpu-memory": "1" } })]), false],
  ];
  const dir = path.join(FIXTURES, "kube-v1.32-captured");
  for (const f of fs.readdirSync(dir).filter((f) => f.startsWith("admissionreview-pod-create"))) {
    const o = JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")).request.object;
    cases.push([f, o, f.includes("-gpu-")]);
  }
  const wrong = cases.filter(([, o, want]) => celRun(expr, { object: toCel(o) }) !== want);
  return wrong.length ? `wrong for: ${wrong.map((c) => c[0]).join(", ")}` : true;
});

check("webhook-config-agrees-with-policy", () => {
  const bad = [];
  for (const name of ["root", "base", "cert-manager", "self-signed", "custom-policy-example"]) {
    const why = agreesWithPolicy(renders[name] || []);
    if (why !== true) bad.push(`${name}: ${why}`);
  }
  return bad.length ? bad.join("; ") : true;
});
// The check itself: a policy and a webhook configuration that disagree are caught.
check("webhook-config-agreement-check-catches-drift", () => {
  const drift = (edit) => { const o = structuredClone(R); edit(o); return agreesWithPolicy(o) !== true; };
  const setPolicy = (o, f) => { const cm = find(o, "ConfigMap", "gpupack-policy"); const p = JSON.parse(cm.data["policy.json"]); f(p); cm.data["policy.json"] = JSON.stringify(p); };
  const sel = (o) => find(o, "MutatingWebhookConfiguration", "gpupack-webhook").webhooks[0].namespaceSelector.matchExpressions[0];
  const cases = {
    "policy excludes more": (o) => setPolicy(o, (p) => p.excludedNamespaces.push("monitoring")),
    "selector excludes more": (o) => sel(o).values.push("monitoring"),
    "policy has another GPU resource": (o) => setPolicy(o, (p) => p.gpuResources.push("amd.com/gpu")),
    "match condition lost MIG": (o) => { const h = find(o, "MutatingWebhookConfiguration", "gpupack-webhook").webhooks[0];
      h.matchConditions[0].expression = h.matchConditions[0].expression.replaceAll(" || k.startsWith('nvidia.com/mig-')", ""); },
  };
  const missed = Object.entries(cases).filter(([, f]) => !drift(f)).map(([n]) => n);
  return missed.length ? `not caught: ${missed.join(", ")}` : true;
});

// ---- workloads: security, probes, resources --------------------------------------------------
function podSpecs(objs) {
  return objs.filter((o) => ["Deployment", "Pod", "DaemonSet", "Job"].includes(o.kind))
    .map((o) => [o, o.kind === "Pod" ? o.spec : o.spec.template.spec]);
}
check("workloads-security-context", () => {
  const bad = [];
  for (const [o, s] of podSpecs(R)) {
    const sc = s.securityContext || {};
    if (sc.runAsNonRoot !== true) bad.push(`${o.metadata.name}: pod runAsNonRoot`);
    if (sc.seccompProfile?.type !== "RuntimeDefault") bad.push(`${o.metadata.name}: seccomp`);
    if (s.hostNetwork || s.hostPID || s.hostIPC) bad.push(`${o.metadata.name}: host namespaces`);
    for (const c of [...s.containers, ...(s.initContainers || [])]) {
      const cs = c.securityContext || {};
      if (cs.allowPrivilegeEscalation !== false) bad.push(`${c.name}: allowPrivilegeEscalation`);
      if (cs.readOnlyRootFilesystem !== true) bad.push(`${c.name}: readOnlyRootFilesystem`);
      if (cs.privileged === true) bad.push(`${c.name}: privileged`);
      if (JSON.stringify(cs.capabilities?.drop) !== '["ALL"]' || cs.capabilities?.add) bad.push(`${c.name}: capabilities`);
    }
  }
  return bad.length ? bad.join("; ") : true;
});
check("workloads-probes-and-resources", () => {
  const bad = [];
  for (const [o, s] of podSpecs(R)) for (const c of s.containers) {
    const rp = c.readinessProbe?.httpGet, lp = c.livenessProbe?.httpGet;
    if (!rp || !lp) bad.push(`${o.metadata.name}/${c.name}: readiness and liveness probes`);
    for (const k of ["cpu", "memory"]) {
      if (!c.resources?.requests?.[k]) bad.push(`${c.name}: requests.${k}`);
      if (!c.resources?.limits?.[k]) bad.push(`${c.name}: limits.${k}`);
    }
    if (!c.image.includes(":") || c.image.endsWith(":latest")) bad.push(`${c.name}: image ${c.image} not pinned`);
    if (c.image.includes("gpupack/gpupack") && !c.image.endsWith(`:${VERSION}`)) bad.push(`${c.name}: image tag is not VERSION ${VERSION}`);
  }
  return bad.length ? bad.join("; ") : true;
});
check("workloads-are-cluster-critical-within-quota", () => {
  const quota = all(R, "ResourceQuota").find((q) => q.metadata.namespace === "gpupack-system" &&
    q.spec.scopeSelector?.matchExpressions?.some((e) => e.scopeName === "PriorityClass" && e.operator === "In" &&
      e.values.includes("system-cluster-critical")));
  expect(quota, "no ResourceQuota admits system-cluster-critical pods in gpupack-system");
  let pods = 0;
  for (const d of [whDep, schedDep]) {
    expect(d.spec.template.spec.priorityClassName === "system-cluster-critical", `${d.metadata.name} priorityClassName`);
    pods += d.spec.replicas + (d.spec.strategy.rollingUpdate.maxSurge || 0);
  }
  expect(Number(quota.spec.hard.pods) >= pods, `quota ${quota.spec.hard.pods} < ${pods} pods during a rollout`);
});
check("namespace-enforces-restricted", () => {
  const ns = find(R, "Namespace", "gpupack-system");
  expect(ns.metadata.labels["pod-security.kubernetes.io/enforce"] === "restricted", "enforce label");
});
check("webhook-deployment-availability", () => {
  const s = whDep.spec.template.spec;
  expect(whDep.spec.replicas === 2, `replicas ${whDep.spec.replicas}`);
  const aa = s.affinity?.podAntiAffinity;
  const terms = [...(aa?.preferredDuringSchedulingIgnoredDuringExecution || []).map((t) => t.podAffinityTerm),
    ...(aa?.requiredDuringSchedulingIgnoredDuringExecution || [])];
  expect(terms.some((t) => t.topologyKey === "kubernetes.io/hostname" &&
    Object.entries(t.labelSelector.matchLabels).every(([k, v]) => s && whDep.spec.template.metadata.labels[k] === v)),
    "anti-affinity on hostname selecting its own pods");
  expect(whDep.spec.strategy.rollingUpdate.maxUnavailable === 0, "maxUnavailable 0");
  const pdb = find(R, "PodDisruptionBudget", "gpupack-webhook");
  expect(pdb && pdb.spec.minAvailable === 1, "PDB minAvailable 1");
  for (const [k, v] of Object.entries(pdb.spec.selector.matchLabels))
    expect(whDep.spec.template.metadata.labels[k] === v, `PDB selector ${k}`);
  const c = s.containers[0];
  expect(c.readinessProbe.httpGet.path === "/readyz" && c.readinessProbe.httpGet.scheme === "HTTPS", "readiness /readyz HTTPS");
  expect(c.livenessProbe.httpGet.path === "/healthz" && c.livenessProbe.httpGet.scheme === "HTTPS", "liveness /healthz HTTPS");
});
check("webhook-deployment-drains", () => {
  const s = whDep.spec.template.spec, c = s.containers[0];
  const pre = c.lifecycle?.preStop;
  const preS = pre?.sleep ? pre.sleep.seconds : pre?.exec?.command?.[0] === "/bin/sleep" ? Number(pre.exec.command[1]) : 0;
  expect(preS >= 3, `preStop delay ${preS}s`);
  const drain = Number((c.args.find((a) => a.startsWith("--drain-seconds=")) || "=0").split("=")[1]);
  expect(drain >= 3, `--drain-seconds ${drain}`);
  expect(s.terminationGracePeriodSeconds > preS + drain + 5, "grace period covers preStop + drain + in-flight");
});

// The Deployment's mounts feed the flags, and the Secret and ConfigMap exist under those names.
function mountedPath(s, c, file) {
  const m = c.volumeMounts.find((vm) => file.startsWith(vm.mountPath + "/"));
  return m && { mount: m, volume: s.volumes.find((v) => v.name === m.name) };
}
const argOf = (c, flag) => ((c.args || []).find((a) => a.startsWith(`--${flag}=`)) || "").slice(flag.length + 3) || null;
check("webhook-deployment-mounts", () => {
  const s = whDep.spec.template.spec, c = s.containers[0];
  const cert = mountedPath(s, c, argOf(c, "tls-cert")), key = mountedPath(s, c, argOf(c, "tls-key"));
  const pol = mountedPath(s, c, argOf(c, "policy"));
  expect(cert?.volume?.secret?.secretName === "gpupack-webhook-tls" && key?.volume === cert.volume, "tls from the Secret");
  expect(!cert.mount.subPath && !pol.mount.subPath, "no subPath (it would stop live reloads)");
  const cm = find(R, "ConfigMap", pol.volume.configMap.name);
  expect(cm && cm.data[path.basename(argOf(c, "policy"))] !== undefined, "policy ConfigMap key");
});
check("policy-configmap-is-the-embedded-file", () => {
  const cm = find(R, "ConfigMap", "gpupack-policy");
  const want = fs.readFileSync(POLICY_FILE, "utf8");
  return cm.data["policy.json"] === want ? true : "ConfigMap data differs from manifests/base/policy.json";
});

// ---- RBAC --------------------------------------------------------------------------------
function grantsFor(objs, sa) {
  const rules = [];
  for (const b of objs.filter((o) => o.kind === "ClusterRoleBinding" || o.kind === "RoleBinding")) {
    if (!b.subjects.some((s) => s.kind === "ServiceAccount" && s.name === sa)) continue;
    const role = find(objs, b.roleRef.kind, b.roleRef.name);
    rules.push({ binding: b, role, rules: role ? role.rules : null });
  }
  return rules;
}
const WRITE = ["create", "update", "patch", "delete", "deletecollection", "*", "escalate", "bind", "impersonate"];
check("rbac-webhook-least-privilege", () => {
  const g = grantsFor(R, "gpupack-webhook");
  const bad = [];
  const seen = new Set();
  for (const { binding, rules } of g) {
    if (!rules) { bad.push(`${binding.roleRef.name}: not ours`); continue; }
    for (const r of rules) {
      if (r.verbs.some((v) => WRITE.includes(v))) bad.push(`writes ${r.resources}`);
      if (r.resources.includes("*") || r.apiGroups.includes("*")) bad.push("wildcard");
      for (const res of r.resources) seen.add(`${binding.kind}:${res}:${r.verbs.join(",")}:${(r.resourceNames || []).join(",")}`);
    }
  }
  for (const want of ["ClusterRoleBinding:nodes:get,list,watch", "ClusterRoleBinding:priorityclasses:get,list,watch",
    "RoleBinding:configmaps:get,watch:gpupack-policy"])
    if (![...seen].some((s) => s.startsWith(want))) bad.push(`missing ${want}`);
  return bad.length ? bad.join("; ") : true;
});
check("rbac-extender-reads-nodes-and-pods", () => {
  const cr = find(R, "ClusterRole", "gpupack-extender");
  const r = cr.rules.find((x) => x.resources.includes("nodes") && x.resources.includes("pods"));
  expect(r && JSON.stringify(r.verbs) === '["get","list","watch"]', "get/list/watch nodes and pods");
  expect(grantsFor(R, "gpupack-scheduler").some((g) => g.binding.roleRef.name === "gpupack-extender"), "bound to the scheduler SA");
});

check("rbac-advisor-least-privilege", () => {
  const bad = [];
  const seen = [];
  for (const { binding, rules } of grantsFor(R, "gpupack-advisor")) {
    if (!rules) { bad.push(`${binding.roleRef.name}: not ours`); continue; }
    for (const r of rules) {
      if (r.resources.includes("*") || r.apiGroups.includes("*") || r.verbs.includes("*")) bad.push("wildcard");
      for (const res of r.resources) seen.push(`${binding.kind}:${r.apiGroups.join(",")}/${res}:${[...r.verbs].sort().join(",")}:${(r.resourceNames || []).join(",")}`);
      // Writes: only ConfigMaps, in gpupack's namespace (a RoleBinding), update only by name.
      const writes = r.verbs.filter((v) => WRITE.includes(v));
      if (!writes.length) continue;
      if (binding.kind !== "RoleBinding" || JSON.stringify(r.resources) !== '["configmaps"]') bad.push(`${binding.kind} writes ${r.resources}`);
      for (const v of writes) {
        if (v === "create") continue; // cannot be limited by name (docs/monitoring.md)
        if (v !== "update" || JSON.stringify(r.resourceNames) !== '["gpupack-recommendations"]') bad.push(`${v} on ${r.resources} ${r.resourceNames || "any name"}`);
      }
    }
  }
  const want = ["RoleBinding:/configmaps:get,update:gpupack-recommendations", "RoleBinding:/configmaps:create:",
    "ClusterRoleBinding:/pods:get,list:", "ClusterRoleBinding:/nodes:get,list:",
    "ClusterRoleBinding:apps/replicasets:get,list:", "ClusterRoleBinding:batch/jobs:get,list:"];
  for (const w of want) if (!seen.includes(w)) bad.push(`missing ${w}`);
  for (const s of seen) if (!want.includes(s)) bad.push(`more than needed: ${s}`);
  return bad.length ? bad.join("; ") : true;
});

// ---- the advisor ---------------------------------------------------------------------------
const advDep = find(R, "Deployment", "gpupack-advisor");
const advSvc = find(R, "Service", "gpupack-advisor");
const portOf = (addr) => Number(String(addr).split(":").pop());
check("advisor-deployment", () => {
  expect(advDep, "no Deployment gpupack-advisor");
  const s = advDep.spec.template.spec, c = s.containers[0];
  expect(advDep.spec.replicas === 1, `replicas ${advDep.spec.replicas}`);
  expect(s.serviceAccountName === "gpupack-advisor" && s.automountServiceAccountToken !== false, "its ServiceAccount and token");
  expect(c.args[0] === "serve", `args[0] ${c.args[0]}`);
  // docs/monitoring.md replaces args/1 to point the advisor at another Prometheus.
  expect(c.args[1].startsWith("--prometheus="), "args[1] is --prometheus (docs/monitoring.md patches it by index)");
  expect(argOf(c, "prometheus") === "http://kube-prometheus-stack-prometheus.monitoring.svc:9090", `--prometheus ${argOf(c, "prometheus")}`);
  const pol = mountedPath(s, c, argOf(c, "policy"));
  expect(pol?.volume?.configMap?.name === "gpupack-policy" && !pol.mount.subPath, "--policy from the policy ConfigMap, no subPath");
  // The ConfigMap it writes: its own namespace (kubelet expands $(POD_NAMESPACE)), the name the
  // webhook mounts and the Role names.
  const cm = argOf(c, "configmap");
  expect(cm === "$(POD_NAMESPACE)/gpupack-recommendations", `--configmap ${cm}`);
  expect(c.env?.some((e) => e.name === "POD_NAMESPACE" && e.valueFrom?.fieldRef?.fieldPath === "metadata.namespace"), "POD_NAMESPACE from the downward API");
  const port = c.ports.find((p) => p.name === "metrics");
  expect(port && port.containerPort === 8090 && portOf(argOf(c, "listen")) === 8090, "--listen on the metrics port 8090");
  expect(c.readinessProbe.httpGet.path === "/readyz" && c.livenessProbe.httpGet.path === "/healthz", "probes /readyz and /healthz");
  for (const pr of [c.readinessProbe, c.livenessProbe]) expect([port.name, port.containerPort].includes(pr.httpGet.port), "probe port");
  expect(advSvc && advSvc.spec.ports.length === 1 && advSvc.spec.ports[0].name === "metrics" && advSvc.spec.ports[0].port === 8090 &&
    advSvc.spec.ports[0].targetPort === "metrics", "Service port 8090 named metrics");
  for (const [k, v] of Object.entries(advSvc.spec.selector)) expect(advDep.spec.template.metadata.labels[k] === v, `Service selector ${k}`);
  expect(advSvc.spec.publishNotReadyAddresses === true, "an advisor that never reached Prometheus is still scraped");
  expect(!find(R, "ConfigMap", "gpupack-recommendations"), "no ConfigMap gpupack-recommendations is shipped (the advisor creates it)");
});
check("webhook-mounts-the-recommendations", () => {
  const s = whDep.spec.template.spec, c = s.containers[0];
  const f = argOf(c, "recommendations");
  expect(f === "/etc/gpupack/recommendations/recommendations.json", `--recommendations ${f}`);
  const m = mountedPath(s, c, f);
  expect(m?.volume?.configMap?.name === "gpupack-recommendations", "mounted from the ConfigMap gpupack-recommendations");
  expect(m.volume.configMap.optional === true, "optional: the webhook starts before the advisor's first write");
  expect(!m.mount.subPath && m.mount.readOnly === true, "a read-only directory mount (no subPath: live reloads)");
  const adv = advDep.spec.template.spec.containers[0];
  expect(argOf(adv, "configmap").endsWith(`/${m.volume.configMap.name}`), "the advisor writes the ConfigMap the webhook mounts");
  const role = find(R, "Role", "gpupack-advisor");
  expect(role.rules.some((r) => r.resourceNames?.includes(m.volume.configMap.name) && r.verbs.includes("update")), "the advisor may update it");
});

// ---- PriorityClasses -----------------------------------------------------------------------
check("priority-classes", () => {
  const pc = (n) => find(R, "PriorityClass", n);
  for (const c of Object.values(POLICY.classes)) {
    expect(pc(c.priorityClassName), `${c.priorityClassName} missing`);
    if (c.checkpointingPriorityClassName) {
      const low = pc(c.checkpointingPriorityClassName), own = pc(c.priorityClassName);
      expect(low, `${c.checkpointingPriorityClassName} missing`);
      expect(low && own && low.value < own.value, `${c.checkpointingPriorityClassName} below ${c.priorityClassName}`);
    }
  }
  const [i, t, tp, x] = ["gpu-inference", "gpu-training", "gpu-training-preemptible", "gpu-interactive"].map(pc);
  expect(i.value > t.value && t.value > tp.value && tp.value > x.value && x.value > 0,
         "ordered inference > training > training-preemptible > interactive");
  expect(i.value < 1000000000, "below the system classes");
  expect(x.preemptionPolicy === "Never", "interactive never preempts");
  expect(all(R, "PriorityClass").every((p) => !p.globalDefault), "none is the global default");
});

// ---- scheduler wiring ----------------------------------------------------------------------
const EXTENDER_FIELDS = new Set(["urlPrefix", "filterVerb", "preemptVerb", "prioritizeVerb", "weight",
  "bindVerb", "enableHTTPS", "tlsConfig", "httpTimeout", "nodeCacheCapable", "managedResources", "ignorable"]);
const durationS = (d) => { const m = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(d); return m ? Number(m[1]) * { ms: 0.001, s: 1, m: 60 }[m[2]] : NaN; };
// kubescheduler.config.k8s.io/v1 field names (kube-scheduler rejects unknown fields in strict
// decoding): the top level, leaderElection, clientConnection and a profile.
const KSC_FIELDS = new Set(["apiVersion", "kind", "parallelism", "leaderElection", "clientConnection",
  "healthzBindAddress", "metricsBindAddress", "enableProfiling", "enableContentionProfiling",
  "percentageOfNodesToScore", "podInitialBackoffSeconds", "podMaxBackoffSeconds", "profiles",
  "extenders", "delayCacheUntilActive"]);
const LE_FIELDS = new Set(["leaderElect", "leaseDuration", "renewDeadline", "retryPeriod", "resourceLock",
  "resourceName", "resourceNamespace"]);
const CC_FIELDS = new Set(["kubeconfig", "acceptContentTypes", "contentType", "qps", "burst"]);
const PROFILE_FIELDS = new Set(["schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig"]);
function strictKeys(obj, known, where) {
  for (const k of Object.keys(obj || {})) expect(known.has(k), `unknown field ${where}${k}`);
}
function checkSchedulerConfig(cfg) {
  expect(cfg.apiVersion === "kubescheduler.config.k8s.io/v1" && cfg.kind === "KubeSchedulerConfiguration", "apiVersion/kind");
  strictKeys(cfg, KSC_FIELDS, "");
  strictKeys(cfg.leaderElection, LE_FIELDS, "leaderElection.");
  strictKeys(cfg.clientConnection, CC_FIELDS, "clientConnection.");
  for (const p of cfg.profiles) strictKeys(p, PROFILE_FIELDS, "profiles[].");
  expect(cfg.extenders.length === 1, "one extender");
  const e = cfg.extenders[0];
  for (const k of Object.keys(e)) expect(EXTENDER_FIELDS.has(k), `unknown extender field ${k}`);
  expect(/^http:\/\/127\.0\.0\.1:\d+\//.test(e.urlPrefix), `urlPrefix ${e.urlPrefix} is not loopback`);
  // Prioritize only by default (docs/extender.md): the filter's rules are kube-scheduler's own
  // or stated by the webhook as node affinity.
  expect(e.filterVerb === undefined && e.prioritizeVerb === "prioritize", "verbs: prioritize only");
  expect(Number.isInteger(e.weight) && e.weight > 0, "weight");
  expect(e.nodeCacheCapable === true && e.ignorable === true, "nodeCacheCapable and ignorable");
  expect(durationS(e.httpTimeout) > 0 && durationS(e.httpTimeout) <= 5, `httpTimeout ${e.httpTimeout}`);
  const names = e.managedResources.map((r) => r.name);
  expect(new Set(names).size === names.length, "duplicate managedResources (kube-scheduler refuses)");
  expect(e.managedResources.every((r) => r.ignoredByScheduler === false), "ignoredByScheduler false");
  for (const want of ["nvidia.com/gpu", ...POLICY.migProfiles.map((p) => `nvidia.com/mig-${p.name}`)])
    expect(names.includes(want), `${want} not managed`);
  for (const p of cfg.profiles) expect(typeof p.schedulerName === "string", "profile name");
  return e;
}
let schedCfg, cpCfg;
check("scheduler-config-secondary", () => {
  const vol = schedDep.spec.template.spec.volumes.find((v) => v.name === "config");
  const cm = find(R, "ConfigMap", vol.configMap.name);
  expect(cm, `ConfigMap ${vol.configMap.name} not rendered`);
  schedCfg = YAML.parse(cm.data["config.yaml"]);
  checkSchedulerConfig(schedCfg);
  const ks = schedDep.spec.template.spec.containers.find((c) => c.name === "kube-scheduler");
  const m = ks.volumeMounts.find((v) => v.name === "config");
  expect(ks.command.includes(`--config=${m.mountPath}/config.yaml`), "kube-scheduler --config points at the mount");
  expect(schedCfg.profiles.some((p) => p.schedulerName === "gpupack-scheduler"), "profile gpupack-scheduler");
  expect(schedCfg.leaderElection.leaderElect === true && schedCfg.leaderElection.resourceName === "gpupack-scheduler", "own leader lease");
  const ext = schedDep.spec.template.spec.containers.find((c) => c.name === "extender");
  const u = new URL(schedCfg.extenders[0].urlPrefix);
  expect(argOf(ext, "listen") === `127.0.0.1:${u.port}`, "the sidecar listens where the scheduler calls");
  expect(ext.readinessProbe.httpGet.port === "http-metrics" || ext.readinessProbe.httpGet.port === 8889, "probes on the health port");
  expect(argOf(ext, "health-listen").endsWith(":8889"), "--health-listen on 8889");
});
check("scheduler-config-control-plane", () => {
  cpCfg = YAML.parse(fs.readFileSync(path.join(ROOT, "manifests/control-plane/kube-scheduler-config.yaml"), "utf8"));
  checkSchedulerConfig(cpCfg);
  expect(JSON.stringify(cpCfg.extenders) === JSON.stringify(schedCfg.extenders), "extenders differ from manifests/scheduler's");
  expect(cpCfg.profiles.some((p) => p.schedulerName === "default-scheduler"), "default profile");
  const sp = controlPlaneFiles["control-plane-static-pod"][0];
  const c = sp.spec.containers[0];
  expect(argOf(c, "listen") === `127.0.0.1:${new URL(cpCfg.extenders[0].urlPrefix).port}`, "static pod listens where kube-scheduler calls");
  expect(sp.spec.hostNetwork === true && c.readinessProbe.httpGet.host === "127.0.0.1", "host network, loopback probes");
});

// ---- cert-manager overlay ------------------------------------------------------------------
check("cert-manager-overlay", () => {
  const C = renders["cert-manager"];
  const m = find(C, "MutatingWebhookConfiguration", "gpupack-webhook");
  const ref = m.metadata.annotations?.["cert-manager.io/inject-ca-from"];
  expect(ref, "no cert-manager.io/inject-ca-from");
  const [ns, name] = ref.split("/");
  const cert = C.find((o) => o.kind === "Certificate" && o.metadata.namespace === ns && o.metadata.name === name);
  expect(cert, `Certificate ${ref} not rendered`);
  const dep = find(C, "Deployment", "gpupack-webhook");
  expect(dep.spec.template.spec.volumes.find((v) => v.name === "tls").secret.secretName === cert.spec.secretName, "Secret name");
  for (const d of ["gpupack-webhook", "gpupack-webhook.gpupack-system", "gpupack-webhook.gpupack-system.svc", "gpupack-webhook.gpupack-system.svc.cluster.local"])
    expect(cert.spec.dnsNames.includes(d), `SAN ${d}`);
  const issuer = C.find((o) => o.kind === "Issuer" && o.metadata.name === cert.spec.issuerRef.name);
  expect(issuer, "issuer rendered");
  expect(!find(C, "Secret", "gpupack-webhook-tls"), "cert-manager owns the Secret");
});

// ---- self-signed: the certificate, caBundle and rotation -----------------------------------
const caBundleOf = (objs) => Buffer.from(find(objs, "MutatingWebhookConfiguration", "gpupack-webhook").webhooks[0].clientConfig.caBundle, "base64").toString();
const pemCount = (s) => (s.match(/-----BEGIN CERTIFICATE-----/g) || []).length;
function verifies(caPem, certPem) {
  fs.writeFileSync(path.join(TMP, "bundle.pem"), caPem);
  fs.writeFileSync(path.join(TMP, "leaf.pem"), certPem);
  try {
    execFileSync("openssl", ["verify", "-CAfile", path.join(TMP, "bundle.pem"), path.join(TMP, "leaf.pem")], { stdio: "ignore" });
    return true;
  } catch { return false; }
}
check("self-signed-secret-and-cabundle", () => {
  const S = renders["self-signed-full"];
  const sec = find(S, "Secret", "gpupack-webhook-tls");
  expect(sec && sec.type === "kubernetes.io/tls" && sec.metadata.namespace === "gpupack-system", "Secret");
  const crt = Buffer.from(sec.data["tls.crt"], "base64").toString();
  const bundle = caBundleOf(S);
  expect(pemCount(bundle) === 1, "one CA");
  expect(bundle === fs.readFileSync(path.join(certDir, "ca.crt"), "utf8"), "caBundle is ca.crt");
  expect(verifies(bundle, crt), "tls.crt does not verify against caBundle");
  const out = execFileSync(path.join(BIN, "gpupack-certs"), ["--check", path.join(certDir, "tls.crt"), "--key", path.join(certDir, "tls.key")], { encoding: "utf8" });
  expect(out.includes("gpupack-webhook.gpupack-system.svc"), "SAN for the Service");
  expect((fs.statSync(path.join(certDir, "tls.key")).mode & 0o077) === 0, "key file is private");
  expect(!find(renders["self-signed"], "Secret", "gpupack-webhook-tls"), "the overlay alone holds no key");
});
check("self-signed-rotation", () => {
  const oldCrt = fs.readFileSync(path.join(certDir, "tls.crt"), "utf8");
  const mid = selfSigned("--rotate");
  const newCrt = Buffer.from(find(mid, "Secret", "gpupack-webhook-tls").data["tls.crt"], "base64").toString();
  expect(newCrt !== oldCrt, "--rotate made a new pair");
  const b = caBundleOf(mid);
  expect(pemCount(b) === 2 && verifies(b, oldCrt) && verifies(b, newCrt), "during rotation both pairs verify");
  const again = selfSigned();
  expect(pemCount(caBundleOf(again)) === 2, "a plain run keeps both CAs until --finish");
  let refused = false;
  try { selfSigned("--rotate"); } catch { refused = true; }
  expect(refused, "a second --rotate before --finish was not refused");
  expect(caBundleOf(selfSigned()) === b, "a refused --rotate changed the files");
  const done = selfSigned("--finish");
  const b2 = caBundleOf(done);
  expect(pemCount(b2) === 1 && verifies(b2, newCrt) && !verifies(b2, oldCrt), "after --finish only the new CA");
});

// ---- site overlays: the user's policy, audit mode -------------------------------------------
const DEFAULT_TEXT = fs.readFileSync(POLICY_FILE, "utf8");
const AUDIT_TEXT = DEFAULT_TEXT.replace('"mode": "enforce"', '"mode": "audit"');
const objKey = (o) => `${o.kind}/${o.metadata.namespace || ""}/${o.metadata.name}`;
// Objects of GOT that differ from WANT's (after normalize), and objects only one side has.
function objectDiff(got, want, normalize = (o) => o) {
  const n = (objs) => new Map(objs.map((o) => [objKey(o), JSON.stringify(normalize(structuredClone(o)))]));
  const g = n(got), w = n(want), bad = [];
  for (const [k, v] of g) if (!w.has(k)) bad.push(`extra ${k}`); else if (w.get(k) !== v) bad.push(`changed ${k}`);
  for (const k of w.keys()) if (!g.has(k)) bad.push(`missing ${k}`);
  return bad;
}
const withoutPolicyData = (o) => { if (o.kind === "ConfigMap" && o.metadata.name === "gpupack-policy") delete o.data; return o; };
// The webhook, run on a policy, answers a captured GPU pod: [response, stderr].
function reviewWith(policyText) {
  const f = path.join(TMP, `policy-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(f, policyText);
  const review = fs.readFileSync(path.join(FIXTURES, "kube-v1.32-captured/admissionreview-pod-create-gpu-training-generatename.json"));
  return JSON.parse(execFileSync(path.join(BIN, "gpupack-webhook"), ["--policy", f, "--review", "--log-level", "error"],
    { input: review, encoding: "utf8", stdio: ["pipe", "pipe", "ignore"] })).response;
}
// A site overlay the way docs/install.md has the user write it: a folder outside the gpupack
// tree whose kustomization names gpupack's overlay by a relative path.
function siteOverlay(name, lines, files = {}) {
  const dir = path.join(TMP, "sites", name);
  fs.mkdirSync(dir, { recursive: true });
  const rel = (p) => path.relative(dir, path.join(ROOT, p));
  fs.writeFileSync(path.join(dir, "kustomization.yaml"), lines(rel).join("\n") + "\n");
  for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, f), text);
  return dir;
}
const policyGenerator = ["configMapGenerator:", "  - name: gpupack-policy", "    namespace: gpupack-system",
  "    behavior: replace", "    files:", "      - policy.json", "    options:", "      disableNameSuffixHash: true"];
// The user's policy: the default with the secondary scheduler named and notebooks capped at 8 h.
const USER_POLICY = JSON.stringify({ ...POLICY, schedulerName: "gpupack-scheduler",
  classes: { ...POLICY.classes, interactive: { ...POLICY.classes.interactive, runtimeCapSeconds: 28800 } } }, null, 2) + "\n";

check("audit-overlay-policy-is-the-default-in-audit-mode", () => {
  const text = fs.readFileSync(path.join(ROOT, "manifests/overlays/audit/policy.json"), "utf8");
  expect(AUDIT_TEXT !== DEFAULT_TEXT, 'the default policy has no "mode": "enforce" line');
  expect(text === AUDIT_TEXT, "manifests/overlays/audit/policy.json is not manifests/base/policy.json with \"mode\": \"audit\": " +
    "sed 's/\"mode\": \"enforce\"/\"mode\": \"audit\"/' manifests/base/policy.json > manifests/overlays/audit/policy.json");
  const p = JSON.parse(text);
  expect(p.mode === "audit", `mode ${p.mode}`);
  delete p.mode;
  const d = structuredClone(POLICY); delete d.mode;
  expect(JSON.stringify(p) === JSON.stringify(d), "differs from the default beyond mode");
});
for (const cert of ["cert-manager", "self-signed"]) {
  check(`audit-overlay-with-${cert}`, () => {
    const dir = siteOverlay(`audit-${cert}`, (rel) => ["apiVersion: kustomize.config.k8s.io/v1beta1", "kind: Kustomization",
      "resources:", `  - ${rel(`manifests/overlays/${cert}`)}`, "components:", `  - ${rel("manifests/overlays/audit")}`]);
    const got = renderAbs(dir);
    const cm = find(got, "ConfigMap", "gpupack-policy");
    expect(cm.data["policy.json"] === AUDIT_TEXT, "the ConfigMap does not hold the audit-mode policy");
    const diff = objectDiff(got, renders[cert], withoutPolicyData);
    expect(diff.length === 0, `other objects differ from overlays/${cert}: ${diff.join(", ")}`);
    const r = reviewWith(cm.data["policy.json"]);
    expect(r.allowed === true && !r.patch, "audit mode patched the pod");
    expect(r.warnings?.length > 0 && r.warnings.every((w) => w.startsWith("gpupack (audit mode) would set")), `warnings ${JSON.stringify(r.warnings)}`);
    expect(r.auditAnnotations?.["would-mutate"], "no would-mutate audit annotation");
    const e = reviewWith(DEFAULT_TEXT);
    expect(e.patch, "the default policy (enforce) did not patch the same pod");
  });
}
check("custom-policy-example", () => {
  const E = renders["custom-policy-example"];
  const text = fs.readFileSync(path.join(ROOT, "manifests/overlays/custom-policy-example/policy.json"), "utf8");
  expect(text === AUDIT_TEXT, "the example's policy.json is not the default in audit mode (manifests/overlays/audit/policy.json)");
  expect(find(E, "ConfigMap", "gpupack-policy").data["policy.json"] === text, "the ConfigMap does not hold the example's policy.json");
  const img = (o) => { for (const [, s] of podSpecs([o])) for (const c of s.containers) c.image = c.image.replace(/^registry\.example\.com\/gpupack\/gpupack:/, "ghcr.io/gpupack/gpupack:"); return withoutPolicyData(o); };
  const diff = objectDiff(E, renders["cert-manager"], img);
  expect(diff.length === 0, `other objects differ from overlays/cert-manager: ${diff.join(", ")}`);
  expect(podSpecs(E).some(([, s]) => s.containers.some((c) => c.image === `registry.example.com/gpupack/gpupack:${VERSION}`)), "images: override");
});
check("custom-policy-site-overlay", () => {
  const dir = siteOverlay("mine", (rel) => ["apiVersion: kustomize.config.k8s.io/v1beta1", "kind: Kustomization",
    "resources:", `  - ${rel("manifests/overlays/cert-manager")}`, ...policyGenerator,
    "images:", "  - name: ghcr.io/gpupack/gpupack", "    newName: registry.example.com/gpupack", "    newTag: 0.1.0-site"],
    { "policy.json": USER_POLICY });
  const got = renderAbs(dir);
  const cm = find(got, "ConfigMap", "gpupack-policy");
  expect(cm.data["policy.json"] === USER_POLICY, "the ConfigMap does not carry the user's policy bytes");
  expect(cm.data["policy.json"] !== DEFAULT_TEXT, "the default policy came back");
  const want = find(renders["cert-manager"], "ConfigMap", "gpupack-policy");
  expect(JSON.stringify(cm.metadata) === JSON.stringify(want.metadata), "the ConfigMap's name, namespace or labels changed");
  const img = (o) => { for (const [, s] of podSpecs([o])) for (const c of s.containers) c.image = c.image.replace("registry.example.com/gpupack:0.1.0-site", `ghcr.io/gpupack/gpupack:${VERSION}`); return withoutPolicyData(o); };
  const diff = objectDiff(got, renders["cert-manager"], img);
  expect(diff.length === 0, `other objects differ from overlays/cert-manager: ${diff.join(", ")}`);
  // The webhook, the scheduler's extender and the advisor.
  expect(podSpecs(got).filter(([, s]) => s.containers.some((c) => c.image === "registry.example.com/gpupack:0.1.0-site")).length === 3, "images: override");
  // The daemons take the user's policy: the webhook routes the pod to the named scheduler.
  const r = reviewWith(cm.data["policy.json"]);
  const patch = JSON.parse(Buffer.from(r.patch, "base64").toString());
  expect(patch.some((op) => op.path === "/spec/schedulerName" && op.value === "gpupack-scheduler"), "the user's schedulerName is not applied");
});
check("custom-policy-site-overlay-self-signed", () => {
  const dir = siteOverlay("mine-self-signed", (rel) => ["apiVersion: kustomize.config.k8s.io/v1beta1", "kind: Kustomization",
    "resources:", `  - ${rel("manifests/overlays/self-signed")}`, ...policyGenerator], { "policy.json": USER_POLICY });
  const got = selfSignedIn(path.join(TMP, "site-certs"), {}, "--overlay", dir);
  expect(find(got, "ConfigMap", "gpupack-policy").data["policy.json"] === USER_POLICY, "the ConfigMap does not carry the user's policy bytes");
  expect(find(got, "Secret", "gpupack-webhook-tls"), "no Secret");
  expect(find(got, "MutatingWebhookConfiguration", "gpupack-webhook").webhooks[0].clientConfig.caBundle, "no caBundle");
  const plain = selfSignedIn(path.join(TMP, "site-certs"), {});
  const diff = objectDiff(got, plain, withoutPolicyData);
  expect(diff.length === 0, `other objects differ from the script's own output: ${diff.join(", ")}`);
});

check("self-signed-refuses-a-cert-manager-overlay", () => {
  let why = "";
  try { selfSignedIn(path.join(TMP, "site-certs"), {}, "--overlay", path.join(ROOT, "manifests/overlays/custom-policy-example")); }
  catch (e) { why = String(e.stderr); }
  return why.includes("renders cert-manager objects") ? true : `not refused (${why.slice(0, 200)})`;
});

// Refused before any certificate is touched: a refused --rotate starts no rotation (a later,
// right --rotate is not "already in progress"), and a refused first run makes no CA.
check("self-signed-refusal-leaves-the-certificates", () => {
  const certs = path.join(TMP, "site-certs"), fresh = path.join(TMP, "refused-certs");
  const cm = path.join(ROOT, "manifests/overlays/custom-policy-example");
  const before = fs.readFileSync(path.join(certs, "ca.crt"), "utf8");
  for (const [dir, args] of [[certs, ["--rotate"]], [fresh, []]]) {
    try { selfSignedIn(dir, {}, ...args, "--overlay", cm); } catch { /* refused, as above */ }
  }
  expect(!fs.existsSync(path.join(certs, "ca.crt.previous")), "a refused --rotate left ca.crt.previous");
  expect(fs.readFileSync(path.join(certs, "ca.crt"), "utf8") === before, "a refused --rotate replaced the CA");
  expect(!fs.existsSync(path.join(fresh, "ca.crt")), "a refused first run made a CA");
});

// ---- the prometheus-operator overlay ---------------------------------------------------------
// A site overlay as docs/monitoring.md has the user write it: a certificate overlay plus the
// monitoring overlay, side by side.
let monSite;
check("monitoring-overlay-with-cert-manager", () => {
  const dir = siteOverlay("monitoring", (rel) => ["apiVersion: kustomize.config.k8s.io/v1beta1", "kind: Kustomization",
    "resources:", `  - ${rel("manifests/overlays/cert-manager")}`, `  - ${rel("manifests/overlays/prometheus-operator")}`]);
  monSite = renderAbs(dir);
  const diff = objectDiff(monSite.filter((o) => !renders["prometheus-operator"].some((m) => objKey(m) === objKey(o))), renders["cert-manager"]);
  expect(diff.length === 0, `the certificate overlay's objects changed: ${diff.join(", ")}`);
  expect(monSite.length === renders["cert-manager"].length + renders["prometheus-operator"].length, "object count");
});
if (monSite) await validateAll("monitoring-overlay-with-cert-manager", monSite);
check("monitoring-overlay-with-self-signed", () => {
  const dir = siteOverlay("monitoring-self-signed", (rel) => ["apiVersion: kustomize.config.k8s.io/v1beta1", "kind: Kustomization",
    "resources:", `  - ${rel("manifests/overlays/self-signed")}`, `  - ${rel("manifests/overlays/prometheus-operator")}`]);
  const got = selfSignedIn(path.join(TMP, "site-certs"), {}, "--overlay", dir);
  const plain = selfSignedIn(path.join(TMP, "site-certs"), {});
  const diff = objectDiff(got, plain.concat(renders["prometheus-operator"]));
  expect(diff.length === 0, `differs from the script's output plus the monitoring objects: ${diff.join(", ")}`);
});
// The patches docs/monitoring.md shows (release label, a threshold, the advisor's Prometheus), all
// in one site overlay, do what it says.
check("monitoring-docs-patches", () => {
  const docs = fs.readFileSync(path.join(ROOT, "docs/monitoring.md"), "utf8");
  const patches = [...docs.matchAll(/^```yaml\n(.*?)^```/gms)].map((m) => YAML.parse(m[1])).filter((y) => y?.patches).flatMap((y) => y.patches);
  expect(patches.length === 3, `${patches.length} patches in docs/monitoring.md, want 3`);
  const dir = siteOverlay("monitoring-patched", (rel) => ["apiVersion: kustomize.config.k8s.io/v1beta1", "kind: Kustomization",
    "resources:", `  - ${rel("manifests/overlays/cert-manager")}`, `  - ${rel("manifests/overlays/prometheus-operator")}`,
    ...YAML.stringify({ patches }).trimEnd().split("\n")]);
  const got = renderAbs(dir);
  for (const o of [...all(got, "ServiceMonitor"), ...all(got, "PrometheusRule")])
    expect(o.metadata.labels.release === "my-prometheus", `${o.kind}/${o.metadata.name}: release ${o.metadata.labels.release}`);
  const idle = find(got, "PrometheusRule", "gpupack").spec.groups.flatMap((g) => g.rules).find((r) => r.alert === "GpupackIdleGpuSpendHigh");
  expect(/> 200$/.test(idle.expr.trim()), `idle spend threshold: ${idle.expr}`);
  const args = find(got, "Deployment", "gpupack-advisor").spec.template.spec.containers[0].args;
  expect(args[1] === "--prometheus=http://prometheus-operated.monitoring.svc:9090" && args.at(-1) === "--prometheus-header=X-Scope-OrgID: team-a" &&
    args.filter((a) => a.startsWith("--prometheus=")).length === 1, `advisor args ${JSON.stringify(args)}`);
});
await checkAsync("schema-validator-rejects-bad-monitoring-objects", async () => {
  const sm = structuredClone(find(renders["prometheus-operator"], "ServiceMonitor", "gpupack-webhook"));
  sm.spec.endpoints = "http-metrics";
  const pr = structuredClone(find(renders["prometheus-operator"], "PrometheusRule", "gpupack"));
  pr.spec.groups[0].rules[0].for = "five minutes";
  const threw = [];
  for (const o of [sm, pr]) { try { await validate(o); threw.push(false); } catch { threw.push(true); } }
  return threw.every(Boolean) ? true : `accepted: endpoints as a string ${!threw[0]}, for: "five minutes" ${!threw[1]}`;
});
check("monitoring-servicemonitors-reach-the-daemons", () => {
  const S = monSite || [];
  const bad = [];
  const jobs = {};
  for (const sm of all(S, "ServiceMonitor")) {
    const n = sm.metadata.name;
    if (sm.metadata.labels?.release !== "kube-prometheus-stack") bad.push(`${n}: no release label`);
    const svcs = all(S, "Service").filter((v) => v.metadata.namespace === sm.metadata.namespace &&
      Object.entries(sm.spec.selector.matchLabels).every(([k, x]) => v.metadata.labels?.[k] === x));
    if (svcs.length !== 1) { bad.push(`${n} selects ${svcs.length} Services`); continue; }
    const svc = svcs[0];
    jobs[n] = svc.metadata.labels[sm.spec.jobLabel];
    if (!jobs[n]) bad.push(`${n}: the Service has no ${sm.spec.jobLabel} label (the job name)`);
    const pods = podSpecs(S).filter(([o]) => o.kind === "Deployment" &&
      Object.entries(svc.spec.selector).every(([k, x]) => o.spec.template.metadata.labels[k] === x));
    if (pods.length !== 1) { bad.push(`${svc.metadata.name} selects ${pods.length} workloads`); continue; }
    for (const ep of sm.spec.endpoints) {
      const sp = svc.spec.ports.find((p) => p.name === ep.port);
      if (!sp) { bad.push(`${n}: the Service has no port ${ep.port}`); continue; }
      if (ep.scheme !== "http" || ep.path !== "/metrics") bad.push(`${n}: ${ep.scheme} ${ep.path}`);
      // The target port is a container port whose daemon listens there over plain HTTP.
      const cs = pods[0][1].containers.filter((c) => (c.ports || []).some((p) => p.name === sp.targetPort || p.containerPort === sp.targetPort));
      if (cs.length !== 1) { bad.push(`${n}: ${cs.length} containers have port ${sp.targetPort}`); continue; }
      const cp = cs[0].ports.find((p) => p.name === sp.targetPort || p.containerPort === sp.targetPort);
      const addr = argOf(cs[0], "health-listen") || argOf(cs[0], "listen");
      if (portOf(addr) !== cp.containerPort) bad.push(`${n}: ${cs[0].name} serves metrics on ${addr}, not ${cp.containerPort}`);
      if (addr.startsWith("127.")) bad.push(`${n}: ${cs[0].name} serves metrics on loopback`);
      if (pods[0][0].metadata.name === "gpupack-advisor" && ep.honorLabels !== true) bad.push(`${n}: honorLabels (the cost series' namespace label)`);
    }
  }
  const want = { "gpupack-webhook": "gpupack-webhook", "gpupack-extender": "gpupack-extender", "gpupack-advisor": "gpupack-advisor" };
  const sorted = (o) => JSON.stringify(Object.entries(o).sort());
  if (sorted(jobs) !== sorted(want)) bad.push(`jobs ${JSON.stringify(jobs)}, want ${JSON.stringify(want)}`);
  // The alerts and the dashboard select those jobs and no other.
  const rule = find(S, "PrometheusRule", "gpupack");
  const text = JSON.stringify(rule?.spec) + fs.readFileSync(path.join(ROOT, "manifests/overlays/prometheus-operator/dashboards/gpupack.json"), "utf8");
  const used = new Set([...text.matchAll(/job=\\?"([^"\\]+)\\?"/g)].map((m) => m[1]));
  for (const j of used) if (j !== "apiserver" && !Object.values(want).includes(j)) bad.push(`job ${j} is selected but not scraped`);
  if (rule?.metadata.labels?.release !== "kube-prometheus-stack") bad.push("PrometheusRule: no release label");
  return bad.length ? bad.join("; ") : true;
});
check("monitoring-dashboard-configmap", () => {
  const cm = find(renders["prometheus-operator"], "ConfigMap", "gpupack-grafana-dashboard");
  expect(cm?.metadata.labels?.grafana_dashboard === "1", 'label grafana_dashboard: "1"');
  expect(cm.data["gpupack.json"] === fs.readFileSync(path.join(ROOT, "manifests/overlays/prometheus-operator/dashboards/gpupack.json"), "utf8"), "holds dashboards/gpupack.json");
  JSON.parse(cm.data["gpupack.json"]);
});

// ---- self-signed in another namespace -------------------------------------------------------
const CLUSTER_SCOPED = new Set(["Namespace", "ClusterRole", "ClusterRoleBinding", "PriorityClass", "MutatingWebhookConfiguration"]);
// Every string under o holding "gpupack-system", by path.
function pathsWith(o, needle, at = "") {
  if (typeof o === "string") return o.includes(needle) ? [at] : [];
  if (o && typeof o === "object") return Object.entries(o).flatMap(([k, v]) => pathsWith(v, needle, `${at}/${k}`));
  return [];
}
let nsOther;
check("self-signed-namespace-other", () => {
  const dir = path.join(TMP, "certs-other");
  const S = nsOther = selfSignedIn(dir, { NAMESPACE: "other" });
  const bad = [];
  for (const o of S) {
    const want = CLUSTER_SCOPED.has(o.kind) ? undefined
      : o.kind === "RoleBinding" && o.metadata.name === "gpupack-scheduler-authentication-reader" ? "kube-system" : "other";
    if (o.metadata.namespace !== want) bad.push(`${o.kind}/${o.metadata.name} in ${o.metadata.namespace}`);
    for (const sub of o.subjects || []) if (sub.kind === "ServiceAccount" && sub.namespace !== "other") bad.push(`${o.kind}/${o.metadata.name} subject ${sub.name} in ${sub.namespace}`);
    // Nothing else names gpupack-system but the policy text (its excludedNamespaces, which still
    // excludes it) and the namespaceSelector (which keeps excluding it as the policy does).
    for (const p of pathsWith(o, "gpupack-system"))
      if (!(o.kind === "ConfigMap" && o.metadata.name === "gpupack-policy") &&
        !(o.kind === "MutatingWebhookConfiguration" && p.startsWith("/webhooks/0/namespaceSelector/")))
        bad.push(`${o.kind}/${o.metadata.name} ${p} names gpupack-system`);
  }
  expect(find(S, "Namespace", "other") && !find(S, "Namespace", "gpupack-system"), "Namespace object");
  const m = find(S, "MutatingWebhookConfiguration", "gpupack-webhook").webhooks[0];
  if (m.clientConfig.service.namespace !== "other") bad.push(`webhook Service reference in ${m.clientConfig.service.namespace}`);
  if (!m.namespaceSelector.matchExpressions[0].values.includes("other")) bad.push("the namespaceSelector does not exclude other");
  const cfgMap = S.find((o) => o.kind === "ConfigMap" && o.metadata.name.startsWith("gpupack-scheduler-config"));
  const le = YAML.parse(cfgMap.data["config.yaml"]).leaderElection;
  if (le.resourceNamespace !== "other") bad.push(`leader election Lease in ${le.resourceNamespace}`);
  const dep = find(S, "Deployment", "gpupack-scheduler");
  if (dep.spec.template.spec.volumes.find((v) => v.name === "config").configMap.name !== cfgMap.metadata.name) bad.push("scheduler config ConfigMap name");
  const out = execFileSync(path.join(BIN, "gpupack-certs"), ["--check", path.join(dir, "tls.crt")], { encoding: "utf8" });
  if (!out.includes("DNS:gpupack-webhook.other.svc")) bad.push("the certificate is not for gpupack-webhook.other.svc");
  // A certificate folder made for gpupack-system is not reused for another namespace.
  let refused = false;
  try { selfSignedIn(certDir, { NAMESPACE: "other" }); } catch (e) { refused = String(e.stderr).includes("--rotate"); }
  if (!refused) bad.push("reused a certificate made for gpupack-system");
  return bad.length ? bad.join("; ") : true;
});
if (nsOther) await validateAll("self-signed-namespace-other", nsOther);

// ---- the rendered command lines run on the real binaries -----------------------------------
async function waitHttp(url, args = [], seconds = 30) {
  for (let i = 0; i < seconds * 10; i++) {
    try { return execFileSync("curl", ["-s", "--max-time", "1", ...args, url], { encoding: "utf8" }); } catch { await sleep(100); }
  }
  return null;
}
// Runs a container's command with paths under /etc mapped to files made here and every listen
// address moved to a free loopback port; returns [process, {flag: port}].
function startContainer(c, map, ports) {
  const args = c.args.map((a) => {
    let out = a;
    for (const [from, to] of Object.entries(map)) out = out.replace(from, to);
    for (const [flag, port] of Object.entries(ports)) if (out.startsWith(`--${flag}=`)) out = `--${flag}=127.0.0.1:${port}`;
    return out;
  });
  const bin = path.join(BIN, path.basename(c.command[0]));
  const p = spawn(bin, args, { stdio: ["ignore", "ignore", fs.openSync(path.join(TMP, `${path.basename(bin)}.log`), "w")] });
  return p;
}
// A port the kernel says is free on loopback now.
const freePort = () => new Promise((resolve, reject) => {
  const srv = net.createServer();
  srv.on("error", reject);
  srv.listen(0, "127.0.0.1", () => { const { port } = srv.address(); srv.close(() => resolve(port)); });
});
await checkAsync("webhook-container-runs-as-rendered", async () => {
  const c = whDep.spec.template.spec.containers[0];
  const etc = path.join(TMP, "etc-webhook");
  fs.mkdirSync(path.join(etc, "policy"), { recursive: true });
  fs.writeFileSync(path.join(etc, "policy/policy.json"), find(R, "ConfigMap", "gpupack-policy").data["policy.json"]);
  execFileSync(path.join(BIN, "gpupack-certs"), ["--service", "gpupack-webhook", "--namespace", "gpupack-system",
    "--out", path.join(etc, "tls"), "--ip", "127.0.0.1"], { stdio: "ignore" });
  const port = await freePort(), hport = await freePort();
  const p = startContainer(c, { "/etc/gpupack": etc }, { listen: port, "health-listen": hport });
  try {
    const ready = await waitHttp(`https://127.0.0.1:${port}/readyz`, ["--cacert", path.join(etc, "tls/ca.crt")]);
    // Run outside a cluster, the webhook has no node view: ready, and the body says so.
    expect(ready === "ok\n" || ready.startsWith("ok; no node view"), `readyz: ${ready}: ${fs.readFileSync(path.join(TMP, "gpupack-webhook.log"), "utf8").slice(0, 300)}`);
    // Prometheus scrapes the plain-HTTP health port, where the policy in force is named.
    expect(c.ports.some((x) => x.name === "http-metrics" && x.containerPort === 8081), "an http-metrics port 8081");
    const metrics = await waitHttp(`http://127.0.0.1:${hport}/metrics`);
    expect(/^gpupack_policy_info\{digest="[0-9a-f]{64}"\} 1$/m.test(metrics), "metrics on --health-listen");
    const review = fs.readFileSync(path.join(FIXTURES, "kube-v1.32-captured/admissionreview-pod-create-gpu-training-generatename.json"));
    fs.writeFileSync(path.join(TMP, "review.json"), review);
    const r = JSON.parse(execFileSync("curl", ["-s", "--max-time", "5", "--cacert", path.join(etc, "tls/ca.crt"),
      "-H", "Content-Type: application/json", "--data-binary", `@${path.join(TMP, "review.json")}`,
      `https://127.0.0.1:${port}${hook.clientConfig.service.path}`], { encoding: "utf8" }));
    expect(r.response.allowed === true && r.response.patchType === "JSONPatch", "mutates the captured GPU pod");
  } finally { p.kill("SIGTERM"); }
});
await checkAsync("extender-sidecar-runs-as-rendered", async () => {
  const c = schedDep.spec.template.spec.containers.find((x) => x.name === "extender");
  const etc = path.join(TMP, "etc-extender");
  fs.mkdirSync(path.join(etc, "policy"), { recursive: true });
  fs.writeFileSync(path.join(etc, "policy/policy.json"), find(R, "ConfigMap", "gpupack-policy").data["policy.json"]);
  const port = await freePort(), hport = await freePort();
  const p = startContainer(c, { "/etc/gpupack": etc }, { listen: port, "health-listen": hport });
  try {
    expect(await waitHttp(`http://127.0.0.1:${hport}/healthz`) === "ok\n",
      `health port does not answer: ${fs.readFileSync(path.join(TMP, "gpupack-extender.log"), "utf8").slice(0, 300)}`);
    // kube-scheduler calls urlPrefix + "/" + verb.
    const e = schedCfg.extenders[0];
    const u = new URL(e.urlPrefix);
    const body = path.join(FIXTURES, "kube-v1.32-captured/extenderargs-fullnodes-prioritize-gpu.json");
    const out = execFileSync("curl", ["-s", "--max-time", "5", "-H", "Content-Type: application/json", "--data-binary", `@${body}`,
      `http://127.0.0.1:${port}${u.pathname}/${e.prioritizeVerb}`], { encoding: "utf8" });
    const list = JSON.parse(out);
    expect(Array.isArray(list) && list.length > 0 && list.every((h) => h.Score >= 0 && h.Score <= 10), `prioritize: ${out.slice(0, 200)}`);
    const st = execFileSync("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Content-Type: application/json",
      "--data-binary", `@${body}`, `http://127.0.0.1:${hport}${u.pathname}/filter`], { encoding: "utf8" });
    expect(st === "404", `the health port scores (${st})`);
  } finally { p.kill("SIGTERM"); }
});

// The advisor as rendered, against a Prometheus that is not there: it serves its routes on the
// metrics port, /readyz says why it is not ready, and /metrics reports Prometheus down. The
// ConfigMap is replaced by --recommendations-file (no cluster here); kubelet's $(VAR) expansion
// is done as kubelet would.
await checkAsync("advisor-container-runs-as-rendered", async () => {
  const c = advDep.spec.template.spec.containers[0];
  const etc = path.join(TMP, "etc-advisor");
  fs.mkdirSync(path.join(etc, "policy"), { recursive: true });
  fs.writeFileSync(path.join(etc, "policy/policy.json"), find(R, "ConfigMap", "gpupack-policy").data["policy.json"]);
  const env = { POD_NAMESPACE: advDep.metadata.namespace };
  const dead = await freePort(), port = await freePort();
  const rendered = { ...c, args: c.args.map((a) => a.replace(/\$\(([A-Z_]+)\)/g, (m, v) => env[v] ?? m)
    .replace(/^--prometheus=.*/, `--prometheus=http://127.0.0.1:${dead}`))
    .concat([`--recommendations-file=${path.join(TMP, "recommendations.json")}`]) };
  const p = startContainer(rendered, { "/etc/gpupack": etc }, { listen: port });
  try {
    const health = await waitHttp(`http://127.0.0.1:${port}/healthz`, ["-o", "/dev/null", "-w", "%{http_code}"], 10);
    const log = () => fs.readFileSync(path.join(TMP, "gpupack-advisor.log"), "utf8").slice(0, 300);
    expect(health === "200", `/healthz: ${health}: ${log()}`);
    const code = execFileSync("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", `http://127.0.0.1:${port}/readyz`], { encoding: "utf8" });
    expect(code === "503", `/readyz ${code} before any analysis succeeded`);
    let metrics = "";
    for (let i = 0; i < 100 && !/^gpupack_advisor_prometheus_up(\{[^}]*\})? 0$/m.test(metrics); i++) {
      metrics = (await waitHttp(`http://127.0.0.1:${port}/metrics`)) || ""; await sleep(100);
    }
    expect(/^gpupack_advisor_prometheus_up(\{[^}]*\})? 0$/m.test(metrics), `no gpupack_advisor_prometheus_up 0 in /metrics: ${log()}`);
  } finally { p.kill("SIGTERM"); }
});

process.exitCode = failures ? 1 : 0;
