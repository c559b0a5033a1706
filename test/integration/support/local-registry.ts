/**
 * A real npm registry for install tests: verdaccio on 127.0.0.1 with its storage in a temp dir and
 * no uplink (a package it does not hold is a 404, never a fetch from the public registry), and the
 * packages mirrorc needs published into it from npm's local cache (the tarballs `npm ci` put there,
 * found by the integrity our package-lock.json records), so no test needs the internet.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync, readFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import cacache from 'cacache';

/** A running registry. */
export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  /** A publish token of a user created for the test (never written outside the temp dir). */
  readonly token: string;
  /** What verdaccio printed (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

/** A package version to publish: its name, version and integrity in our package-lock.json. */
export interface LockedPackage {
  readonly name: string;
  readonly version: string;
  readonly integrity: string;
  /** An optional dependency (esbuild's binaries for other platforms, fsevents). */
  readonly optional: boolean;
  /** The platforms it installs on, when it names them. */
  readonly os?: readonly string[];
  readonly cpu?: readonly string[];
}

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.on('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** Polls `check` until it returns true or `ms` pass. */
async function until(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Options of {@link startLocalRegistry}. */
export interface LocalRegistryProps {
  /**
   * Installs need a token too (an organisation's private registry): a request without one, or with
   * a wrong one, gets 401. The test user's {@link LocalRegistry.token} is a valid one.
   * @default false (anyone may install; publishing always needs the token)
   */
  readonly requireAuth?: boolean;
}

/** Starts verdaccio with storage below `dir`; resolves when it answers and a user can publish. */
export async function startLocalRegistry(dir: string, props: LocalRegistryProps = {}): Promise<LocalRegistry> {
  const access = props.requireAuth ? '$authenticated' : '$all';
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const config = join(dir, 'config.yaml');
  writeFileSync(config, [
    `storage: ${join(dir, 'storage')}`,
    'auth:',
    '  htpasswd:',
    `    file: ${join(dir, 'htpasswd')}`,
    '    max_users: 10',
    '# No uplinks: nothing falls back to the public registry.',
    'uplinks: {}',
    'packages:',
    `  '@*/*': { access: ${access}, publish: $authenticated }`,
    `  '**': { access: ${access}, publish: $authenticated }`,
    'web: { enable: false }',
    'max_body_size: 200mb',
    'log: { type: stdout, format: pretty, level: warn }',
    '',
  ].join('\n'));
  const bin = resolve('node_modules/verdaccio/bin/verdaccio');
  const child: ChildProcess = spawn(process.execPath, [bin, '--config', config, '--listen', `127.0.0.1:${port}`], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    await until(`verdaccio on ${url}`, 60_000, async () => {
      if (child.exitCode !== null) throw new Error(`verdaccio exited (${child.exitCode}): ${output}`);
      return (await fetch(`${url}-/ping`)).ok;
    });
    const user = 'mirrorc-test';
    const res = await fetch(`${url}-/user/org.couchdb.user:${user}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: user, password: createHash('sha256').update(`${Date.now()}${Math.random()}`).digest('hex') }),
    });
    const body = (await res.json()) as { token?: string };
    if (!res.ok || !body.token) throw new Error(`verdaccio refused the test user (${res.status}): ${JSON.stringify(body)}`);
    return { url, token: body.token, output: () => output, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** `package.json` of an npm tarball (its first folder's, whatever that folder is called). */
export function tarballManifest(tgz: Buffer): Record<string, unknown> {
  const tar = gunzipSync(tgz);
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const field = (from: number, len: number): string => header.subarray(from, from + len).toString('utf8').replace(/\0.*$/s, '');
    const name = `${field(345, 155) ? `${field(345, 155)}/` : ''}${field(0, 100)}`;
    const size = parseInt(field(124, 12).trim() || '0', 8);
    if (/^[^/]+\/package\.json$/.test(name)) return JSON.parse(tar.subarray(at + 512, at + 512 + size).toString('utf8')) as Record<string, unknown>;
    at += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error('the tarball has no package.json');
}

/** Publishes one tarball through the registry's publish API (what `npm publish <tgz>` sends). */
export async function publishTarball(registry: LocalRegistry, tgz: Buffer): Promise<void> {
  const manifest = tarballManifest(tgz) as Record<string, unknown> & { name: string; version: string };
  const { name, version } = manifest;
  const file = `${name.replace(/^@[^/]+\//, '')}-${version}.tgz`;
  const integrity = `sha512-${createHash('sha512').update(tgz).digest('base64')}`;
  const body = {
    _id: name,
    name,
    'dist-tags': { latest: version },
    versions: {
      [version]: {
        ...manifest,
        _id: `${name}@${version}`,
        dist: { integrity, shasum: createHash('sha1').update(tgz).digest('hex'), tarball: `${registry.url}${name}/-/${file}` },
      },
    },
    _attachments: { [file]: { content_type: 'application/octet-stream', data: tgz.toString('base64'), length: tgz.length } },
  };
  const res = await fetch(`${registry.url}${name.replace('/', '%2f')}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${registry.token}` },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`publishing ${name}@${version} failed (${res.status}): ${await res.text()}`);
}

/**
 * The packages of our package-lock.json that installing `roots` needs (their dependencies, optional
 * ones and required peers, as the lock resolves them), without those bundled inside another.
 */
export function lockedClosure(lockFile: string, roots: readonly string[]): LockedPackage[] {
  type Entry = { version?: string; integrity?: string; inBundle?: boolean; optional?: boolean; os?: string[]; cpu?: string[]; dependencies?: Record<string, string>; optionalDependencies?: Record<string, string>; peerDependencies?: Record<string, string>; peerDependenciesMeta?: Record<string, { optional?: boolean }> };
  const packages = (JSON.parse(readFileSync(lockFile, 'utf8')) as { packages: Record<string, Entry> }).packages;
  const locate = (from: string, name: string): string | undefined => {
    for (let dir = from; ; ) {
      const path = `${dir ? `${dir}/` : ''}node_modules/${name}`;
      if (packages[path]) return path;
      if (dir === '') return undefined;
      const i = dir.lastIndexOf('/node_modules/');
      dir = i < 0 ? '' : dir.slice(0, i);
    }
  };
  const seen = new Set<string>();
  const out: LockedPackage[] = [];
  const walk = (path: string): void => {
    if (seen.has(path)) return;
    seen.add(path);
    const entry = packages[path]!;
    if (entry.inBundle) return;
    out.push({
      name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length),
      version: entry.version!,
      integrity: entry.integrity!,
      optional: entry.optional === true,
      ...(entry.os ? { os: entry.os } : {}),
      ...(entry.cpu ? { cpu: entry.cpu } : {}),
    });
    for (const dep of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies })) {
      if (entry.peerDependenciesMeta?.[dep]?.optional) continue;
      const found = locate(path, dep);
      if (found) walk(found);
    }
  };
  for (const root of roots) {
    const found = locate('', root);
    if (!found) throw new Error(`${root} is not in ${lockFile}`);
    walk(found);
  }
  return out;
}

/** A gzipped npm tarball holding only `package/package.json`. */
export function manifestOnlyTarball(manifest: Readonly<Record<string, unknown>>): Buffer {
  const body = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
  const header = Buffer.alloc(512);
  const put = (text: string, at: number, len: number): void => void header.write(text.slice(0, len), at, 'ascii');
  put('package/package.json', 0, 100);
  put('0000644\0', 100, 8);
  put('0000000\0', 108, 8);
  put('0000000\0', 116, 8);
  put(`${body.length.toString(8).padStart(11, '0')}\0`, 124, 12);
  put('00000000000\0', 136, 12);
  put('        ', 148, 8);
  put('0', 156, 1);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  let sum = 0;
  for (const b of header) sum += b;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  const padding = Buffer.alloc((512 - (body.length % 512)) % 512);
  return gzipSync(Buffer.concat([header, body, padding, Buffer.alloc(1024)]));
}

/**
 * Publishes `packages` from npm's cache into the registry, lower versions of a name first (so
 * `latest` is the highest). An optional package for another platform is never installed here, so
 * it is not in the cache: it gets a placeholder with the real name, version, os and cpu and no
 * content, so that npm records it in the lock as a complete registry would (npm ci checks that the
 * lock lists every optional dependency) and never installs it. Returns what was not in the cache.
 */
export async function publishFromNpmCache(registry: LocalRegistry, packages: readonly LockedPackage[], npmCacheDir: string): Promise<{ published: number; placeholders: string[]; notCached: string[] }> {
  const unique = [...new Map(packages.map((p) => [`${p.name}@${p.version}`, p])).values()];
  const byVersion = (a: LockedPackage, b: LockedPackage): number => {
    const [x, y] = [a.version, b.version].map((v) => v.split(/[.+-]/).slice(0, 3).map(Number));
    return a.name < b.name ? -1 : a.name > b.name ? 1 : x![0]! - y![0]! || x![1]! - y![1]! || x![2]! - y![2]!;
  };
  const notCached: string[] = [];
  const placeholders: string[] = [];
  let published = 0;
  for (const p of unique.sort(byVersion)) {
    let tgz: Buffer;
    try {
      tgz = (await cacache.get.byDigest(join(npmCacheDir, '_cacache'), p.integrity)) as Buffer;
    } catch {
      const otherPlatform = p.optional && (p.os !== undefined || p.cpu !== undefined) && !(p.os?.includes(process.platform) && p.cpu?.includes(process.arch));
      if (!otherPlatform) {
        notCached.push(`${p.name}@${p.version}`);
        continue;
      }
      tgz = manifestOnlyTarball({ name: p.name, version: p.version, description: 'placeholder for a platform the install tests do not run on', ...(p.os ? { os: p.os } : {}), ...(p.cpu ? { cpu: p.cpu } : {}) });
      placeholders.push(`${p.name}@${p.version}`);
    }
    await publishTarball(registry, tgz);
    published++;
  }
  return { published, placeholders, notCached };
}
