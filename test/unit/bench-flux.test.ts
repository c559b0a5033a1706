/** The Flux phase's reading of a source's folders: which Services it creates first, which unit a change lands in. No controller runs here. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pinnedServices, unitsHolding, unitSpecs } from '../../bench/flux-bench.js';

function write(root: string, rel: string, text: string): void {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), text);
}

const service = (name: string, clusterIP?: string): string =>
  `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\n  namespace: shop\nspec:\n${clusterIP ? `  clusterIP: ${clusterIP}\n` : ''}  ports:\n    - port: 80\n`;

test('GIVEN a source folder WHEN the Flux phase reads it THEN only Services with a pinned ClusterIP are created first, and a changed file maps to the unit whose path holds it', () => {
  const root = mkdtempSync(join(tmpdir(), 'mirrorc-bench-flux-'));
  try {
    write(root, 'dist/c01/from-c02/shop/service-db-0-c02.yaml', service('db-0-c02', '10.96.0.5'));
    write(root, 'dist/c01/from-c02/shop/service-db-c02.yaml', service('db-c02', 'None'));
    write(root, 'dist/c01/from-c02/shop/service-web-c02.yaml', service('web-c02'));
    write(root, 'dist/c01/from-c02.1/shop/endpoints-web-c02.yaml', 'apiVersion: v1\nkind: Endpoints\nmetadata:\n  name: web-c02\n  namespace: shop\n');
    write(root, 'dist/c01/from-c02/kustomization.yaml', 'resources: []\n');
    for (const [name, path] of [['mirrorc-from-c02', './dist/c01/from-c02'], ['mirrorc-from-c02.1', './dist/c01/from-c02.1']]) {
      write(root, `delivery/flux/c01/units/kustomization-${name}.yaml`, `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  path: ${path}\n`);
    }
    write(root, 'delivery/flux/c01/units/kustomization.yaml', 'resources: []\n');

    const pinned = pinnedServices(root, 'c01') as { metadata: { name: string } }[];
    assert.deepEqual(pinned.map((o) => o.metadata.name), ['db-0-c02']);

    const units = unitSpecs(root, 'c01');
    assert.deepEqual([...units].sort((a, b) => a.name.localeCompare(b.name)), [{ name: 'mirrorc-from-c02', path: 'dist/c01/from-c02' }, { name: 'mirrorc-from-c02.1', path: 'dist/c01/from-c02.1' }]);
    // from-c02 is a prefix of from-c02.1's folder name: only the folder itself counts.
    assert.deepEqual(unitsHolding(units, 'c01', ['from-c02.1/shop/endpoints-web-c02.yaml']), ['mirrorc-from-c02.1']);
    assert.deepEqual(unitsHolding(units, 'c01', ['from-c02/shop/service-web-c02.yaml']), ['mirrorc-from-c02']);
    assert.deepEqual(unitsHolding(units, 'c01', ['shared/shop/service-x.yaml']), []);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
