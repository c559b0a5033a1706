/**
 * `npm run synth --offline` (without `--`) gives `--offline` to npm, not to mirrorc: npm sets
 * `npm_config_offline=true` in the script's environment and runs `mirrorc synth`, which would then
 * contact the clusters although the user asked for an offline compile.
 *
 * mirrorc refuses such a run (exit 2, nothing contacted or written) rather than honouring it: the
 * same variable is set by an `offline=true` in an .npmrc (npm's own setting, to install from its
 * cache), and honouring it there would silently turn a scheduled live synth into an offline one,
 * freezing the mirrors while the job stays green. Refusing costs one retry and is never wrong.
 */

/** Commands that contact clusters unless `--offline` is given. */
const LIVE_COMMANDS: ReadonlySet<string> = new Set(['synth', 'plan', 'check', 'observe']);

/** The message refusing a run that npm's own `--offline` makes ambiguous, or undefined when the run may go on. */
export function npmOfflineProblem(env: NodeJS.ProcessEnv, command: string, offline: boolean): string | undefined {
  if (offline || !LIVE_COMMANDS.has(command) || env.npm_config_offline !== 'true') return undefined;
  const script = env.npm_lifecycle_event;
  const rerun = script ? `npm run ${script} -- --offline` : `mirrorc ${command} --offline`;
  return `npm's own --offline setting is on (npm_config_offline=true) but mirrorc was not given --offline: ` +
    `"npm run ${script ?? command} --offline" without "--" passes --offline to npm, not to mirrorc. ` +
    `For an offline compile run "${rerun}"; for a live run turn npm's offline off (no --offline before "--", ` +
    'no offline=true in .npmrc, or npm_config_offline=false). Nothing was contacted or written';
}
