/**
 * Removes credentials from text before it leaves the process: log lines, error messages, the
 * report. Kubeconfigs may carry them in places that end up in error messages (a `server:` URL with
 * `user:password@`, a signed URL with `?token=`), and client libraries sometimes echo headers.
 */

/** What replaces a credential. */
export const REDACTED = '***';

/** `scheme://userinfo@`: everything between `//` and `@` is a user name and possibly a password. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi;

/** One `key=value` of a query string (or of a `;`-separated parameter list). */
const QUERY_PARAM = /([?&;])([^\s=&#?;"'<>]+)=([^\s&#;"'<>]*)/g;

/** Query parameter names whose values are credentials (signed URLs, API keys, session ids). */
const SECRET_PARAM = /token|passw|pwd|secret|sig|credential|api[-_]?key|^key$|auth|session/i;

/** `Authorization: Bearer x`, `Bearer x`, `Basic x`: HTTP credentials. */
const HTTP_CREDENTIAL = /\b(Bearer|Basic)\s+[A-Za-z0-9\-._~+/]+=*/g;

/** `"token": "x"`, `password=x`, `client-key-data: x`: credential fields of kubeconfigs and JSON bodies. */
const SECRET_FIELD = /(["']?\b(?:token|access[-_]token|id[-_]token|refresh[-_]token|password|passwd|client[-_]key[-_]data|client[-_]secret)["']?\s*[:=]\s*)(["']?)[^\s"',}&;#]+\2/gi;

/** `text` with every credential it recognises replaced by {@link REDACTED}; idempotent. */
export function redact(text: string): string {
  return text
    .replace(URL_USERINFO, `$1${REDACTED}@`)
    .replace(QUERY_PARAM, (whole: string, sep: string, key: string) => (SECRET_PARAM.test(key) ? `${sep}${key}=${REDACTED}` : whole))
    .replace(HTTP_CREDENTIAL, `$1 ${REDACTED}`)
    .replace(SECRET_FIELD, (_whole: string, prefix: string, quote: string) => `${prefix}${quote}${REDACTED}${quote}`);
}

/** What replaces the address of an API server (or of another endpoint a client error names) in a report. */
export const SERVER_ADDRESS = '<server>';

/** `https://host:port`: a URL's scheme and authority (its path is kept: it names a resource, not a place). */
const URL_AUTHORITY = /\b(https?:\/\/)(?:\[[0-9A-Fa-f:.]+\](?::\d+)?|[^\s/?#"'<>[\]]+)/gi;

/** `connect ECONNREFUSED 10.0.0.1:6443`: a socket error naming the address it tried. */
const SOCKET_ADDRESS = /\b(E[A-Z]{4,}) (?:\[[0-9A-Fa-f:.]+\]|[0-9A-Fa-f:.]*[0-9A-Fa-f]):\d+\b/g;

/**
 * `text` with API server URLs and the addresses socket errors name replaced by {@link SERVER_ADDRESS}
 * (and credentials by {@link REDACTED}, see {@link redact}): what a report that becomes a CI artifact
 * carries. A kubeconfig's server address says where a fleet's control planes are; the report does not need it.
 */
export function redactServerAddresses(text: string): string {
  return redact(text).replace(URL_AUTHORITY, `$1${SERVER_ADDRESS}`).replace(SOCKET_ADDRESS, `$1 ${SERVER_ADDRESS}`);
}
