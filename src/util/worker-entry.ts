/**
 * The entry of a worker thread whose module lies beside its caller: the compiled `.js` module when
 * the caller runs compiled (`lib/`); run from the TypeScript sources (tsx: tests), a module that
 * registers tsx first (a worker thread does not inherit the tsx loader on Node 20) and then imports
 * the `.ts` module.
 */

/**
 * @param name the worker module's file name without extension (`folder-files-worker`)
 * @param callerUrl the caller's `import.meta.url` (the worker module lies in the same folder)
 */
export function workerEntry(name: string, callerUrl: string): URL {
  const fromSources = callerUrl.endsWith('.ts');
  const worker = new URL(`./${name}.${fromSources ? 'ts' : 'js'}`, callerUrl);
  if (!fromSources) return worker;
  const code = `const { register } = await import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}); register(); await import(${JSON.stringify(worker.href)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}
