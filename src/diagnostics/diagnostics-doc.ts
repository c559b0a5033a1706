/**
 * docs/diagnostics.md, generated from the table in diagnostic-codes.ts (`npm run docs:diagnostics`;
 * test/unit/diagnostics.test.ts fails when the committed page is not what this renders).
 */
import { allDiagnostics } from './diagnostic-codes.js';
import { GROUP_DIFFERENT_FROM, GROUP_FROM } from './group-diagnostics.js';

/** Escapes a table cell. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/</g, '&lt;');
}

/** The page's Markdown. */
export function diagnosticsMarkdown(): string {
  const rows = allDiagnostics().map((d) => `| <a id="${d.code.toLowerCase()}"></a>\`${d.code}\` | ${d.severity} | ${cell(d.title)} | ${cell(d.hint)} |`);
  return [
    '<!-- Generated from src/diagnostics/diagnostic-codes.ts by `npm run docs:diagnostics`; do not edit by hand. -->',
    '# Diagnostics: every warning and error, by code',
    '',
    'Every warning and error mirrorc reports has a stable code (`MRC` and four digits), a severity,',
    'the cluster (and, where it concerns one, the namespace and service) and one line of what to do.',
    'A code keeps its meaning across releases; a new finding gets a new code.',
    '',
    '- **On the terminal** each finding is one line ending in its code, `warning: <message> [MRC3009]`.',
    `  Findings of one code saying the same about ${GROUP_FROM} or more clusters are one line naming how many and which,`,
    '  e.g. `9 clusters (ap, east, ...): kubeconfig ~/.kube/config does not exist; ... [MRC2001]`;',
    `  a code found ${GROUP_DIFFERENT_FROM} times or more with different words is one line of its title, hint and subjects.`,
    '  `--verbose` prints every message of a group.',
    '- **In the JSON report** (`--report <file>`) `diagnostics` lists every finding as data, for CI to',
    '  filter on (`jq \'.diagnostics[] | select(.code == "MRC4002")\'`): clusters that could not be observed,',
    '  the warnings, and the errors that ended the run. `warnings` keeps each warning\'s message as text.',
    '',
    '```json',
    '{ "code": "MRC3009", "severity": "warning", "cluster": "london", "target": "paris", "namespace": "shop", "service": "api",',
    '  "message": "london: namespace \\"shop\\" does not exist, so paris/shop/api is not mirrored; ...",',
    '  "hint": "create the namespace, or set createMissingNamespaces on the link" }',
    '```',
    '',
    '`cluster` is the cluster the finding concerns: the source whose output it changes, or the cluster',
    'that was observed; `target` the cluster the service lives in; fields that do not apply are left out.',
    'Severity `error` means the run stopped and wrote nothing (`MRC4004` excepted: the output was written,',
    'the exit code is 9). With `--strict` a skipped mirror (`MRC3018`, `MRC3022`, `MRC3023`, `MRC3024`,',
    '`MRC3025`, `MRC3014`) is an error of the same code.',
    '',
    'Ranges: `MRC1xxx` input (exit 2), `MRC2xxx` observation (the cluster keeps its last known state from',
    'the lock), `MRC3xxx` compile, `MRC4xxx` the safety guards, `MRC5xxx` output, delivery and the run.',
    '',
    '| code | severity | what happened | what to do |',
    '|---|---|---|---|',
    ...rows,
    '',
    '## The credentials Secret (MRC3010)',
    '',
    'Flat-mode (remote-discovery) mirrors and federated Services with members in other clusters are',
    "resolved by the source's Linkerd destination controller through the target's API, so the source",
    'needs a Secret mirrorc never writes (it holds credentials): in namespace `linkerd`, named',
    '`cluster-credentials-<target>` (or the link\'s `remoteDiscoveryCredentials.secretName`), of type',
    '`mirror.linkerd.io/remote-kubeconfig`, labelled `multicluster.linkerd.io/cluster-name: <target>`,',
    'annotated `multicluster.linkerd.io/cluster-domain` and `multicluster.linkerd.io/trust-domain` with the',
    "target's values, its data key `kubeconfig` a kubeconfig for the target's API (e.g. from",
    '`linkerd multicluster link-gen`). `mirrorc plan` prints each required Secret in full. Provide it by',
    "other means (External Secrets, Sealed Secrets, SOPS) and say so on the link with",
    "`remoteDiscoveryCredentials: { provided: 'external' }`; the warning is then gone.",
    '',
    '## Pinned ClusterIPs outside the static band (MRC3026)',
    '',
    "kube-apiserver keeps only the lowest min(max(16, size/16), 256) addresses of a Service CIDR (its",
    '*static band*, e.g. `10.96.0.1`-`10.96.1.0` of `10.96.0.0/16`) for ClusterIPs chosen by the client;',
    'a Service without a chosen ClusterIP may get any other address. A per-pod mirror pinned above the',
    'band is refused at apply ("provided IP is already allocated") once another Service got its address',
    "first. The warning names the source and how many of its pinned ClusterIPs lie outside the band. With",
    "the cluster's `serviceCidrs` declared, the range is checked against the exact band of the Service",
    'CIDR that holds it (and must lie in one of them); without, only what holds for any Service CIDR: a',
    'range with more than 256 addresses to pin reaches beyond every band. It stays a warning, also with',
    '`--strict`: no mirror is skipped, and the collision is a risk at apply time, not a certainty.',
    'Declare `pinnedServiceIPRange` inside the band (e.g. `10.96.0.0/24` of `10.96.0.0/16`); a source that',
    'needs more pins than one band holds adds a ServiceCIDR of at least 4,096 addresses (each has a band',
    'of its own) and a block at its bottom in `additionalPinnedServiceIPRanges` (checked the same way); see',
    '[headless mode](modes/headless.md#headless-services-and-statefulsets-per-pod-mirrors) for moving an',
    'existing range.',
    '',
  ].join('\n');
}
