/**
 * Module resolution hooks (`module.register`) for the compiled CLI: imports of mirrorc's sources
 * resolve to the compiled modules the CLI already runs (see {@link compiledCounterpart}).
 */
import type { InitializeHook, ResolveHook } from 'node:module';
import { compiledCounterpart, type SourceRedirect } from './compiled-model-redirect.js';

let redirect: SourceRedirect | undefined;

export const initialize: InitializeHook<SourceRedirect> = (data) => {
  redirect = data;
};

export const resolve: ResolveHook = (specifier, context, nextResolve) => {
  const url = redirect ? compiledCounterpart(specifier, context.parentURL, redirect) : undefined;
  return url ? { url, format: 'module', shortCircuit: true } : nextResolve(specifier, context);
};
