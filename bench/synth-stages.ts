/** The synth stages the benchmark shows, in run order (see src/cli/stage-timer.ts; `observe` is skipped offline). */
import type { SynthStage } from '../src/cli/stage-timer.js';

export const SYNTH_STAGES: readonly SynthStage[] = ['load', 'compile', 'render', 'diff', 'write'];
