/** status's comparison of a source's mirrors (lock and dist/ against live): states, the data-plane fields that differ, ready endpoints, exit codes. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { compareMirrors } from '../../src/status/compare-mirrors.js';
import { dataPlaneFields, differingFields } from '../../src/status/data-plane-fields.js';
import { problemExitCode, sortProblems } from '../../src/status/problem-exit-code.js';

const service = (targetPort?: number, clusterIP?: string) => ({ spec: { ports: [{ name: 'http', port: 80, ...(targetPort !== undefined ? { targetPort } : {}) }], ...(clusterIP ? { clusterIP } : {}) } });
const slice = (...endpoints: [string, boolean | undefined][]) => ({ endpoints: endpoints.map(([a, ready]) => ({ addresses: [a], ...(ready !== undefined ? { conditions: { ready } } : {}) })) });

test('GIVEN a committed mirror and its live copy with the API server defaults filled in WHEN compared THEN nothing differs', () => {
  const committed = dataPlaneFields(service(), [slice(['192.0.2.1', true])]);
  const live = dataPlaneFields({ spec: { ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 80 }], clusterIP: '10.96.0.12' } }, [slice(['192.0.2.1', undefined])]);
  assert.deepEqual(differingFields(committed, live), []);
  assert.equal(live.readyAddresses, 1, 'an endpoint without conditions.ready is ready');
});

test('GIVEN a different targetPort, a moved pinned ClusterIP and other addresses WHEN compared THEN each is named', () => {
  const committed = dataPlaneFields(service(8080, '10.96.0.5'), [slice(['192.0.2.1', true])]);
  const live = dataPlaneFields(service(9090, '10.96.0.6'), [slice(['192.0.2.2', true])]);
  assert.deepEqual(differingFields(committed, live), ['clusterIP', 'endpoints', 'ports']);
});

test('GIVEN a mirror in the Endpoints form (no committed slice) WHEN read THEN its Endpoints addresses are its endpoints', () => {
  const committed = dataPlaneFields(service(), [], { subsets: [{ addresses: [{ ip: '192.0.2.9' }] }] });
  assert.deepEqual(committed.addresses, ['192.0.2.9']);
  assert.deepEqual(differingFields(committed, dataPlaneFields(service(), [slice(['192.0.2.9', true])])), []);
});

test('GIVEN lock mirrors, live ones and one with only not-ready endpoints WHEN compared THEN missing, unexpected and no-ready are problems with their exit codes', () => {
  const ok = dataPlaneFields(service(), [slice(['192.0.2.1', true])]);
  const committed = new Map([
    ['shop/a-paris', { origin: 'paris/shop/a', fields: ok }],
    ['shop/b-paris', { origin: 'paris/shop/b', fields: ok }],
    ['shop/c-paris', { origin: 'paris/shop/c', fields: dataPlaneFields(service(), [slice(['192.0.2.1', false])]) }],
  ]);
  const live = new Map([['shop/a-paris', ok], ['shop/c-paris', dataPlaneFields(service(), [slice(['192.0.2.1', false])])], ['shop/z-paris', ok]]);
  const { mirrors, problems } = compareMirrors('london', committed, live);
  assert.deepEqual(mirrors.map((m) => [m.mirror, m.state, m.readyEndpoints]), [['shop/a-paris', 'ok', 1], ['shop/b-paris', 'missing', null], ['shop/c-paris', 'ok', 0], ['shop/z-paris', 'unexpected', 1]]);
  assert.deepEqual(problems.map((p) => `${p.class} ${p.mirror}`), ['mirrors-differ shop/b-paris', 'no-ready-endpoints shop/c-paris', 'mirrors-differ shop/z-paris']);
  assert.equal(problemExitCode(problems), ExitCode.STATUS_MIRRORS_DIFFER);
  assert.equal(problemExitCode(problems.filter((p) => p.class === 'no-ready-endpoints')), ExitCode.STATUS_NO_READY_ENDPOINTS);
  assert.equal(problemExitCode([]), ExitCode.OK);
  assert.deepEqual(sortProblems(problems).map((p) => p.class), ['mirrors-differ', 'mirrors-differ', 'no-ready-endpoints']);
});
