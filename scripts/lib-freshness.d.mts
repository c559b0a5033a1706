/** Types of lib-freshness.mjs (plain JavaScript, so that build-lib.mjs runs it without tsx). */
/** The file in lib/ that records what it was built from. */
export declare const BUILD_INFO_FILE: 'build-info.json';
/** SHA-256 over every file below `dir` (sorted relative paths and contents). */
export declare function sourceTreeHash(dir: string): string;
/** Why the lib/ of checkout `root` cannot be used as it is, or undefined. */
export declare function compiledLibProblem(root: string): string | undefined;
