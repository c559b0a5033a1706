/**
 * The public API: the package entry (src/index.ts) against the committed API report
 * api/mirrorc.api.md (API Extractor), and the props of the public constructs documented as
 * cdk8s documents them (multi-line JSDoc; every optional field with its `@default`).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const REPORT = 'api/mirrorc.api.md';

test('the public API is the committed report: a difference fails the check, and the fresh report equals api/mirrorc.api.md', () => {
  // GIVEN a copy of the committed report with one public symbol taken out (an unannounced change)
  const committed = readFileSync(REPORT, 'utf8');
  assert.match(committed, /export function synthFleet\(/);
  const dir = mkdtempSync(join(tmpdir(), 'mirrorc-api-'));
  try {
    writeFileSync(join(dir, 'mirrorc.api.md'), committed.replace(/^export function synthFleet\(.*$/m, ''));
    // WHEN the API check compares the package entry with it
    const run = spawnSync(process.execPath, ['scripts/api-report.mjs', '--check', '--committed', dir], { encoding: 'utf8' });
    // THEN it fails and says how to announce the change
    assert.equal(run.status, 1, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stderr, /the public API differs from .*npm run api/s);
    // AND the report it made of the current entry is exactly the committed one: the public API did not change unannounced
    assert.equal(readFileSync('.api-report/mirrorc.api.md', 'utf8'), committed, 'src/index.ts differs from api/mirrorc.api.md: if intended, run "npm run api" and commit the report');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the public API is small: values and types named, no CLI runner, pipeline stage or internal spec type', () => {
  // GIVEN the committed report
  const names = [...readFileSync(REPORT, 'utf8').matchAll(/^export (?:declare )?(?:abstract )?(?:class|interface|type|function|const) (\w+)/gm)].map((m) => m[1]!);
  // THEN it holds the constructs of every mode, the fleet model, synthFleet, the lock and the report types
  for (const name of ['Fleet', 'Cluster', 'ClusterProps', 'Link', 'LinkProps', 'ExplicitExport', 'GitOpsDelivery', 'StalenessLimit', 'FleetDefinition',
    'synthFleet', 'SynthFleetProps', 'FleetFiles', 'readLockFile', 'FleetSnapshot', 'RunReport', 'Diagnostic',
    'GatewayMirror', 'RemoteDiscoveryMirror', 'HeadlessRootMirror', 'FederatedService', 'McsImport', 'GlobalService']) {
    assert.ok(names.includes(name), `${name} is missing from the public API`);
  }
  // AND nothing of the command line or the pipeline's insides
  for (const name of ['runSynth', 'observeFleet', 'compileFleet', 'SourceChart', 'FleetSpec', 'ClusterSpec', 'LinkSpec', 'readerRbacChart', 'Diagnostics']) {
    assert.ok(!names.includes(name), `${name} must not be public`);
  }
  assert.ok(names.length <= 60, `the public API grew to ${names.length} symbols`);
});

test('every field of a public props type has a multi-line JSDoc, and every optional one its @default', () => {
  // GIVEN the package entry, compiled
  const program = ts.createProgram(['src/index.ts'], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, noEmit: true });
  const checker = program.getTypeChecker();
  const entry = checker.getSymbolAtLocation(program.getSourceFile('src/index.ts')!)!;
  const problems: string[] = [];
  let checked = 0;
  for (const exported of checker.getExportsOfModule(entry)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const iface = symbol.declarations?.find(ts.isInterfaceDeclaration);
    // The props of constructs and the option objects they hold (declared in src/model/ and the modes).
    if (!iface || !/Props$|^(ClusterAccess|NamespaceFilter|RemoteDiscoveryCredentials|MirrorAs|LabelSelector|LabelSelectorRequirement)$/.test(exported.name)) continue;
    for (const member of iface.members) {
      if (!ts.isPropertySignature(member)) continue;
      checked++;
      const where = `${exported.name}.${member.name.getText()}`;
      const doc = ts.getJSDocCommentsAndTags(member).find(ts.isJSDoc);
      if (!doc) {
        problems.push(`${where}: no JSDoc`);
        continue;
      }
      if (!doc.getText().includes('\n')) problems.push(`${where}: a one-line JSDoc (write it over several lines, as cdk8s does)`);
      if (member.questionToken && !(doc.tags ?? []).some((t) => t.tagName.text === 'default')) problems.push(`${where}: optional without @default`);
    }
  }
  // THEN there were props to check, and none lacks its documentation
  assert.ok(checked > 50, `only ${checked} props fields found`);
  assert.deepEqual(problems, []);
});
