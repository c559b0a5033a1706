/**
 * go-yaml-reader: Go's own YAML readers (gopkg.in/yaml.v3, read by kustomize's kyaml, Argo CD and Flux;
 * sigs.k8s.io/yaml, read by kubectl and client-go) asked whether a plain scalar reads back as the same
 * string. A small Go program (go-yaml-reader/main.go, versions pinned in its go.mod and go.sum), built
 * and cached by build-go-yaml-reader.sh: the independent oracle of the YAML writer's quoting.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The program could not be built or found. */
export class GoYamlReaderUnavailableError extends Error {
  override name = 'GoYamlReaderUnavailableError';
}

const BUILD_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'build-go-yaml-reader.sh');

let built: { bin: string } | { error: GoYamlReaderUnavailableError } | undefined;

/** The path of the built program (built once, then cached); memoised per process, a failure too. */
export function ensureGoYamlReader(): string {
  if (!built) {
    const r = spawnSync('bash', [BUILD_SCRIPT], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const bin = path.join(r.stdout?.trim().split('\n').pop()?.trim() ?? '', 'go-yaml-reader');
    if (r.status !== 0) built = { error: new GoYamlReaderUnavailableError(`${BUILD_SCRIPT} failed (${r.status ?? r.signal}):\n${(r.stderr ?? '').trimEnd().split('\n').slice(-20).join('\n')}`) };
    else if (!isExecutable(bin)) built = { error: new GoYamlReaderUnavailableError(`${BUILD_SCRIPT} built no executable ${bin}`) };
    else built = { bin };
  }
  if ('error' in built) throw built.error;
  return built.bin;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * How Go's readers read a plain scalar s (the document `v: <s>`): `other` when either reads something
 * else (a number, bool, null, timestamp, another string, or an error); `range` when both read s back
 * only because s is a number too large for a float64 (its `_` dropped, strconv.ParseFloat: ErrRange);
 * `same` when both read s back.
 */
export type GoPlainVerdict = 'same' | 'other' | 'range';

/** Go's verdict on each of `strings` as a plain scalar; one process per call. */
export function goReadsBackPlain(strings: readonly string[]): GoPlainVerdict[] {
  const r = spawnSync(ensureGoYamlReader(), [], { input: JSON.stringify(strings), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`go-yaml-reader failed (${r.status ?? r.signal}): ${r.stderr}`);
  const out = JSON.parse(r.stdout) as GoPlainVerdict[];
  if (!Array.isArray(out) || out.length !== strings.length) throw new Error(`go-yaml-reader answered ${out.length} verdicts for ${strings.length} strings`);
  return out;
}
