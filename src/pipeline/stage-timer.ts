/** Times the consecutive stages of a run for an optional observer (the benchmark); a no-op without one. */
import { performance } from 'node:perf_hooks';

/** A stage of a synth run, in the order they happen. */
export type SynthStage = 'load' | 'observe' | 'compile' | 'render' | 'diff' | 'write';

/** Returns `mark(stage)`: reports the milliseconds since the previous mark (or since creation) as that stage's time. */
export function stageTimer(onStage: ((stage: SynthStage, ms: number) => void) | undefined): (stage: SynthStage) => void {
  if (!onStage) return () => {};
  let last = performance.now();
  return (stage) => {
    const now = performance.now();
    onStage(stage, now - last);
    last = now;
  };
}
