/**
 * The argocd-cm change, judged by Argo CD's own settings code (util/settings of argo-cd v3.6.1,
 * test/harness/argocd-resource-filter/) reading argocd-cm from a real kube-apiserver as Argo CD's
 * controllers do: the stock argocd-cm hides our Endpoints and EndpointSlices, each generated patch
 * shows them (the second only those labelled mirrorc.io/managed=true), and every other stock
 * exclusion stays. A running Argo CD cannot be built here (README, "Delivery with Argo CD").
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import YAML from 'yaml';
import { MANAGED_LABEL, MANAGED_VALUE } from '../../src/contract/mirrorc.js';
import { argoCdConfigMapData } from '../../src/delivery/argocd-cm-change.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { argoCdResourceVerdicts, ArgoCdResourceFilterUnavailableError, ensureArgoCdResourceFilter, type ResourceVerdict } from '../harness/argocd-resource-filter.js';
import { kubeFleetForTests, kubeFleetSkipReason, type KubeFleet } from '../harness/kube-fleet.js';

const STOCK_ARGOCD_CM = 'src/delivery/argocd-cm.stock.yaml';
const IN_CLUSTER = 'https://kubernetes.default.svc';
/** Every kind dist/<cluster>/ holds. */
const OUR_KINDS = ['/Service', '/Endpoints', 'discovery.k8s.io/EndpointSlice', '/Namespace', '/ServiceAccount', 'rbac.authorization.k8s.io/ClusterRole', 'rbac.authorization.k8s.io/ClusterRoleBinding'];
const ENDPOINT_KINDS = new Set(['/Endpoints', 'discovery.k8s.io/EndpointSlice']);

/** Every group/Kind a stock exclusion rule names, but those of the Endpoints/EndpointSlice rule. */
function otherStockExclusions(): string[] {
  const rules = YAML.parse(argoCdConfigMapData(readFileSync(STOCK_ARGOCD_CM, 'utf8'))['resource.exclusions']!) as { apiGroups: string[]; kinds: string[] }[];
  return rules.filter((r) => !r.kinds.includes('EndpointSlice')).flatMap((r) => r.apiGroups.flatMap((g) => r.kinds.map((k) => `${g}/${k}`)));
}

describe('the argocd-cm change, judged by Argo CD\'s own settings code', () => {
  let fleet: KubeFleet | undefined;
  let skip: string | undefined;

  before(async (t) => {
    try {
      await ensureArgoCdResourceFilter();
    } catch (e) {
      if (!(e instanceof ArgoCdResourceFilterUnavailableError) || process.env.CI === 'true') throw e;
      skip = `Argo CD settings code unavailable (set CI=true to fail instead): ${e.message.split('\n')[0]}`;
      process.stderr.write(`${e.message}\n`);
      return;
    }
    fleet = await kubeFleetForTests(t as never, ['hub'], { readerRules: observationRules({ source: true, target: true }) });
    if (!fleet) skip = kubeFleetSkipReason;
    else await fleet.kubectl('hub', ['create', 'namespace', 'argocd']);
  });

  after(async () => {
    await fleet?.stop();
  });

  /** Puts the stock argocd-cm in place, applies `patch` (a generated file) if given, and asks Argo CD. */
  const verdicts = async (patch: string | undefined, kinds: readonly string[]): Promise<Record<string, ResourceVerdict>> => {
    await fleet!.kubectl('hub', ['delete', 'configmap', 'argocd-cm', '-n', 'argocd', '--ignore-not-found']);
    await fleet!.kubectl('hub', ['apply', '-n', 'argocd', '-f', STOCK_ARGOCD_CM]);
    if (patch) await fleet!.kubectl('hub', ['patch', 'configmap', 'argocd-cm', '-n', 'argocd', '--type', 'merge', '--patch-file', patch]);
    return argoCdResourceVerdicts(fleet!.kubeconfig('admin'), 'argocd', IN_CLUSTER, kinds);
  };

  test('the stock argocd-cm hides our Endpoints and EndpointSlices, and only them of our kinds', async (t) => {
    if (!fleet) return t.skip(skip ?? 'no fleet');
    // GIVEN the stock argocd-cm WHEN Argo CD reads it
    const got = await verdicts(undefined, [...OUR_KINDS, ...otherStockExclusions()]);
    // THEN it excludes exactly the endpoint kinds of ours, and every other kind its rules name
    for (const kind of OUR_KINDS) assert.equal(got[kind]!.excluded, ENDPOINT_KINDS.has(kind), kind);
    for (const kind of otherStockExclusions()) assert.equal(got[kind]!.excluded, true, kind);
  });

  test('argocd-cm-patch.yaml shows every kind of ours, unfiltered, and keeps every other stock exclusion', async (t) => {
    if (!fleet) return t.skip(skip ?? 'no fleet');
    const got = await verdicts('delivery/argocd/argocd-cm-patch.yaml', [...OUR_KINDS, ...otherStockExclusions()]);
    for (const kind of OUR_KINDS) assert.deepEqual(got[kind], { excluded: false, selector: '' }, kind);
    for (const kind of otherStockExclusions()) assert.equal(got[kind]!.excluded, true, kind);
  });

  test('argocd-cm-patch-managed-endpoints-only.yaml shows our endpoint kinds through the managed label only', async (t) => {
    if (!fleet) return t.skip(skip ?? 'no fleet');
    const got = await verdicts('delivery/argocd/argocd-cm-patch-managed-endpoints-only.yaml', [...OUR_KINDS, ...otherStockExclusions()]);
    for (const kind of OUR_KINDS) {
      assert.deepEqual(got[kind], { excluded: false, selector: ENDPOINT_KINDS.has(kind) ? `${MANAGED_LABEL}=${MANAGED_VALUE}` : '' }, kind);
    }
    for (const kind of otherStockExclusions()) assert.equal(got[kind]!.excluded, true, kind);
  });
});
