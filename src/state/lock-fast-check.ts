/**
 * The lock checked in one pass, without zod: at fleet size the lock is tens of MiB (190,000
 * mirrors and 10,000 observed Services with their labels at 20×500), and the schema's per-key and
 * per-field refinements cost most of reading it. The pass accepts only what the schema accepts (the
 * same name predicates and patterns, imported from where the schema gets them; the same field
 * sets; plain JSON objects only); whatever it does not accept — a bad record, or merely something
 * it does not know — is left to the schema, so a refused lock is refused with the schema's own
 * messages.
 *
 * Each function mirrors one schema of src/state/lock-document.ts or src/observe/lock-schema.ts:
 * a strict object is a known set of fields (required ones present, optional ones absent or valid),
 * a record a plain object whose keys and values pass, an array an array whose elements pass.
 */
import {
  annotationKeySyntaxProblem,
  clusterNameProblem,
  COPIED_METADATA_LIMIT_BYTES,
  copiedMetadataSizeProblem,
  ipLiteralProblem,
  labelKeySyntaxProblem,
  labelValueSyntaxProblem,
  namespaceNameProblem,
  portNameProblem,
  portNumberProblem,
  protocolProblem,
  serviceNameProblem,
  targetPortProblem,
} from '../util/k8s-names.js';
import {
  appProtocolProblem,
  certificateSubjectProblem,
  fingerprintProblem,
  gatewayIdentityProblem,
  hostnameProblem,
  linkerdClusterProblem,
  namespacedNameProblem,
  serviceTypeProblem,
  timestampProblem,
} from '../observe/lock-schema.js';
import { DIAGNOSTIC_CODE_PATTERN, isLockDocumentFormat, namespacedKey, ORIGIN_PATTERN, PARTS_PATTERN, SHA256_PATTERN, unitNameProblem } from './lock-document.js';

/** The fields of `unitRecordSchema` (src/state/lock-document.ts). */
export const UNIT_RECORD_FIELDS: ReadonlySet<string> = new Set(['inputs', 'files', 'content', 'parts', 'mirrors', 'podMirrors', 'imports']);
const INVENTORIES = ['mirrors', 'podMirrors', 'imports'] as const;

/** Whether `value` is an object JSON.parse made (not null, not an array, plain prototype). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

/** A name predicate with the names it accepted remembered (mirror names repeat in every source). */
function accepting(problem: (name: string) => string | undefined): (name: string) => boolean {
  const ok = new Set<string>();
  return (name) => {
    if (ok.has(name)) return true;
    if (problem(name) !== undefined) return false;
    ok.add(name);
    return true;
  };
}

/**
 * Whether `units` (the lock's `compiled.units`) certainly matches its schema. False means "ask the
 * schema": the record may still be valid (the schema decides, and names any problem).
 */
export function unitRecordsAccepted(units: unknown): boolean {
  if (!isPlainObject(units)) return false;
  const clusterOk = accepting(clusterNameProblem);
  const unitOk = accepting(unitNameProblem);
  const keyOk = accepting(namespacedKey);
  const originOk = accepting((o) => (ORIGIN_PATTERN.test(o) ? undefined : 'no'));
  for (const cluster of Object.keys(units)) {
    const byUnit = units[cluster];
    if (!clusterOk(cluster) || !isPlainObject(byUnit)) return false;
    for (const unit of Object.keys(byUnit)) {
      const record = byUnit[unit];
      if (!unitOk(unit) || !isPlainObject(record)) return false;
      for (const field of Object.keys(record)) if (!UNIT_RECORD_FIELDS.has(field)) return false;
      if (record.inputs !== undefined && !(typeof record.inputs === 'string' && SHA256_PATTERN.test(record.inputs))) return false;
      if (record.content !== undefined && !(typeof record.content === 'string' && SHA256_PATTERN.test(record.content))) return false;
      if (record.parts !== undefined && !(typeof record.parts === 'string' && PARTS_PATTERN.test(record.parts))) return false;
      if (!filesAccepted(record.files)) return false;
      for (const field of INVENTORIES) {
        const inventory = record[field];
        if (inventory === undefined) continue;
        if (!isPlainObject(inventory)) return false;
        for (const key of Object.keys(inventory)) {
          const value = inventory[key];
          if (!keyOk(key) || typeof value !== 'string' || !originOk(value)) return false;
        }
      }
    }
  }
  return true;
}

function filesAccepted(files: unknown): boolean {
  if (!isPlainObject(files)) return false;
  const keys = Object.keys(files);
  if (keys.length !== 3) return false;
  const { count, bytes, digest } = files;
  return count0(count) && count0(bytes) && typeof digest === 'string' && SHA256_PATTERN.test(digest);
}

/** A non-negative safe integer (what z.number().int().nonnegative() accepts), -0 left to the schema. */
function count0(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && !Object.is(value, -0);
}

/**
 * Whether `pinned` (the lock's `compiled.pinnedServiceIPs`, absent or cluster → `namespace/name` →
 * IP literal) certainly matches its schema. False means "ask the schema".
 */
export function pinnedIPsAccepted(pinned: unknown): boolean {
  if (pinned === undefined) return true;
  if (!isPlainObject(pinned)) return false;
  const clusterOk = accepting(clusterNameProblem);
  const keyOk = accepting(namespacedKey);
  for (const cluster of Object.keys(pinned)) {
    const byService = pinned[cluster];
    if (!clusterOk(cluster) || !isPlainObject(byService)) return false;
    for (const key of Object.keys(byService)) {
      const ip = byService[key];
      if (!keyOk(key) || typeof ip !== 'string' || ipLiteralProblem(ip) !== undefined) return false;
    }
  }
  return true;
}

/** Any value, checked by a predicate, with the strings it accepted remembered (names and label values repeat across the fleet). */
type Accepts = (value: unknown) => boolean;

/** `problem` as a predicate; a string it accepted once is accepted again without asking. */
function remembering(problem: (value: unknown) => string | undefined): Accepts {
  const ok = new Set<string>();
  return (value) => {
    if (typeof value === 'string' && ok.has(value)) return true;
    if (problem(value) !== undefined) return false;
    if (typeof value === 'string') ok.add(value);
    return true;
  };
}

/** Whether every own key of `object` is one of `fields` (a strict object's field set). */
function onlyFields(object: Record<string, unknown>, fields: ReadonlySet<string>): boolean {
  for (const key of Object.keys(object)) if (!fields.has(key)) return false;
  return true;
}

/** Whether `value` is an array whose every element `element` accepts. */
function arrayOf(value: unknown, element: Accepts): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (!element(value[i])) return false;
  return true;
}

/** Whether `value` is a plain record whose every key `key` accepts and every value `element` accepts. */
function recordOf(value: unknown, key: (key: string) => boolean, element: Accepts): boolean {
  if (!isPlainObject(value)) return false;
  for (const k of Object.keys(value)) if (!key(k) || !element(value[k])) return false;
  return true;
}

const isString = (value: unknown): boolean => typeof value === 'string';
const isBoolean = (value: unknown): boolean => typeof value === 'boolean';

/** The fields of `sourceRecordSchema`, `sourceWarningSchema` and `sourceFamiliesSchema` (src/state/lock-document.ts). */
export const SOURCE_RECORD_FIELDS: ReadonlySet<string> = new Set(['inputs', 'owners', 'established', 'warnings', 'families']);
export const SOURCE_WARNING_FIELDS: ReadonlySet<string> = new Set(['code', 'severity', 'cluster', 'target', 'namespace', 'service', 'message', 'hint']);
export const SOURCE_FAMILIES_FIELDS: ReadonlySet<string> = new Set(['base', 'targets', 'linkWarnings', 'contributions', 'sharedMembers', 'namespaces']);
const OPTIONAL_WARNING_TEXTS = ['cluster', 'target', 'namespace', 'service'] as const;

/** A string matching the SHA-256 pattern. */
const isSha256 = (value: unknown): boolean => typeof value === 'string' && SHA256_PATTERN.test(value);

/**
 * Whether `sources` (the lock's `compiled.sources`: absent, or source cluster → its record)
 * certainly matches its schema. False means "ask the schema".
 */
export function sourceRecordsAccepted(sources: unknown): boolean {
  if (sources === undefined) return true;
  const clusterOk = accepting(clusterNameProblem);
  const keyOk = accepting(namespacedKey);
  const originOk = accepting((o) => (ORIGIN_PATTERN.test(o) ? undefined : 'no'));
  const ownerOk = (value: unknown): boolean => typeof value === 'string' && (value === '' || originOk(value));
  const warningOk = (value: unknown): boolean => {
    if (!isPlainObject(value) || !onlyFields(value, SOURCE_WARNING_FIELDS)) return false;
    if (!(typeof value.code === 'string' && DIAGNOSTIC_CODE_PATTERN.test(value.code)) || value.severity !== 'warning') return false;
    for (const field of OPTIONAL_WARNING_TEXTS) if (value[field] !== undefined && typeof value[field] !== 'string') return false;
    return typeof value.message === 'string' && typeof value.hint === 'string';
  };
  const familiesOk = (value: unknown): boolean =>
    isPlainObject(value) && onlyFields(value, SOURCE_FAMILIES_FIELDS) && isSha256(value.base) && recordOf(value.targets, clusterOk, isSha256) && arrayOf(value.linkWarnings, count0) &&
    (value.contributions === undefined || recordOf(value.contributions, clusterOk, isSha256)) && (value.sharedMembers === undefined || isSha256(value.sharedMembers)) && (value.namespaces === undefined || arrayOf(value.namespaces, (v) => namespaceNameProblem(v) === undefined));
  return recordOf(sources, clusterOk, (record) => {
    if (!isPlainObject(record) || !onlyFields(record, SOURCE_RECORD_FIELDS) || !isSha256(record.inputs)) return false;
    if (record.owners !== undefined && !recordOf(record.owners, keyOk, ownerOk)) return false;
    if (record.established !== undefined && !recordOf(record.established, (k) => originOk(k), isBoolean)) return false;
    if (record.warnings !== undefined && !arrayOf(record.warnings, warningOk)) return false;
    return record.families === undefined || familiesOk(record.families);
  });
}

/** The fields of the observed section's strict objects (src/observe/lock-schema.ts, src/state/lock-document.ts). */
export const OBSERVED_SECTION_FIELDS: ReadonlySet<string> = new Set(['targets', 'sources', 'staleSince']);
export const STALE_SINCE_FIELDS: ReadonlySet<string> = new Set(['targets', 'sources']);
export const TARGET_FIELDS: ReadonlySet<string> = new Set(['selectors', 'services', 'missingExplicitExports', 'serviceExportsListed', 'gateway', 'gatewayProbe', 'trustRoots']);
export const SOURCE_FIELDS: ReadonlySet<string> = new Set(['namespaces', 'foreignServices', 'foreignServiceImports', 'pinnedRangeServices', 'globalMembers', 'federatedSelector', 'federatedMembers', 'managedNamespaces', 'kubernetesSlicedTargets', 'trustRoots']);
export const SERVICE_FIELDS: ReadonlySet<string> = new Set(['namespace', 'name', 'labels', 'annotations', 'type', 'headless', 'ports', 'explicit', 'serviceExport', 'hostnames', 'endpointPorts', 'selector', 'hasReadyEndpoints', 'notReadyHostnames']);
export const PORT_FIELDS: ReadonlySet<string> = new Set(['name', 'protocol', 'port', 'targetPort']);
export const ENDPOINT_PORT_FIELDS: ReadonlySet<string> = new Set(['name', 'protocol', 'port', 'appProtocol']);
export const GATEWAY_FIELDS: ReadonlySet<string> = new Set(['addresses', 'port', 'identity']);
export const GATEWAY_PROBE_FIELDS: ReadonlySet<string> = new Set(['alive']);
export const TRUST_ROOT_FIELDS: ReadonlySet<string> = new Set(['fingerprint', 'subject', 'notAfter']);
export const FOREIGN_SERVICE_FIELDS: ReadonlySet<string> = new Set(['namespace', 'name', 'linkerdCluster', 'clusterIP', 'linkerdFederated']);
export const PINNED_RANGE_SERVICE_FIELDS: ReadonlySet<string> = new Set(['namespace', 'name', 'ip', 'managed']);

/**
 * UTF-8 takes at most 3 bytes per UTF-16 code unit (a surrogate pair is 4 bytes for 2 units), so
 * labels and annotations of at most this many code units certainly fit; more are counted in bytes
 * by the schema's own rule.
 */
const COPIED_METADATA_LIMIT_UNITS = Math.floor(COPIED_METADATA_LIMIT_BYTES / 3);

/** The predicates of one pass over the observed section, each remembering the strings it accepted. */
function observedChecks() {
  const clusterOk = remembering(clusterNameProblem);
  const namespaceOk = remembering(namespaceNameProblem);
  const serviceNameOk = remembering(serviceNameProblem);
  const hostnameOk = remembering(hostnameProblem);
  const portNameOk = remembering(portNameProblem);
  const protocolOk = remembering(protocolProblem);
  const targetPortOk = remembering(targetPortProblem);
  const appProtocolOk = remembering(appProtocolProblem);
  const serviceTypeOk = remembering(serviceTypeProblem);
  const ipOk = remembering(ipLiteralProblem);
  const timestampOk = remembering(timestampProblem);
  const namespacedNameOk = remembering(namespacedNameProblem);
  const labelKeyOk = remembering(labelKeySyntaxProblem);
  const labelValueOk = remembering(labelValueSyntaxProblem);
  const annotationKeyOk = remembering(annotationKeySyntaxProblem);
  const portOk = (value: unknown): boolean => portNumberProblem(value) === undefined;

  const servicePortOk = (value: unknown): boolean =>
    isPlainObject(value) && onlyFields(value, PORT_FIELDS) && portNameOk(value.name) && protocolOk(value.protocol) && portOk(value.port) && (value.targetPort === undefined || targetPortOk(value.targetPort));
  const endpointPortOk = (value: unknown): boolean =>
    isPlainObject(value) && onlyFields(value, ENDPOINT_PORT_FIELDS) && portNameOk(value.name) && protocolOk(value.protocol) && portOk(value.port) && (value.appProtocol === undefined || appProtocolOk(value.appProtocol));
  /** Code units of a record's keys and string values, or -1 when it is not a record the schema certainly accepts. */
  const labelUnits = (value: unknown): number => {
    if (!isPlainObject(value)) return -1;
    let units = 0;
    for (const key of Object.keys(value)) {
      const v = value[key];
      if (!labelKeyOk(key) || !labelValueOk(v)) return -1;
      units += key.length + (v as string).length;
    }
    return units;
  };
  const annotationUnits = (value: unknown): number => {
    if (!isPlainObject(value)) return -1;
    let units = 0;
    for (const key of Object.keys(value)) {
      const v = value[key];
      if (!annotationKeyOk(key) || typeof v !== 'string') return -1;
      units += key.length + v.length;
    }
    return units;
  };
  const serviceOk = (value: unknown): boolean => {
    if (!isPlainObject(value) || !onlyFields(value, SERVICE_FIELDS)) return false;
    if (!namespaceOk(value.namespace) || !serviceNameOk(value.name) || !serviceTypeOk(value.type) || typeof value.headless !== 'boolean' || !arrayOf(value.ports, servicePortOk)) return false;
    if (value.explicit !== undefined && value.explicit !== true) return false;
    if (value.serviceExport !== undefined && value.serviceExport !== true) return false;
    if (value.hostnames !== undefined && !arrayOf(value.hostnames, hostnameOk)) return false;
    if (value.endpointPorts !== undefined && !arrayOf(value.endpointPorts, endpointPortOk)) return false;
    if (value.selector !== undefined && labelUnits(value.selector) < 0) return false;
    if (value.hasReadyEndpoints !== undefined && typeof value.hasReadyEndpoints !== 'boolean') return false;
    if (value.notReadyHostnames !== undefined && !arrayOf(value.notReadyHostnames, hostnameOk)) return false;
    const labels = labelUnits(value.labels);
    const annotations = annotationUnits(value.annotations);
    if (labels < 0 || annotations < 0) return false;
    // The schema's refinement on the whole Service, by its own rule when the cheap bound does not settle it.
    return labels + annotations <= COPIED_METADATA_LIMIT_UNITS || copiedMetadataSizeProblem(value.labels as Record<string, unknown>, value.annotations as Record<string, unknown>) === undefined;
  };
  const trustRootOk = (value: unknown): boolean =>
    isPlainObject(value) && onlyFields(value, TRUST_ROOT_FIELDS) && fingerprintProblem(value.fingerprint) === undefined && certificateSubjectProblem(value.subject) === undefined && timestampOk(value.notAfter);
  const gatewayOk = (value: unknown): boolean =>
    isPlainObject(value) && onlyFields(value, GATEWAY_FIELDS) && arrayOf(value.addresses, ipOk) && portOk(value.port) && (value.identity === undefined || gatewayIdentityProblem(value.identity) === undefined);
  const gatewayProbeOk = (value: unknown): boolean => isPlainObject(value) && onlyFields(value, GATEWAY_PROBE_FIELDS) && typeof value.alive === 'boolean';
  const foreignServiceOk = (value: unknown): boolean =>
    isPlainObject(value) &&
    onlyFields(value, FOREIGN_SERVICE_FIELDS) &&
    namespaceOk(value.namespace) &&
    serviceNameOk(value.name) &&
    (value.linkerdCluster === undefined || linkerdClusterProblem(value.linkerdCluster) === undefined) &&
    (value.clusterIP === undefined || ipOk(value.clusterIP)) &&
    (value.linkerdFederated === undefined || value.linkerdFederated === true);
  const pinnedRangeServiceOk = (value: unknown): boolean =>
    isPlainObject(value) && onlyFields(value, PINNED_RANGE_SERVICE_FIELDS) && namespaceOk(value.namespace) && serviceNameOk(value.name) && ipOk(value.ip) && typeof value.managed === 'boolean';

  const targetOk = (value: unknown): boolean => {
    if (!isPlainObject(value) || !onlyFields(value, TARGET_FIELDS)) return false;
    if (!arrayOf(value.selectors, isString) || !arrayOf(value.services, serviceOk) || !arrayOf(value.missingExplicitExports, namespacedNameOk)) return false;
    if (value.serviceExportsListed !== undefined && value.serviceExportsListed !== true) return false;
    if (value.gateway !== undefined && !gatewayOk(value.gateway)) return false;
    if (value.gatewayProbe !== undefined && !gatewayProbeOk(value.gatewayProbe)) return false;
    return value.trustRoots === undefined || arrayOf(value.trustRoots, trustRootOk);
  };
  const sourceOk = (value: unknown): boolean => {
    if (!isPlainObject(value) || !onlyFields(value, SOURCE_FIELDS)) return false;
    if (!arrayOf(value.namespaces, namespaceOk) || !arrayOf(value.foreignServices, foreignServiceOk)) return false;
    if (value.foreignServiceImports !== undefined && !arrayOf(value.foreignServiceImports, foreignServiceOk)) return false;
    if (value.pinnedRangeServices !== undefined && !arrayOf(value.pinnedRangeServices, pinnedRangeServiceOk)) return false;
    if (value.globalMembers !== undefined && !arrayOf(value.globalMembers, serviceOk)) return false;
    if (value.federatedSelector !== undefined && typeof value.federatedSelector !== 'string') return false;
    if (value.federatedMembers !== undefined && !arrayOf(value.federatedMembers, serviceOk)) return false;
    if (value.managedNamespaces !== undefined && !arrayOf(value.managedNamespaces, namespaceOk)) return false;
    if (value.kubernetesSlicedTargets !== undefined && !arrayOf(value.kubernetesSlicedTargets, (v) => clusterNameProblem(v) === undefined)) return false;
    return value.trustRoots === undefined || arrayOf(value.trustRoots, trustRootOk);
  };
  const staleSinceOk = (value: unknown): boolean =>
    isPlainObject(value) &&
    onlyFields(value, STALE_SINCE_FIELDS) &&
    (value.targets === undefined || recordOf(value.targets, clusterOk, timestampOk)) &&
    (value.sources === undefined || recordOf(value.sources, clusterOk, timestampOk));
  return { clusterOk, targetOk, sourceOk, staleSinceOk };
}

/**
 * Whether `observed` (the lock's `observed` section: every target's and source's observation)
 * certainly matches its schema. False means "ask the schema".
 */
export function observedSectionAccepted(observed: unknown): boolean {
  if (!isPlainObject(observed) || !onlyFields(observed, OBSERVED_SECTION_FIELDS)) return false;
  const { clusterOk, targetOk, sourceOk, staleSinceOk } = observedChecks();
  return recordOf(observed.targets, clusterOk, targetOk) && recordOf(observed.sources, clusterOk, sourceOk) && (observed.staleSince === undefined || staleSinceOk(observed.staleSince));
}

/** The fields of the lock document and of its compiled section (src/state/lock-document.ts). */
export const LOCK_DOCUMENT_FIELDS: ReadonlySet<string> = new Set(['format', 'observed', 'compiled']);
export const COMPILED_SECTION_FIELDS: ReadonlySet<string> = new Set(['units', 'pinnedServiceIPs', 'sources']);

/**
 * Whether `lockDocumentSchema` certainly accepts `document` (a lock of format 5, 4, 3 or 2 as JSON.parse
 * made it): every section checked in one pass. False means "let the whole schema decide": a refused
 * lock is refused with the schema's own messages.
 */
export function lockDocumentAccepted(document: unknown): boolean {
  if (!isPlainObject(document) || !onlyFields(document, LOCK_DOCUMENT_FIELDS)) return false;
  if (!isLockDocumentFormat(document.format)) return false;
  const compiled = document.compiled;
  if (!isPlainObject(compiled) || !onlyFields(compiled, COMPILED_SECTION_FIELDS)) return false;
  return unitRecordsAccepted(compiled.units) && pinnedIPsAccepted(compiled.pinnedServiceIPs) && sourceRecordsAccepted(compiled.sources) && observedSectionAccepted(document.observed);
}
