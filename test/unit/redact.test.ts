/** redact(): credentials never leave the process in a message, a log line or the report. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { REDACTED, redact } from '../../src/util/redact.js';

describe('redact', () => {
  test('GIVEN a URL with user and password WHEN redacted THEN the whole userinfo is replaced and host and path stay', () => {
    assert.equal(
      redact('request to https://admin:s3cret@10.0.0.1:6443/api/v1/services failed'),
      `request to https://${REDACTED}@10.0.0.1:6443/api/v1/services failed`,
    );
  });

  test('GIVEN a URL with only a user name, or with a percent-encoded password WHEN redacted THEN the userinfo is gone', () => {
    assert.equal(redact('http://tok3n@host/'), `http://${REDACTED}@host/`);
    assert.equal(redact('https://u:p%40ss@host:1'), `https://${REDACTED}@host:1`);
  });

  test('GIVEN token-like query parameters WHEN redacted THEN only their values are replaced', () => {
    assert.equal(
      redact('GET https://h/api?labelSelector=a%3Db&token=abc.def&limit=500&access_token=x1&password=p&sig=zz&X-Amz-Signature=0f&key=AIza'),
      `GET https://h/api?labelSelector=a%3Db&token=${REDACTED}&limit=500&access_token=${REDACTED}&password=${REDACTED}&sig=${REDACTED}&X-Amz-Signature=${REDACTED}&key=${REDACTED}`,
    );
  });

  test('GIVEN harmless query parameters WHEN redacted THEN the text is unchanged', () => {
    const text = 'list services with selector "mirror.linkerd.io/exported=true": GET /api/v1/services?limit=500&continue=eyJ2';
    assert.equal(redact(text), text);
  });

  test('GIVEN bearer and basic credentials and credential fields WHEN redacted THEN their values are replaced', () => {
    assert.equal(redact('Authorization: Bearer eyJhbGciOi.J9.x-y_z'), `Authorization: Bearer ${REDACTED}`);
    assert.equal(redact('authorization: Basic dXNlcjpwYXNz'), `authorization: Basic ${REDACTED}`);
    assert.equal(redact('{"token":"abc","user":"bob"}'), `{"token":"${REDACTED}","user":"bob"}`);
    assert.equal(redact('password: hunter2'), `password: ${REDACTED}`);
    assert.equal(redact('client-key-data: LS0tLS1CRUdJTi'), `client-key-data: ${REDACTED}`);
  });

  test('GIVEN text without credentials WHEN redacted THEN it is unchanged', () => {
    const lines = [
      'cluster "paris": list services in all namespaces: permission denied: services is forbidden; grant the synth identity the observation role',
      'cluster "east": kubeconfig /home/me/.kube/config has no context "east"; pass --kubeconfig',
      'the credentials in the kubeconfig were rejected; refresh the token or certificate',
      'dist/west/: 1 added, 0 changed, 0 removed',
    ];
    for (const line of lines) assert.equal(redact(line), line);
  });

  test('GIVEN already redacted text WHEN redacted again THEN nothing changes (idempotent)', () => {
    const once = redact('https://u:p@h/?token=t Bearer b password=x');
    assert.equal(redact(once), once);
    assert.ok(!once.includes(':p@') && !once.includes('=t ') && !once.includes('Bearer b'), once);
  });
});
