/**
 * Checks a kubeconfig file named on the command line before anything runs: a path the user typed
 * that cannot be used is a mistake to report (exit 2), not a reason to compile every cluster stale.
 */
import { readFileSync, statSync } from 'node:fs';

/** Why `path` cannot be used as a kubeconfig ("does not exist", ...), or undefined when it can. Never quotes the file's content. */
export async function kubeconfigFileProblem(path: string): Promise<string | undefined> {
  let text: string;
  try {
    if (statSync(path).isDirectory()) return 'is a directory, not a kubeconfig file';
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'does not exist';
    if (code === 'EACCES' || code === 'EPERM') return 'cannot be read (permission denied)';
    return `cannot be read (${code ?? 'unknown error'})`;
  }
  // Loaded only when --kubeconfig is given: client-node takes about half a second to import.
  const k8s = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  try {
    kc.loadFromString(text);
  } catch {
    // The parser's message quotes the file, which may hold credentials: say only what is wrong.
    return 'is not a kubeconfig (YAML with clusters, users and contexts)';
  }
  return kc.getContexts().length === 0 ? 'has no contexts (is it a kubeconfig?)' : undefined;
}
