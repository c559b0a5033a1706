/**
 * A small OIDC issuer on 127.0.0.1 for tests, standing in for a CI provider's (GitHub Actions'
 * token.actions.githubusercontent.com): HTTPS with its own test CA (certificates made by openssl,
 * like kube-fleet's), `/.well-known/openid-configuration`, `/jwks`, and a token endpoint shaped like
 * the runner's ACTIONS_ID_TOKEN_REQUEST_URL (bearer request token, `audience` query parameter,
 * answer `{"value": "<jwt>"}`). Tokens are RS256 JWTs signed with node:crypto.
 */
import { spawnSync } from 'node:child_process';
import { createSign, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** A running issuer. */
export interface OidcIssuer {
  /** https://127.0.0.1:<port> (the `iss` of its tokens). */
  readonly url: string;
  /** PEM of the CA that signed its serving certificate. */
  readonly caPem: string;
  /** File holding {@link caPem}. */
  readonly caFile: string;
  /** The runner-style token request URL and the bearer token it wants. */
  readonly requestUrl: string;
  readonly requestToken: string;
  /** The claims the token endpoint puts into the next tokens (besides iss, aud, iat, nbf, exp). */
  claims: Record<string, unknown>;
  /** A signed token with these claims (defaults: iss, iat, nbf, exp in 10 min). */
  sign(claims: Record<string, unknown>, key?: KeyObject): string;
  stop(): Promise<void>;
}

const OPENSSL_CNF = `[req]
distinguished_name = dn
prompt = no
[dn]
[ca_ext]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
[server_ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1
`;

function openssl(dir: string, args: string[]): void {
  const r = spawnSync('openssl', ['req', '-config', join(dir, 'openssl.cnf'), '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', ...args], { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
}

/** Starts an issuer whose files (CA, serving certificate) go into `dir`. */
export async function startOidcIssuer(dir: string): Promise<OidcIssuer> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'openssl.cnf'), OPENSSL_CNF);
  openssl(dir, ['-keyout', 'ca.key', '-out', 'ca.crt', '-days', '30', '-subj', '/CN=oidc-test-ca', '-extensions', 'ca_ext']);
  openssl(dir, ['-keyout', 'serving.key', '-out', 'serving.crt', '-days', '30', '-subj', '/CN=127.0.0.1', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-extensions', 'server_ext']);
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomBytes(8).toString('hex');
  const requestToken = randomBytes(16).toString('hex');
  let url = '';
  const b64 = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');
  const sign = (claims: Record<string, unknown>, key: KeyObject = privateKey): string => {
    const now = Math.floor(Date.now() / 1000);
    const body = `${b64({ alg: 'RS256', typ: 'JWT', kid })}.${b64({ iss: url, iat: now, nbf: now - 5, exp: now + 600, ...claims })}`;
    return `${body}.${createSign('RSA-SHA256').update(body).sign(key).toString('base64url')}`;
  };
  const issuer: OidcIssuer = {
    get url() { return url; },
    caPem: readFileSync(join(dir, 'ca.crt'), 'utf8'),
    caFile: join(dir, 'ca.crt'),
    get requestUrl() { return `${url}/token?api-version=2.0`; },
    requestToken,
    claims: {},
    sign,
    stop: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
  const server: Server = createServer({ key: readFileSync(join(dir, 'serving.key')), cert: readFileSync(join(dir, 'serving.crt')) }, (req, res) => {
    const u = new URL(req.url ?? '/', url);
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (u.pathname === '/.well-known/openid-configuration') {
      return json(200, { issuer: url, jwks_uri: `${url}/jwks`, response_types_supported: ['id_token'], subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['RS256'] });
    }
    if (u.pathname === '/jwks') return json(200, { keys: [{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' }] });
    if (u.pathname === '/token') {
      if (req.headers.authorization !== `bearer ${requestToken}`) return json(401, { message: 'bad request token' });
      const audience = u.searchParams.get('audience');
      return json(200, { value: sign({ ...(audience ? { aud: audience } : {}), ...issuer.claims }) });
    }
    return json(404, { message: 'not found' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return issuer;
}
