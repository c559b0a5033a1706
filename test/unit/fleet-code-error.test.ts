/** Messages for exceptions of the user's fleet module, and the --kubeconfig file check. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fleetCodeErrorMessage, userCodeLocation } from '../../src/load/fleet-code-error.js';
import { buildFleet, FleetLoadError } from '../../src/load/load-fleet.js';
import { Cluster } from '../../src/model/index.js';
import { kubeconfigFileProblem } from '../../src/observe/kubeconfig-file-problem.js';

const FLEET = resolve('clusters/fleet.ts');
const SRC_CLUSTER = resolve('src/model/cluster.ts');

describe('userCodeLocation', () => {
  test('GIVEN a stack through constructs and mirrorc WHEN located THEN the innermost frame of the user\'s file is named, relative to the working directory', () => {
    const stack = [
      'Error: There is already a Construct with name \'east\' in Fleet [fleet]',
      '    at Node.addChild (/repo/node_modules/constructs/src/construct.ts:530:13)',
      `    at new Cluster (${SRC_CLUSTER}:77:5)`,
      `    at defineFleet (${FLEET}:12:5)`,
      `    at buildFleet (file://${resolve('src/load/load-fleet.ts')}:40:5)`,
    ].join('\n');
    assert.equal(userCodeLocation(stack), 'clusters/fleet.ts:12:5');
  });

  test('GIVEN a top-level frame written as a file URL WHEN located THEN it is named like a path', () => {
    assert.equal(userCodeLocation(`ReferenceError: x\n    at file://${FLEET}:2:14\n    at ModuleJob.run (node:internal/modules/esm/module_job:234:25)`), 'clusters/fleet.ts:2:14');
  });

  test('GIVEN a stack with only dependency and Node frames WHEN located THEN there is no location', () => {
    assert.equal(userCodeLocation('TypeError: x\n    at f (/r/node_modules/a/b.js:1:2)\n    at node:internal/x:3:4'), undefined);
  });
});

describe('fleetCodeErrorMessage', () => {
  test('GIVEN an esbuild transform error WHEN described THEN each error becomes file:line:column: SyntaxError', () => {
    const e = new Error(`Transform failed with 1 error:\n${FLEET}:3:34: ERROR: Expected ")" but found ";"`);
    assert.equal(fleetCodeErrorMessage(e, 'clusters/fleet.ts', 'load'), 'clusters/fleet.ts:3:34: SyntaxError: Expected ")" but found ";"\n  hint: fix the syntax there (npx -p typescript tsc --noEmit --strict --module nodenext --target es2022 --skipLibCheck clusters/fleet.ts lists every error)');
  });

  test('GIVEN a thrown null WHEN described THEN the file is named and the value shown', () => {
    assert.match(fleetCodeErrorMessage(null, 'clusters/fleet.ts', 'define'), /^clusters\/fleet\.ts: the fleet definition threw null \(a null, not an Error/);
  });

  test('GIVEN a multi-line message WHEN described THEN only its first line is kept', () => {
    const e = new Error('Cannot find module \'./x.js\'\nRequire stack:\n- /a/b');
    (e as { code?: string }).code = 'MODULE_NOT_FOUND';
    e.stack = `Error: Cannot find module './x.js'\n    at f (/r/node_modules/tsx/x.js:1:1)`;
    assert.equal(fleetCodeErrorMessage(e, 'clusters/fleet.ts', 'load'), 'clusters/fleet.ts: Error: Cannot find module \'./x.js\'\n  hint: check the import paths at the top of the fleet file');
  });
});

describe('buildFleet', () => {
  test('GIVEN a definition that throws WHEN built THEN a FleetLoadError names the file, the error and a hint', () => {
    assert.throws(() => buildFleet(() => { throw new TypeError('x is not a function'); }, 'fleets/prod.ts'), (e: unknown) => {
      assert.ok(e instanceof FleetLoadError);
      assert.match(e.message, /TypeError: x is not a function\n {2}hint: a value has the wrong type/);
      return true;
    });
  });

  test('GIVEN two clusters with one id WHEN built THEN the message says so in plain words', () => {
    assert.throws(() => buildFleet((f) => { new Cluster(f, 'east'); new Cluster(f, 'east'); }), /two constructs in fleet have the id "east"/);
  });

  test('GIVEN an async definition WHEN built THEN it is refused, and its promise is not left unhandled', () => {
    assert.throws(() => buildFleet((async () => { throw new Error('late'); }) as never), /returned a Promise; the fleet definition must be a synchronous function/);
  });
});

describe('kubeconfigFileProblem', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mirrorc-kubeconfig-'));
  const file = (name: string, text: string): string => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  test('GIVEN missing, directory, broken, context-less and valid files WHEN checked THEN each gets its reason, the valid one none', async () => {
    try {
      assert.equal(await kubeconfigFileProblem(join(dir, 'nope.yaml')), 'does not exist');
      assert.equal(await kubeconfigFileProblem(dir), 'is a directory, not a kubeconfig file');
      assert.equal(await kubeconfigFileProblem(file('broken.yaml', 'users: [\n  token: s3cret\n')), 'is not a kubeconfig (YAML with clusters, users and contexts)');
      assert.equal(await kubeconfigFileProblem(file('empty.yaml', 'kind: Config\n')), 'has no contexts (is it a kubeconfig?)');
      const valid = 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n';
      assert.equal(await kubeconfigFileProblem(file('ok.yaml', valid)), undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
