/** The Kubernetes name predicates (src/util/k8s-names.ts) shared by the lock schema, observation, compile and emit. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  annotationKeySyntaxProblem,
  clusterNameProblem,
  dns1123SubdomainProblem,
  ianaServiceNameProblem,
  ipLiteralProblem,
  labelKeySyntaxProblem,
  labelValueSyntaxProblem,
  namespaceNameProblem,
  portNameProblem,
  portNumberProblem,
  protocolProblem,
  serviceNameProblem,
  targetPortProblem,
} from '../../src/util/k8s-names.js';

describe('name predicates', () => {
  test('GIVEN namespace names WHEN checked THEN only DNS-1123 labels pass, and the problem quotes the value with escapes', () => {
    for (const ok of ['default', 'a', 'team-1', '1team', 'x'.repeat(63)]) assert.equal(namespaceNameProblem(ok), undefined, ok);
    for (const bad of ['', '../../x', 'a/b', 'A', '-a', 'a-', 'a.b', 'x'.repeat(64), 'a\nb', 12, null]) {
      assert.match(namespaceNameProblem(bad) ?? '', /is not a valid namespace name \(a DNS-1123 label/, String(bad));
    }
    assert.ok(namespaceNameProblem('a\nb')!.startsWith('"a\\nb"'), 'a newline is shown escaped');
  });

  test('GIVEN Service names WHEN checked THEN only DNS-1035 labels pass (a leading digit is refused)', () => {
    for (const ok of ['web', 'web-1', 'a'.repeat(63)]) assert.equal(serviceNameProblem(ok), undefined, ok);
    for (const bad of ['1web', 'web\n', 'web.x', 'Web', 'a'.repeat(64), '']) assert.match(serviceNameProblem(bad) ?? '', /DNS-1035 label/, bad);
  });

  test('GIVEN cluster names and identities WHEN checked THEN labels and subdomains are told apart', () => {
    assert.equal(clusterNameProblem('paris'), undefined);
    assert.match(clusterNameProblem('Paris') ?? '', /not a valid cluster name/);
    assert.equal(dns1123SubdomainProblem('linkerd-gateway.linkerd-multicluster.serviceaccount.identity.linkerd.cluster.local'), undefined);
    for (const bad of ['', 'a..b', 'a b', '.a', 'x'.repeat(254)]) assert.ok(dns1123SubdomainProblem(bad), bad);
  });

  test('GIVEN ports WHEN checked THEN only integers 1-65535 pass; a string "80" is not a port', () => {
    for (const ok of [1, 80, 65535]) assert.equal(portNumberProblem(ok), undefined);
    for (const bad of [0, -1, 65536, 70000, 80.5, '80', null, undefined]) assert.match(portNumberProblem(bad) ?? '', /is not a port number/, String(bad));
  });

  test('GIVEN targetPorts and port names WHEN checked THEN numbers and IANA service names pass', () => {
    assert.equal(targetPortProblem(8080), undefined);
    assert.equal(targetPortProblem('http'), undefined);
    assert.equal(targetPortProblem('grpc-web'), undefined);
    for (const bad of [0, 'http--x', '80', 'a-very-long-port-name', 'HTTP', true]) assert.ok(targetPortProblem(bad), String(bad));
    assert.equal(ianaServiceNameProblem('h2c'), undefined);
    assert.equal(portNameProblem(''), undefined, 'a single unnamed port');
    assert.ok(portNameProblem('a b'));
  });

  test('GIVEN protocols WHEN checked THEN only TCP, UDP and SCTP pass', () => {
    for (const ok of ['TCP', 'UDP', 'SCTP']) assert.equal(protocolProblem(ok), undefined);
    for (const bad of ['tcp', 'HTTP', '', 6]) assert.match(protocolProblem(bad) ?? '', /is not a protocol/);
  });

  test('GIVEN label and annotation keys and values WHEN checked THEN Kubernetes syntax decides', () => {
    for (const ok of ['app', 'mirror.linkerd.io/exported', 'example.com/Some_Key.1']) {
      assert.equal(labelKeySyntaxProblem(ok), undefined, ok);
      assert.equal(annotationKeySyntaxProblem(ok), undefined, ok);
    }
    for (const bad of ['', '/x', 'Example.com/x', 'a/b/c', 'x'.repeat(64), 'a\nb', 'a b']) assert.ok(labelKeySyntaxProblem(bad), bad);
    assert.match(annotationKeySyntaxProblem('a b') ?? '', /not a valid annotation key/);
    for (const ok of ['', 'v1', 'A_b.c-d']) assert.equal(labelValueSyntaxProblem(ok), undefined, ok);
    for (const bad of ['-x', 'x y', 'x'.repeat(64), 'a\n']) assert.ok(labelValueSyntaxProblem(bad), bad);
  });

  test('GIVEN addresses WHEN checked THEN only IP literals pass, not host names or zoned IPv6', () => {
    for (const ok of ['203.0.113.7', '2001:db8::1', '::ffff:127.0.0.1']) assert.equal(ipLiteralProblem(ok), undefined, ok);
    for (const bad of ['gw.example.com', '1.2.3', 'fe80::1%eth0', '', 7]) assert.match(ipLiteralProblem(bad) ?? '', /is not an IP address/, String(bad));
  });
});
