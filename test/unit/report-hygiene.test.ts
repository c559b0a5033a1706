/** Report hygiene: every report names its format and the mirrorc that wrote it, and carries no API server address or credential. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ownVersion } from '../../src/util/own-version.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { ObservationError } from '../../src/observe/observation-error.js';
import { buildRunReport, REPORT_FORMAT } from '../../src/report/report.js';
import { emptySnapshot } from '../../src/snapshot/snapshot.js';
import { REDACTED, SERVER_ADDRESS, redactServerAddresses } from '../../src/util/redact.js';

test('GIVEN a run whose clusters failed with errors naming their API servers WHEN reported THEN no address or credential is in the report, and it names its format and version', () => {
  const errors = [
    new ObservationError('paris', 'unreachable', 'list services: request to https://admin:s3cret@10.20.30.40:6443/api/v1/services?limit=500 failed'),
    new ObservationError('rome', 'unreachable', 'list namespaces: connect ECONNREFUSED 10.20.30.41:6443'),
    new ObservationError('oslo', 'unreachable', 'get service: request to https://[fd00::7]:6443/api failed, reason: Bearer abc.def'),
  ];
  const report = buildRunReport({
    command: 'synth', exitCode: ExitCode.OK, offline: false, snapshot: emptySnapshot(), changes: [], lockChanged: false, diagnostics: [],
    stale: errors.map((error, i) => ({ cluster: ['paris', 'rome', 'oslo'][i]!, role: 'target' as const, error, keptPrevious: true })),
  });
  const text = JSON.stringify(report);
  for (const secret of ['10.20.30.40', '10.20.30.41', 'fd00::7', 's3cret', 'admin', 'abc.def']) assert.ok(!text.includes(secret), `${secret} is in the report: ${text}`);
  assert.ok(text.includes(`https://${SERVER_ADDRESS}/api/v1/services`), 'the failed request stays named');
  assert.ok(text.includes(`ECONNREFUSED ${SERVER_ADDRESS}`));
  assert.equal(report.reportFormat, REPORT_FORMAT);
  assert.equal(report.mirrorcVersion, ownVersion());
});

test('GIVEN text without a URL or socket address WHEN server addresses are redacted THEN it is unchanged, and redacting is idempotent', () => {
  for (const t of ['gateway 203.0.113.10 is not alive', 'service shop/web has port 8080', `already https://${SERVER_ADDRESS}/x and ${REDACTED}`]) {
    assert.equal(redactServerAddresses(t), t);
  }
});
