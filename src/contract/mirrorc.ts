/** Keys and names of this compiler itself. */

/** The compiler's name, as written into `endpointslice.kubernetes.io/managed-by`. */
export const COMPILER_NAME = 'mirrorc.io';
/** Label on every object the compiler writes; lets observation tell our objects from the user's. */
export const MANAGED_LABEL = 'mirrorc.io/managed';
/** Value of {@link MANAGED_LABEL}. */
export const MANAGED_VALUE = 'true';

/** Name of the ServiceAccount, ClusterRole and ClusterRoleBinding of the synth identity in every observed cluster. */
export const OBSERVER_NAME = 'mirrorc-observer';
/** Namespace of the synth identity's ServiceAccount (written as a Namespace object too). */
export const OBSERVER_NAMESPACE = 'mirrorc-system';
