/**
 * Every warning and error mirrorc reports, defined once: a stable code, a severity, a short title
 * and one line of what to do. Code ranges: MRC1xxx input (command line, fleet definition, lock),
 * MRC2xxx observation, MRC3xxx compile, MRC4xxx safety guards, MRC5xxx output and delivery.
 * A code is never reused for another meaning; docs/diagnostics.md is generated from this table
 * (`npm run docs:diagnostics`, checked by test/unit/diagnostics.test.ts).
 */
import { typeCheckCommand } from './type-check-command.js';

/** How bad a finding is: an error stops the run (nothing written, unless its code says otherwise); a warning is reported and the run goes on. */
export type Severity = 'error' | 'warning';

/** One entry of the table. */
export interface DiagnosticDefinition {
  /** `MRC` and four digits; stable across releases. */
  readonly code: string;
  readonly severity: Severity;
  /** What happened, in a few words (the grouped human line and the docs use it). */
  readonly title: string;
  /** One line of what to do. */
  readonly hint: string;
}

/** The table: named constants (`Diag.CLUSTER_UNREACHABLE`), one per code. */
export const Diag = {
  // MRC1xxx: input. Nothing was contacted or written (exit 2).
  INVALID_INPUT: { code: 'MRC1001', severity: 'error', title: 'invalid command line or settings', hint: 'correct the option named in the message; mirrorc <command> --help lists the options' },
  FLEET_DEFINITION_INVALID: { code: 'MRC1002', severity: 'error', title: 'the fleet definition is invalid', hint: `fix the construct named in the message in the fleet file; ${typeCheckCommand()} shows type errors` },
  LOCK_FILE_INVALID: { code: 'MRC1003', severity: 'error', title: 'the lock file is missing, unreadable or invalid', hint: 'restore the lock from git (git checkout -- <lock>), or pass --new-fleet to start a fleet from scratch' },
  LOCK_FROM_LATER_MIRRORC: { code: 'MRC1004', severity: 'error', title: 'the lock file was written by a later mirrorc (a higher lock format)', hint: 'install the mirrorc that wrote it (npm ci installs the version package-lock.json names); never delete the lock to get past this: it holds the pinned service IPs (docs/upgrading.md)' },

  // MRC2xxx: observation. The cluster keeps its last known state from the lock (stale but safe).
  CLUSTER_KUBECONFIG: { code: 'MRC2001', severity: 'warning', title: 'cluster not observed: no usable kubeconfig; compiled from the lock', hint: 'pass --kubeconfig or fix the cluster\'s access (kubeconfig, context); on a machine without cluster access, use --offline' },
  CLUSTER_UNREACHABLE: { code: 'MRC2002', severity: 'warning', title: 'cluster not observed: API server unreachable; compiled from the lock', hint: 'check that the API server is up and reachable from where synth runs' },
  CLUSTER_UNAUTHORIZED: { code: 'MRC2003', severity: 'warning', title: 'cluster not observed: credentials rejected; compiled from the lock', hint: 'refresh the token or certificate of the kubeconfig' },
  CLUSTER_FORBIDDEN: { code: 'MRC2004', severity: 'warning', title: 'cluster not observed: read access denied; compiled from the lock', hint: 'apply the reader identity synth writes into dist/<cluster>/ (ClusterRole mirrorc-observer)' },
  CLUSTER_API_ERROR: { code: 'MRC2005', severity: 'warning', title: 'cluster not observed: the API server answered with an error; compiled from the lock', hint: 'retry, and check the API server\'s health' },
  CLUSTER_OVER_BUDGET: { code: 'MRC2006', severity: 'warning', title: 'cluster not observed: over its observation budget; compiled from the lock', hint: 'raise that field of the cluster\'s observationBudget if it really is this large or slow, else check its API server' },
  GATEWAY_PROBLEM: { code: 'MRC2101', severity: 'warning', title: 'the target\'s gateway could not be read', hint: 'check the gateway Service (address, "mc-gateway" port, identity annotation) or the gateway settings of the cluster' },
  GATEWAY_REJECTED: { code: 'MRC2102', severity: 'warning', title: 'the target\'s gateway was rejected; the last known one is kept', hint: 'fix the gateway Service or the gateway settings of the cluster in the fleet definition' },
  GATEWAY_CHANGED: { code: 'MRC2103', severity: 'warning', title: 'the target\'s gateway port or identity changed', hint: 'nothing, if the change is intended; plan shows the mirrors it changes' },
  GATEWAY_KEPT: { code: 'MRC2104', severity: 'warning', title: 'the last known gateway is kept for gateway-mode mirrors', hint: 'fix the target\'s gateway Service so that it is observed again' },
  OBJECT_INVALID: { code: 'MRC2105', severity: 'warning', title: 'an object the cluster returned is invalid and was skipped', hint: 'fix the object named in the message in that cluster; the rest of the fleet is updated' },
  SERVICE_EXPORT_PROBLEM: { code: 'MRC2106', severity: 'warning', title: 'a ServiceExport could not be used', hint: 'fix the ServiceExport named in the message' },
  TRUST_ROOTS_UNREAD: { code: 'MRC2107', severity: 'warning', title: 'the cluster\'s Linkerd trust roots could not be read', hint: 'check the trust-roots ConfigMap in the control-plane namespace (controlPlaneNamespace)' },

  // MRC3xxx: compile. With --strict, a skipped mirror is an error instead.
  TARGET_NEVER_OBSERVED: { code: 'MRC3001', severity: 'warning', title: 'target never observed; nothing from it is mirrored yet', hint: 'run synth with access to the target (not --offline)' },
  SELECTOR_NOT_OBSERVED: { code: 'MRC3002', severity: 'warning', title: 'the lock holds no observation for the link\'s selector', hint: 'run synth with cluster access to observe it (the link or what mirrorc observes changed)' },
  SERVICE_EXPORTS_NOT_OBSERVED: { code: 'MRC3003', severity: 'warning', title: 'the lock holds no observation of the target\'s ServiceExports', hint: 'run synth with cluster access to observe them' },
  EXPLICIT_EXPORT_MISSING: { code: 'MRC3004', severity: 'warning', title: 'an explicit export names a service that does not exist', hint: 'correct or remove the ExplicitExport, or create the service in the target' },
  NO_GATEWAY_ADDRESS: { code: 'MRC3005', severity: 'warning', title: 'no gateway address is known for the target; its gateway-mode mirrors are not compiled', hint: 'give the target\'s gateway Service a load-balancer address, or set gateway.addresses on the cluster' },
  HEADLESS_NOT_PER_POD: { code: 'MRC3006', severity: 'warning', title: 'a headless service is mirrored as one Service instead of per pod', hint: 'declare pinnedServiceIPRange on the source (a Linkerd gateway is needed for per-pod mirrors)' },
  SOURCE_NEVER_OBSERVED: { code: 'MRC3007', severity: 'warning', title: 'source never observed; namespace and collision checks skipped', hint: 'run synth with access to the source cluster' },
  SYSTEM_NAMESPACE_SKIPPED: { code: 'MRC3008', severity: 'warning', title: 'a service in a system namespace is not mirrored', hint: 'set mirrorSystemNamespaces: true on the link to mirror system namespaces' },
  NAMESPACE_MISSING: { code: 'MRC3009', severity: 'warning', title: 'the mirror\'s namespace does not exist in the source; not mirrored', hint: 'create the namespace, or set createMissingNamespaces on the link' },
  CREDENTIALS_UNDECLARED: { code: 'MRC3010', severity: 'warning', title: 'flat-mode or federated mirrors need a credentials Secret that the link does not declare', hint: "provide the Secret (plan and docs/diagnostics.md show its shape) and set remoteDiscoveryCredentials: { provided: 'external' } on the link; a link not meant to mirror in flat or federated mode sets remoteDiscoverySelector or federatedServiceSelector to null" },
  RENAME_NOT_APPLIED: { code: 'MRC3011', severity: 'warning', title: 'mirrorAs or namespaceMap does not apply in this mode', hint: 'remove the rename, or mirror the service in gateway mode' },
  NO_PORTS: { code: 'MRC3012', severity: 'warning', title: 'a service without ports cannot be mirrored; skipped', hint: 'give the service at least one port' },
  METADATA_NOT_DELIVERED: { code: 'MRC3013', severity: 'warning', title: 'a label or annotation cannot be copied to the mirror', hint: 'see the metadata policy (docs/safety/metadata-policy.md); exclude the key on the link to silence this' },
  NO_SHARED_TRUST_ROOT: { code: 'MRC3014', severity: 'warning', title: 'source and target share no Linkerd trust root; the link\'s mirrors are not compiled', hint: 'issue both clusters\' identity from a common trust anchor (during a rotation, put both roots in each bundle)' },
  TRUST_ROOT_EXPIRING: { code: 'MRC3015', severity: 'warning', title: 'a Linkerd trust root expires soon or has expired', hint: 'add its successor to the trust bundle of every linked cluster' },
  GLOBAL_MEMBER_LEFT_OUT: { code: 'MRC3016', severity: 'warning', title: 'a source\'s own pods cannot join a -global Service', hint: 'declare pinnedServiceIPRange on the source and give the service a pod selector' },
  GLOBAL_PORT_CONFLICT: { code: 'MRC3017', severity: 'warning', title: 'the members of a -global Service have different ports', hint: 'align the ports so clients see the same service everywhere' },
  GATEWAY_PORT_UNKNOWN: { code: 'MRC3018', severity: 'warning', title: 'a generic gateway has no port for the service; not mirrored', hint: 'add the service to the target\'s gateway.servicePorts' },
  FEDERATED_MEMBER_LEFT_OUT: { code: 'MRC3019', severity: 'warning', title: 'a service cannot join its federated Service', hint: 'give it a cluster IP and a port, create its namespace, or remove its federated label' },
  FEDERATED_CONFLICT: { code: 'MRC3020', severity: 'warning', title: 'the members of a federated Service conflict', hint: 'make the members agree (port names, numbers, protocols, Service type)' },
  FEDERATED_LOCAL_NOT_OBSERVED: { code: 'MRC3021', severity: 'warning', title: 'the lock holds no observation of the source\'s own federated members', hint: 'run synth with access to the source cluster' },
  SERVICE_IMPORT_SKIPPED: { code: 'MRC3022', severity: 'warning', title: 'an MCS ServiceImport, or one cluster\'s endpoints of it, is not written', hint: 'rename the services that clash, or make the exported services agree' },
  MIRROR_NAME_INVALID: { code: 'MRC3023', severity: 'warning', title: 'a mirror\'s name is too long, or taken by a Service mirrorc does not own; skipped', hint: 'shorten the service or cluster name, or exclude the service from the link' },
  MIRROR_NAME_CLASH: { code: 'MRC3024', severity: 'warning', title: 'two mirrors would get the same name; the current owner keeps it', hint: 'rename one of the services, or exclude one from its link' },
  PINNED_IP_UNAVAILABLE: { code: 'MRC3025', severity: 'warning', title: 'a per-pod mirror got no pinned ClusterIP; skipped', hint: 'free addresses in the source\'s pinned blocks, or add a block at the bottom of another ServiceCIDR (additionalPinnedServiceIPRanges, docs/modes/headless.md)' },
  LINKERD_MIRROR_NOT_ADOPTED: { code: 'MRC3027', severity: 'warning', title: 'a mirror\'s name is held by a Service Linkerd\'s service-mirror controller wrote; skipped', hint: 'to take Linkerd\'s mirrors over in place, set adoptLinkerdMirrors: true on the link of their target (docs/migrate-from-linkerd-controller.md)' },
  LINKERD_FORM_KEPT: { code: 'MRC3028', severity: 'warning', title: 'a link\'s mirrors stay in Linkerd\'s endpoint form (Kubernetes makes their EndpointSlices), although the link no longer adopts', hint: 'set adoptLinkerdMirrors: true on the link again; leaving the form would empty the mirrors in Linkerd\'s destination (docs/migrate-from-linkerd-controller.md)' },
  PINNED_RANGE_OUTSIDE_STATIC_BAND: { code: 'MRC3026', severity: 'warning', title: 'pinned ClusterIPs can lie outside the Service CIDR\'s static band, where the API server may give them to other Services', hint: 'declare pinnedServiceIPRange inside the static band (at most 256 addresses at the bottom of the Service CIDR, e.g. 10.96.0.0/24) and the cluster\'s serviceCidrs; for more pins, a block at the bottom of each further ServiceCIDR in additionalPinnedServiceIPRanges (docs/modes/headless.md)' },
  COMPILE_FAILED: { code: 'MRC3900', severity: 'error', title: 'compile found errors; nothing was written', hint: 'fix each problem listed (with --strict, per-mirror problems are errors too)' },

  // MRC4xxx: the safety guards.
  REMOVAL_NOT_CONFIRMED: { code: 'MRC4001', severity: 'error', title: 'the run would remove more mirrors than the removal guard allows; nothing was written', hint: 'check the selector, link or export change that causes it; if intended, run again with --confirm-removals' },
  TARGET_HELD_BACK: { code: 'MRC4002', severity: 'warning', title: 'a target\'s new observation would remove many mirrors; it is held back: its last state is kept and it is stale (staleSince, --strict, --max-stale)', hint: 'if the removal is intended, run synth with --confirm-removals' },
  SUSPECT_TARGET: { code: 'MRC4003', severity: 'warning', title: 'a target suddenly lists no exports; its last state is kept', hint: 'check the target; if it really stopped exporting, run synth with --confirm-removals' },
  STALE_LIMIT: { code: 'MRC4004', severity: 'error', title: 'a cluster has been stale for longer than the staleness limit (the output was written)', hint: 'restore access to the cluster, or raise --max-stale / the fleet\'s StalenessLimit' },
  STRICT_STALE: { code: 'MRC4005', severity: 'error', title: '--strict and a cluster could not be observed or a target was held back; nothing was written', hint: 'fix the observation problems listed (or confirm a held-back target\'s removal), or run without --strict' },

  // MRC5xxx: output, delivery and the run itself.
  CHECK_FAILED: { code: 'MRC5001', severity: 'error', title: 'the output or lock differs from what synth would write', hint: 'run synth and commit the result' },
  RUN_BUSY: { code: 'MRC5002', severity: 'error', title: 'another mirrorc run holds the output\'s run lock', hint: 'wait for it to finish, or raise --wait' },
  WRITE_FAILED: { code: 'MRC5003', severity: 'error', title: 'the output or the lock could not be written; the previous output is in place', hint: 'check disk space and permissions of the output folder' },
  DELIVERY_SETTING: { code: 'MRC5101', severity: 'warning', title: 'a GitOps delivery setting needs attention', hint: 'follow the advice in the message (docs on delivery)' },
  ARGOCD_APPLICATION_TOO_LARGE: { code: 'MRC5102', severity: 'warning', title: 'a unit family holds so many objects that its Argo CD Application nears etcd\'s size limit', hint: 'narrow the link of that target (namespaces, selector) or deliver the cluster with Flux (docs/argocd.md, "What scales, and why")' },
  INTERNAL: { code: 'MRC5900', severity: 'error', title: 'unexpected failure (a bug in mirrorc)', hint: 'report it with the output of the run' },
} as const satisfies Record<string, DiagnosticDefinition>;

/** A name of the table. */
export type DiagnosticName = keyof typeof Diag;

/** A code of the table (`MRC3009`). */
export type DiagnosticCode = (typeof Diag)[DiagnosticName]['code'];

/** Every definition, in code order. */
export function allDiagnostics(): DiagnosticDefinition[] {
  return Object.values(Diag).sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
}
