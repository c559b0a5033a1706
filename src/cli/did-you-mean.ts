/** "Did you mean …?" (moved to src/util/did-you-mean.ts: the model and explain use it too). */
export { didYouMean, editDistance } from '../util/did-you-mean.js';
