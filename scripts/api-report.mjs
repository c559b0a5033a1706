// `npm run api`: writes the public API report api/mirrorc.api.md with API Extractor, from the
// declarations of src/index.ts (the package's only entry). `--check` writes nothing into api/ and
// exits 1 when the public API differs from the committed report (test/unit/api-report.test.ts
// runs it): a change of the public API is then announced by committing the new report.
// `--committed <dir>` compares with the report in another folder (the test's way to see a difference found).
// The declarations come from lib/ when it was built from the current src/, else they are emitted
// afresh into .api-report/dts/ (inside the repository, so that API Extractor finds package.json).
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';
import { compiledLibProblem } from './lib-freshness.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
const committedAt = process.argv.indexOf('--committed');
const reportFolder = committedAt > 0 ? process.argv[committedAt + 1] : join(root, 'api');
const work = join(root, '.api-report');

/** The folder holding index.d.ts for the current src/. */
async function declarations() {
  const lib = join(root, 'lib');
  if (compiledLibProblem(root) === undefined) return lib;
  const out = join(work, 'dts');
  rmSync(out, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const args = [tsc, '-p', join(root, 'tsconfig.build.json'), '--emitDeclarationOnly', '--declarationMap', 'false', '--sourceMap', 'false', '--outDir', out];
  const run = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (run.status !== 0) {
    console.error('api: tsc failed (see above)');
    process.exit(2);
  }
  return out;
}

const configFile = join(root, 'api-extractor.json');
const configObject = ExtractorConfig.loadFile(configFile);
configObject.mainEntryPointFilePath = join(await declarations(), 'index.d.ts');
configObject.apiReport.reportFolder = reportFolder;
const config = ExtractorConfig.prepare({ configObject, configObjectFullPath: configFile, packageJsonFullPath: join(root, 'package.json') });
const result = Extractor.invoke(config, { localBuild: !check, showVerboseMessages: false, showDiagnostics: false });
const committed = join(reportFolder, 'mirrorc.api.md');
if (check && result.apiReportChanged) {
  console.error(
    `api: the public API differs from ${committed} (the new report is ${join(work, 'mirrorc.api.md')}).\n` +
      'If the change is intended, run "npm run api" and commit api/mirrorc.api.md with the change, saying what changed for library users.',
  );
  process.exit(1);
}
if (!result.succeeded) {
  console.error(`api: API Extractor found ${result.errorCount} error(s) and ${result.warningCount} warning(s) (see above)`);
  process.exit(1);
}
console.log(check ? `api: the public API matches ${committed}` : `api: wrote ${committed}`);
