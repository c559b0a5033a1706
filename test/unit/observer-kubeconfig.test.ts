/** The kubeconfig `mirrorc access` writes (src/access/observer-kubeconfig.ts): entries per cluster, merge on rotation. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import YAML from 'yaml';
import { observerKubeconfigYaml, type MintedCluster } from '../../src/access/observer-kubeconfig.js';

const minted = (cluster: string, token: string, context = cluster): MintedCluster => ({ cluster, context, server: `https://${cluster}.example:6443`, caPem: `PEM-${cluster}`, token });

test('one cluster, user and context per minted cluster; contexts named as the fleet expects', () => {
  const cfg = YAML.parse(observerKubeconfigYaml([minted('paris', 't-paris', 'prod-paris'), minted('london', 't-london')]));
  assert.deepEqual(cfg.contexts, [
    { name: 'london', context: { cluster: 'london', user: 'london-mirrorc-observer' } },
    { name: 'prod-paris', context: { cluster: 'paris', user: 'paris-mirrorc-observer' } },
  ]);
  assert.equal(Buffer.from(cfg.clusters.find((c: { name: string }) => c.name === 'paris').cluster['certificate-authority-data'], 'base64').toString(), 'PEM-paris');
  assert.equal(cfg.users.find((u: { name: string }) => u.name === 'paris-mirrorc-observer').user.token, 't-paris');
});

test('rotating one cluster replaces its entries and keeps the others, including foreign ones', () => {
  const first = observerKubeconfigYaml([minted('london', 'old-london'), minted('paris', 'old-paris')]);
  const withForeign = YAML.stringify({ ...YAML.parse(first), contexts: [...YAML.parse(first).contexts, { name: 'other', context: { cluster: 'x', user: 'y' } }] });
  const cfg = YAML.parse(observerKubeconfigYaml([minted('paris', 'new-paris')], withForeign));
  const token = (name: string): string => cfg.users.find((u: { name: string }) => u.name === `${name}-mirrorc-observer`).user.token;
  assert.equal(token('paris'), 'new-paris');
  assert.equal(token('london'), 'old-london');
  assert.deepEqual(cfg.contexts.map((c: { name: string }) => c.name), ['london', 'other', 'paris']);
  assert.equal(cfg.users.length, 2);
});

test('rotating a cluster whose API server or CA changed leaves one cluster entry for it, the new one: no old server or CA stays to be picked first', () => {
  const first = observerKubeconfigYaml([minted('london', 'old-london'), minted('paris', 'old-paris')]);
  const moved: MintedCluster = { ...minted('paris', 'new-paris'), server: 'https://paris-2.example:6443', caPem: 'PEM-paris-2' };
  const cfg = YAML.parse(observerKubeconfigYaml([moved], first));
  assert.deepEqual(cfg.clusters.map((c: { name: string }) => c.name), ['london', 'paris']);
  const paris = cfg.clusters.find((c: { name: string }) => c.name === 'paris').cluster;
  assert.equal(paris.server, 'https://paris-2.example:6443');
  assert.equal(Buffer.from(paris['certificate-authority-data'], 'base64').toString(), 'PEM-paris-2');
  assert.deepEqual(cfg.contexts.map((c: { name: string }) => c.name), ['london', 'paris']);
  assert.deepEqual(cfg.users.map((u: { name: string }) => u.name), ['london-mirrorc-observer', 'paris-mirrorc-observer']);
});
