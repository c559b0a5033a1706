/** Findings of a compile: errors stop the run before anything is written, warnings are reported. */

/** Collected findings; each message names the cluster, the service and what to do. */
export class Diagnostics {
  public readonly errors: string[] = [];
  public readonly warnings: string[] = [];

  public error(message: string): void {
    this.errors.push(message);
  }

  public warn(message: string): void {
    this.warnings.push(message);
  }
}

/** Compile found errors; nothing was written. */
export class CompileError extends Error {
  constructor(public readonly problems: readonly string[]) {
    super(`compile found ${problems.length} error${problems.length === 1 ? '' : 's'}; nothing was written:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'CompileError';
  }
}
