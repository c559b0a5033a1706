#!/usr/bin/env node
// A kubeconfig exec credential plugin for GitHub Actions OIDC: it asks the runner for the job's
// OIDC ID token (the job needs `permissions: id-token: write`) and hands it to the Kubernetes
// client as the bearer token. Nothing is stored: the token lives for minutes and names the repository
// and ref (sub: repo:<org>/<repo>:ref:refs/heads/main). For clusters whose API server trusts GitHub's
// issuer (https://token.actions.githubusercontent.com) through a JWT authenticator, see
// docs/ci-credentials.md. In a kubeconfig:
//
//   users:
//   - name: github-actions
//     user:
//       exec:
//         apiVersion: client.authentication.k8s.io/v1
//         command: node
//         args: [.github/github-oidc-credential.mjs, <audience the API server expects>]
//         interactiveMode: Never
const url = process.env.ACTIONS_ID_TOKEN_REQUEST_URL;
const bearer = process.env.ACTIONS_ID_TOKEN_REQUEST_TOKEN;
if (!url || !bearer) {
  process.stderr.write('github-oidc-credential: ACTIONS_ID_TOKEN_REQUEST_URL/TOKEN are not set; give the job `permissions: id-token: write`\n');
  process.exit(1);
}
const request = new URL(url);
if (process.argv[2]) request.searchParams.set('audience', process.argv[2]);
let answer;
try {
  answer = await fetch(request, { headers: { authorization: `bearer ${bearer}`, accept: 'application/json' } });
} catch (e) {
  process.stderr.write(`github-oidc-credential: the token request failed: ${e.cause?.code ?? e.message}\n`);
  process.exit(1);
}
if (!answer.ok) {
  process.stderr.write(`github-oidc-credential: the token request answered HTTP ${answer.status}\n`);
  process.exit(1);
}
const token = (await answer.json()).value;
if (typeof token !== 'string' || token.split('.').length !== 3) {
  process.stderr.write('github-oidc-credential: the answer holds no ID token\n');
  process.exit(1);
}
const exp = Number(JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')).exp);
process.stdout.write(`${JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1',
  kind: 'ExecCredential',
  status: { token, ...(Number.isFinite(exp) ? { expirationTimestamp: new Date(exp * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') } : {}) },
})}\n`);
