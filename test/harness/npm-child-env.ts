/**
 * The environment of a child `npm` run by a test: none of the `npm_*` variables that the `npm test`
 * running the tests exports (they name this repository's package and scripts), except the cache.
 * `npm ci` filled that cache with the dependencies' tarballs, and a child `npm ci --offline` must read
 * the same one: on a machine whose npm cache is not the default `~/.npm` (`npm_config_cache`, as CI
 * images and the fresh-machine run of docs/argocd-tests.md set it), dropping it sent the child to an
 * empty cache (ENOTCACHED).
 */
export function npmChildEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const kept = Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) || k.toLowerCase() === 'npm_config_cache');
  return { ...Object.fromEntries(kept), ...extra };
}
