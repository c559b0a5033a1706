/**
 * The bench's model of Argo CD's webhook refresh choice (bench/argocd-webhook.ts), against the cases
 * Argo CD's own `util/app/path/path_test.go` (`TestAppFilesHaveChanged`) decides and against the
 * generated Applications' `manifest-generate-paths` (a change in one family refreshes that family's
 * Application only, whichever shard holds it).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { appFilesHaveChanged, refreshPaths } from '../../bench/argocd-webhook.js';
import { familyGeneratePaths } from '../../src/delivery/argocd-application-set.js';

describe("Argo CD's webhook refresh choice", () => {
  test('GIVEN no refresh paths or no changed files WHEN a push arrives THEN the Application is refreshed', () => {
    assert.equal(appFilesHaveChanged([], ['a/b.yaml']), true);
    assert.equal(appFilesHaveChanged(refreshPaths('.', 'source/path'), []), true);
  });

  test('GIVEN paths relative to the source folder, absolute paths and globs WHEN files change THEN the cases of path_test.go hold', () => {
    const rel = refreshPaths('.', 'source/path');
    assert.equal(appFilesHaveChanged(rel, ['source/path/my-deployment.yaml']), true);
    assert.equal(appFilesHaveChanged(rel, ['README.md']), false);
    const abs = refreshPaths('/source/path', 'other');
    assert.equal(appFilesHaveChanged(abs, ['source/path/my-deployment.yaml']), true);
    assert.equal(appFilesHaveChanged(abs, ['source/pathx/my-deployment.yaml']), false, 'a sibling folder with the same prefix is not under the path');
    const glob = refreshPaths('/source/*/my-deployment.yaml', 'other');
    assert.equal(appFilesHaveChanged(glob, ['source/path/my-deployment.yaml']), true);
    assert.equal(appFilesHaveChanged(glob, ['source/path/deeper/my-deployment.yaml']), false, '* stays within one folder');
  });

  test("GIVEN the generated Applications of a source WHEN one mirror file of a shard changes THEN only its family's Application is refreshed", () => {
    const paths = (family: string) => refreshPaths(familyGeneratePaths(family), 'dist/c01');
    const changed = ['dist/c01/from-c02.1/analytics/service-api-0-c02.yaml'];
    assert.equal(appFilesHaveChanged(paths('from-c02'), changed), true);
    assert.equal(appFilesHaveChanged(paths('from-c03'), changed), false);
    assert.equal(appFilesHaveChanged(paths('from-c0'), changed), false, 'a family whose name is a prefix of another');
    assert.equal(appFilesHaveChanged(paths('base'), changed), false);
    assert.equal(appFilesHaveChanged(paths('from-c02'), ['dist/c01/from-c02/analytics/service-api-0-c02.yaml']), true, 'shard 0');
    assert.equal(appFilesHaveChanged(paths('from-c02'), ['dist/c01/from-c02.3/kustomization.yaml']), true, "a shard's kustomization.yaml");
  });
});
