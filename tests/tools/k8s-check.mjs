// Checks Kubernetes objects with real clients of their APIs, offline:
//   node k8s-check.mjs NPM_TOOLS DOCS.json
// DOCS.json is an array of objects (the YAML gpufeed wrote, as JSON).  Each
// Pod, ResourceClaim, DaemonSet, Service and Namespace is validated against
// the Kubernetes API's schema (kubernetes-models, generated from the
// Kubernetes OpenAPI spec: types, required fields, enums, quantities), and
// each claim's CEL selectors are compiled and run (cel-js) against the
// devices in the object's "x-devices" member, which names the devices each
// request must match:
//   "x-devices": { "all": [ {attributes}, ... ], "match": { "gpu0": [i, ...] } }
// Prints one line per problem; exit 1 when there is one, 0 otherwise.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [dir, file] = process.argv.slice(2);
const load = (rel) => import(pathToFileURL(join(dir, "node_modules", rel)).href);
const models = {
  "v1/Pod": (await load("kubernetes-models/v1/Pod.js")).Pod,
  "resource.k8s.io/v1/ResourceClaim": (await load("kubernetes-models/resource.k8s.io/v1/ResourceClaim.js")).ResourceClaim,
  "apps/v1/DaemonSet": (await load("kubernetes-models/apps/v1/DaemonSet.js")).DaemonSet,
  "v1/Service": (await load("kubernetes-models/v1/Service.js")).Service,
  "v1/Namespace": (await load("kubernetes-models/v1/Namespace.js")).Namespace,
};
const { evaluate } = await load("@marcbachmann/cel-js/lib/index.js");
let problems = 0;
const problem = (msg) => { console.log(msg); problems++; };

for (const doc of JSON.parse(readFileSync(file, "utf8"))) {
  const devices = doc["x-devices"];
  delete doc["x-devices"];
  const what = `${doc.apiVersion}/${doc.kind} ${doc.metadata?.name}`;
  const Model = models[`${doc.apiVersion}/${doc.kind}`];
  if (!Model) { problem(`${what}: no schema here for it`); continue; }
  try { new Model(doc).validate(); } catch (e) { problem(`${what}: ${e.message}`); }
  if (doc.kind !== "ResourceClaim" || !devices) continue;
  for (const req of doc.spec.devices.requests) {
    const matched = [];
    devices.all.forEach((device, i) => {
      const all = req.exactly.selectors.every((s) => {
        try { return evaluate(s.cel.expression, { device }) === true; }
        catch (e) { problem(`${what}: request ${req.name}: CEL: ${e.message}`); return false; }
      });
      if (all) matched.push(i);
    });
    const want = devices.match[req.name] ?? [];
    if (JSON.stringify(matched) !== JSON.stringify(want))
      problem(`${what}: request ${req.name} matches devices [${matched}], not [${want}]`);
  }
}
process.exit(problems ? 1 : 0);
