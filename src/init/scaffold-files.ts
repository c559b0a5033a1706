/**
 * The files `mirrorc init` scaffolds in a new fleet repository (apart from the CI workflow, which is
 * the packaged example `examples/github-actions/mirrorc.yml`, and the empty lock).
 */

/** Where the scaffolded fleet definition goes (the CLI's default `--fleet`). */
export const FLEET_FILE = 'clusters/fleet.ts';
/** Its lock (the CLI's default: the fleet file with `.lock.json`). */
export const LOCK_FILE = 'clusters/fleet.lock.json';
/** Where the CI workflow goes. */
export const WORKFLOW_FILE = '.github/workflows/mirrorc.yml';
/** The workflow's publish step (the packaged examples/github-actions/mirrorc-publish.sh). */
export const PUBLISH_SCRIPT_FILE = '.github/mirrorc-publish.sh';

/**
 * The `npm run` scripts a fleet repository gets (the CI workflow runs `npm run synth`). npm runs them
 * with node_modules/.bin first on the PATH: they run the installed mirrorc, never a download.
 */
export const FLEET_SCRIPTS: Readonly<Record<string, string>> = {
  synth: 'mirrorc synth',
  plan: 'mirrorc plan',
  check: 'mirrorc check',
  observe: 'mirrorc observe',
};

export const FLEET_TS = `/**
 * The fleet: its clusters, and which cluster mirrors the exported services of which.
 * Each cluster is reached through the kubeconfig context of the same name (override with \`access\`);
 * the lock beside this file (fleet.lock.json) holds what was last observed. Replace the two example
 * clusters with yours, then run \`npm run synth\` (observes the clusters) and commit dist/ and the lock.
 */
import { Cluster, Link, type Fleet } from 'mirrorc';

export default function defineFleet(fleet: Fleet): void {
  const east = new Cluster(fleet, 'east');
  const west = new Cluster(fleet, 'west');
  // east gets a mirror of every west Service labelled mirror.linkerd.io/exported=true, and back.
  new Link(fleet, 'east-from-west', { source: east, target: west });
  new Link(fleet, 'west-from-east', { source: west, target: east });
}
`;

export const CDK8S_YAML = `# \`cdk8s synth\` runs mirrorc offline (from the lock): it writes dist/ like \`npm run synth -- --offline\`.
# cdk8s-cli deletes its output folder before every run, so that is a scratch folder (.cdk8s.out),
# never dist/. Use \`npm run synth\` to observe the clusters live.
language: typescript
app: npx --no-install mirrorc synth --offline --out dist
output: .cdk8s.out
`;

export const GITIGNORE = `node_modules/
.cdk8s.out/
# mirrorc's own scratch files beside dist/ (a run that was killed may leave them)
*.tmp
*.mirrorc-staged
.dist.txn/
.delivery.txn/
.dist.run-lock.json
.dist.staging-*
.dist.previous-*
.delivery.staging-*
.delivery.previous-*
`;

export const README_MD = `# Fleet repository

Linkerd multicluster mirrors of this fleet, compiled by mirrorc
and synced by a GitOps controller.

- \`clusters/fleet.ts\`: the clusters and links (edit this).
- \`clusters/fleet.lock.json\`: what mirrorc last observed in the clusters (written by synth; commit it).
- \`dist/<cluster>/\`: the manifests for each cluster (written by synth; commit them, never edit).

Commands (Node 20.19 or later; after \`npm ci\`, which installs mirrorc from the registry):

    npm run synth              # observe the clusters, update the lock, write dist/
    npm run synth -- --offline # compile from the lock alone, contacting no cluster
    npm run plan               # show what synth would change
    npm run check              # exit 5 when dist/ or the lock is not up to date (CI)

\`.github/workflows/mirrorc.yml\` runs synth on a schedule and publishes dist/, delivery/ and the
lock as a pull request from the branch mirrorc/update (\`.github/mirrorc-publish.sh\`; set the
repository variable MIRRORC_PUBLISH=push to push to main instead); it runs \`check\` on pull requests,
and fails when a cluster has been stale for longer than MIRRORC_MAX_STALE (default 24h). It reads the
kubeconfig from the secret MIRRORC_KUBECONFIG (mint it with \`npx --no-install mirrorc access\`).
`;

/**
 * The `allowScripts` policy of a scaffolded package.json (npm 11.19+ warns on every install about a
 * dependency's install script that the project's policy does not cover; a later npm blocks them).
 * mirrorc's one dependency with an install script is esbuild (through tsx, which loads the fleet
 * file): its postinstall only checks the platform binary that npm installs as an optional
 * dependency (`@esbuild/<os>-<arch>`) and swaps esbuild's command-line launcher for it, which the
 * JavaScript API that tsx uses does not need. So it is denied: no warning, and no code run at install.
 */
export const INSTALL_SCRIPT_POLICY: Readonly<Record<string, boolean>> = { esbuild: false };

/**
 * The package.json of a fleet repository that has none yet: mirrorc from the registry by a semver
 * range of this version (`^0.1.0`: later 0.1.x releases, which keep the lock and the output format),
 * and its peers. A team without a registry replaces the range with a tarball committed in the
 * repository (`npm install ./vendor/mirrorc-<version>.tgz` writes `file:vendor/mirrorc-<version>.tgz`).
 */
export function newPackageJson(name: string, mirrorcVersion: string, peers: Readonly<Record<string, string>>): string {
  const pkg = {
    name,
    private: true,
    type: 'module',
    scripts: FLEET_SCRIPTS,
    dependencies: { mirrorc: `^${mirrorcVersion}`, ...peers },
    allowScripts: INSTALL_SCRIPT_POLICY,
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}
