/**
 * Migration: the unit records of an output tree written before the lock had a compiled section
 * (format 1 locks, or a cluster folder the lock does not describe). This is the only place that
 * reads generated files back, once per such folder: from then on the lock holds what each unit has.
 *
 * It reads the label and annotation lines of the generated files (the writer puts `labels:` at a
 * two-space indent and its keys at four) rather than parsing them: an older `dist/` of 500,000 files
 * is adopted in seconds. A file of several documents (a mirror's, src/emit/render-units.ts) is read
 * document by document. Adopted records carry no input digest, so the next run renders every unit
 * once, and their mirrors count for the removal guard and own their names from the first run on.
 */
import { BASE_UNIT, parseUnitName } from '../delivery/delivery-units.js';
import { HEADLESS_MIRROR_SVC_NAME_LABEL, REMOTE_CLUSTER_NAME_LABEL, REMOTE_SVC_FQ_NAME_ANNOTATION } from '../contract/linkerd.js';
import { MCS_SERVICE_NAME_LABEL, MCS_SOURCE_CLUSTER_LABEL } from '../contract/kubernetes.js';
import { compareStrings } from '../util/order.js';
import { clusterNameProblem, dns1123LabelProblem } from '../util/k8s-names.js';
import type { UnitRecord, UnitRecords } from './lock-document.js';
import { filesRecord, MIRROR_FILE } from './unit-inventory.js';
import { DOCUMENT_START } from '../emit/output-names.js';

/** A label value that names a cluster: a DNS label, possibly quoted. */
const CLUSTER_VALUE = /^"?([a-z0-9-]+)"?$/;
const PER_POD_LINE = `    ${HEADLESS_MIRROR_SVC_NAME_LABEL}:`;
const CLUSTER_NAME_LINE = `    ${REMOTE_CLUSTER_NAME_LABEL}: `;
const MCS_SOURCE_CLUSTER_LINE = `    ${MCS_SOURCE_CLUSTER_LABEL}: `;
const MCS_SLICE_FILE = /^endpointslice-(.+)-mcs-ipv[46](?:-\d+)?\.yaml$/;

/** The lines of `metadata.labels` of a generated file, read from its text without parsing it. */
function labelLines(text: string): string[] {
  const start = text.indexOf('\n  labels:\n');
  if (start < 0) return [];
  const lines: string[] = [];
  for (const line of text.slice(start + 11).split('\n')) {
    if (!line.startsWith('    ')) break;
    lines.push(line);
  }
  return lines;
}

/** The cluster named by the label line starting with `prefix` (`    <key>: `), or undefined. */
function clusterLabel(lines: readonly string[], prefix: string): string | undefined {
  const line = lines.find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : CLUSTER_VALUE.exec(line.slice(prefix.length))?.[1];
}

/**
 * The target an exported service's mirror came from: its `mirror.linkerd.io/cluster-name` label.
 * Undefined for other Services, and for per-pod mirrors (the guard counts exported services, each once).
 */
export function mirrorTargetOf(text: string): string | undefined {
  const lines = labelLines(text);
  return lines.some((l) => l.startsWith(PER_POD_LINE)) ? undefined : clusterLabel(lines, CLUSTER_NAME_LINE);
}

/** The value of the metadata line `    <key>: <value>` of a generated file, unquoted, or undefined. */
function metadataValue(text: string, key: string): string | undefined {
  const at = text.indexOf(`\n    ${key}: `);
  if (at < 0) return undefined;
  const start = at + key.length + 7;
  const end = text.indexOf('\n', start);
  const raw = text.slice(start, end < 0 ? undefined : end).trim();
  return raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2 ? raw.slice(1, -1) : raw;
}

/** `target/namespace/service` of a mirror Service file, or the bare target when its origin annotation is unreadable. */
function serviceOrigin(text: string, target: string): string {
  const fqName = metadataValue(text, REMOTE_SVC_FQ_NAME_ANNOTATION);
  const [service, namespace] = fqName?.split('.svc.')[0]?.split('.').slice(-2) ?? [];
  return service && namespace && !dns1123LabelProblem(service) && !dns1123LabelProblem(namespace) ? `${target}/${namespace}/${service}` : target;
}

const DOCUMENT_KIND = /(?:^|\n)kind: ([A-Za-z]+)\n/;
// One way to match each line (indented two spaces or more), so a document without a readable name fails in linear time.
const DOCUMENT_NAME = /\nmetadata:\n(?: {2}[^\n]*\n)*? {2}name: "?([a-z0-9.-]+)"?\n/;

/**
 * The documents of a generated file, each with the name its own file had before a mirror's objects
 * shared one (`<kind>-<name>.yaml`): the first is named by the file; a later one by its `kind` and
 * `metadata.name` lines (skipped when they cannot be read).
 */
function documentsOf(file: string, text: string): [string, string][] {
  const docs = text.split(DOCUMENT_START);
  const out: [string, string][] = [[file, docs[0]!]];
  for (const doc of docs.slice(1)) {
    const kind = DOCUMENT_KIND.exec(doc)?.[1];
    const name = DOCUMENT_NAME.exec(`\n${doc}`)?.[1];
    if (kind !== undefined && name !== undefined) out.push([`${kind.toLowerCase()}-${name}.yaml`, `\n${doc}`]);
  }
  return out;
}

/**
 * The unit records of `tree` (`<cluster>/<unit>/<namespace>/<file>` → text, or the older
 * `<cluster>/<namespace>/<file>` before delivery units, recorded under `base`).
 */
export function treeUnitRecords(tree: ReadonlyMap<string, string>): UnitRecords {
  const sizes = new Map<string, Map<string, [string, number][]>>();
  const inventories = new Map<string, Map<string, { mirrors: Record<string, string>; podMirrors: Record<string, string>; imports: Record<string, string> }>>();
  for (const [path, text] of tree) {
    const parts = path.split('/');
    const cluster = parts[0]!;
    if (parts.length < 2 || clusterNameProblem(cluster)) continue;
    const unitFolder = parts.length >= 3 && (parts[1] === BASE_UNIT || parseUnitName(parts[1]!) !== undefined);
    const unit = unitFolder ? parts[1]! : BASE_UNIT;
    // The cluster's own kustomization.yaml lists the units: it is rendered on every run, never recorded.
    if (parts.length === 2 && parts[1] === 'kustomization.yaml') continue;
    let byUnit = sizes.get(cluster);
    if (!byUnit) sizes.set(cluster, (byUnit = new Map()));
    if (unitFolder) {
      let list = byUnit.get(unit);
      if (!list) byUnit.set(unit, (list = []));
      list.push([parts.slice(2).join('/'), Buffer.byteLength(text)]);
    } else if (!byUnit.has(BASE_UNIT)) byUnit.set(BASE_UNIT, []);
    const file = parts[parts.length - 1]!;
    const namespace = parts[parts.length - 2]!;
    if (parts.length < 3 || dns1123LabelProblem(namespace) || (unitFolder && parts.length < 4)) continue;
    let inv = inventories.get(cluster)?.get(unit);
    const ensure = () => {
      if (inv) return inv;
      let m = inventories.get(cluster);
      if (!m) inventories.set(cluster, (m = new Map()));
      m.set(unit, (inv = { mirrors: {}, podMirrors: {}, imports: {} }));
      return inv;
    };
    for (const [docFile, doc] of documentsOf(file, text)) {
      const service = MIRROR_FILE.exec(docFile);
      if (service) {
        const lines = labelLines(doc);
        const target = clusterLabel(lines, CLUSTER_NAME_LINE);
        if (target === undefined) continue;
        const key = `${namespace}/${service[1]}`;
        if (lines.some((l) => l.startsWith(PER_POD_LINE))) ensure().podMirrors[key] = serviceOrigin(doc, target);
        else ensure().mirrors[key] = serviceOrigin(doc, target);
        continue;
      }
      const slice = MCS_SLICE_FILE.exec(docFile);
      if (!slice) continue;
      const cluster2 = clusterLabel(labelLines(doc), MCS_SOURCE_CLUSTER_LINE);
      const name = metadataValue(doc, MCS_SERVICE_NAME_LABEL);
      if (cluster2 === undefined) continue;
      ensure().imports[`${namespace}/${slice[1]}`] = name && !dns1123LabelProblem(name) ? `${cluster2}/${namespace}/${name}` : cluster2;
    }
  }
  const out: Record<string, Record<string, UnitRecord>> = {};
  for (const cluster of [...sizes.keys()].sort(compareStrings)) {
    const units: Record<string, UnitRecord> = {};
    for (const unit of [...sizes.get(cluster)!.keys()].sort(compareStrings)) {
      const inv = inventories.get(cluster)?.get(unit);
      units[unit] = {
        files: filesRecord(sizes.get(cluster)!.get(unit)!),
        ...(inv && Object.keys(inv.mirrors).length > 0 ? { mirrors: sortedRecord(inv.mirrors) } : {}),
        ...(inv && Object.keys(inv.podMirrors).length > 0 ? { podMirrors: sortedRecord(inv.podMirrors) } : {}),
        ...(inv && Object.keys(inv.imports).length > 0 ? { imports: sortedRecord(inv.imports) } : {}),
      };
    }
    out[cluster] = units;
  }
  return out;
}

function sortedRecord(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => compareStrings(a, b)));
}
