/**
 * The command a hint gives for type-checking a fleet file. Not `npx tsc`: where TypeScript is not
 * installed (a fleet repository installs only mirrorc), that asks the registry for the unrelated
 * package "tsc". `-p typescript` uses the project's own TypeScript, or offers to install the real
 * one; the options stand in for the tsconfig.json a fleet repository does not have.
 */
export function typeCheckCommand(fleetFile = 'clusters/fleet.ts'): string {
  return `npx -p typescript tsc --noEmit --strict --module nodenext --target es2022 --skipLibCheck ${fleetFile}`;
}
