/** The synth stages the benchmark shows, in run order (see src/pipeline/stage-timer.ts; `observe` is skipped offline). */
import type { SynthStage } from '../src/pipeline/stage-timer.js';

export const SYNTH_STAGES: readonly SynthStage[] = ['load', 'compile', 'render', 'diff', 'write'];
