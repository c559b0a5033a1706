/**
 * The mirrors of one source cluster as git holds them: their names and origins from the lock's unit
 * records (the same records the removal guard counts), and their data-plane fields from the files
 * of `dist/<source>/` that GitOps applies. A managed Service in `dist/` that no unit record names
 * (a `-global` Service) is a mirror too, with no origin.
 */
import YAML from 'yaml';
import { MANAGED_LABEL, MANAGED_VALUE } from '../contract/mirrorc.js';
import { SERVICE_NAME_LABEL } from '../contract/kubernetes.js';
import type { FileTree } from '../emit/render-files.js';
import type { UnitRecords } from '../state/lock-document.js';
import { dataPlaneFields, type DataPlaneFields, type EndpointSliceLike, type EndpointsLike, type ServiceLike } from './data-plane-fields.js';

/** A mirror as committed. */
export interface CommittedMirror {
  /** `target/namespace/service`, or null when no unit record names it. */
  readonly origin: string | null;
  /** Its fields in `dist/`, or null when the lock names it but no file of `dist/` holds its Service. */
  readonly fields: DataPlaneFields | null;
}

interface Doc {
  readonly kind?: string;
  readonly metadata?: { readonly name?: string; readonly namespace?: string; readonly labels?: Record<string, string> };
}

/** The managed documents of `dist/<source>/`, by kind and `namespace/name` (slices by the Service they serve). */
function committedObjects(tree: FileTree, source: string): { services: Map<string, ServiceLike>; slices: Map<string, EndpointSliceLike[]>; endpoints: Map<string, EndpointsLike> } {
  const services = new Map<string, ServiceLike>();
  const slices = new Map<string, EndpointSliceLike[]>();
  const endpoints = new Map<string, EndpointsLike>();
  for (const [path, text] of tree) {
    if (!path.startsWith(`${source}/`) || !path.endsWith('.yaml')) continue;
    for (const document of YAML.parseAllDocuments(text)) {
      const doc = document.toJS() as Doc | null;
      const labels = doc?.metadata?.labels ?? {};
      if (doc === null || labels[MANAGED_LABEL] !== MANAGED_VALUE) continue;
      const ns = doc.metadata?.namespace ?? '';
      if (doc.kind === 'Service') services.set(`${ns}/${doc.metadata?.name ?? ''}`, doc as ServiceLike);
      else if (doc.kind === 'Endpoints') endpoints.set(`${ns}/${doc.metadata?.name ?? ''}`, doc as EndpointsLike);
      else if (doc.kind === 'EndpointSlice' && labels[SERVICE_NAME_LABEL] !== undefined) {
        const key = `${ns}/${labels[SERVICE_NAME_LABEL]}`;
        slices.set(key, [...(slices.get(key) ?? []), doc as EndpointSliceLike]);
      }
    }
  }
  return { services, slices, endpoints };
}

/** The committed mirrors of `source`, by `namespace/name`. */
export function committedMirrors(tree: FileTree, units: UnitRecords, source: string): Map<string, CommittedMirror> {
  const origins = new Map<string, string>();
  for (const record of Object.values(units[source] ?? {})) {
    for (const [name, origin] of [...Object.entries(record.mirrors ?? {}), ...Object.entries(record.podMirrors ?? {})]) origins.set(name, origin);
  }
  const { services, slices, endpoints } = committedObjects(tree, source);
  const out = new Map<string, CommittedMirror>();
  for (const name of new Set([...origins.keys(), ...services.keys()])) {
    const service = services.get(name);
    out.set(name, {
      origin: origins.get(name) ?? null,
      fields: service ? dataPlaneFields(service, slices.get(name) ?? [], endpoints.get(name)) : null,
    });
  }
  return out;
}
