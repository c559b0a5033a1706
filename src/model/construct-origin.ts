/**
 * Where each construct of the fleet was created in the user's code, so that every problem the fleet
 * validation finds names `file:line:column` as a compiler would. The stack is captured when the
 * construct is created (V8 formats it only when read, i.e. only when there is a problem to report),
 * together with the props the constructor did not know.
 */
import { userCodeLocation } from '../util/user-code-location.js';
import { unknownPropProblems, type PropsShape } from './known-props.js';

const ORIGIN = Symbol.for('mirrorc.constructOrigin');

interface Origin {
  readonly trace: { stack?: string };
  readonly unknownProps: readonly string[];
}

/** Records where `construct` is being created and which of its `props` are unknown; called by each construct's constructor. */
export function recordOrigin(construct: object, props: unknown, shape: PropsShape): void {
  const trace: { stack?: string } = {};
  Error.captureStackTrace(trace, recordOrigin);
  const origin: Origin = { trace, unknownProps: unknownPropProblems(props, shape) };
  Object.defineProperty(construct, ORIGIN, { value: origin });
}

function originOf(construct: object): Origin | undefined {
  return (construct as { [ORIGIN]?: Origin })[ORIGIN];
}

/** `file:line:column` of the user's code that created `construct`, or undefined when unknown. */
export function creationLocation(construct: object): string | undefined {
  const stack = originOf(construct)?.trace.stack;
  return stack === undefined ? undefined : userCodeLocation(stack);
}

/** The unknown properties `construct` was given (see {@link unknownPropProblems}). */
export function unknownProps(construct: object): readonly string[] {
  return originOf(construct)?.unknownProps ?? [];
}
