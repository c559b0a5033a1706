/** An HTTP request path as the gateway probe sends it. */

/** `/` and URL path characters only (RFC 3986 pchar), at most 256 of them. */
const URL_PATH = /^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]{0,255}$/;

/** Why `path` is not a URL path of at most 256 characters (`/` then RFC 3986 path characters), or undefined. */
export function urlPathProblem(path: unknown): string | undefined {
  if (typeof path === 'string' && URL_PATH.test(path)) return undefined;
  return `${JSON.stringify(path)} is not a URL path (a "/" then at most 255 URL path characters, e.g. /ready)`;
}
