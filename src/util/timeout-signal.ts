/**
 * A signal that aborts when `parent` does, or `ms` milliseconds from now with a `TimeoutError`.
 * Used instead of `AbortSignal.any([parent, AbortSignal.timeout(ms)])`: under Node 20 nothing holds
 * `AbortSignal.timeout()`'s signal strongly once it is only a source of `AbortSignal.any()`, so a
 * garbage collection can drop it before it fires, and a stalled request then waits for `parent`
 * (the whole observation deadline) instead of its own timeout. Here the timer holds the controller.
 */
export function timeoutSignal(ms: number, parent?: AbortSignal): AbortSignal {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(Object.assign(new Error(`timed out after ${ms} ms`), { name: 'TimeoutError' })), ms);
  timer.unref();
  if (parent) {
    const onParent = (): void => {
      clearTimeout(timer);
      controller.abort(parent.reason);
    };
    if (parent.aborted) onParent();
    else parent.addEventListener('abort', onParent, { once: true });
    controller.signal.addEventListener('abort', () => parent.removeEventListener('abort', onParent), { once: true });
  }
  return controller.signal;
}
