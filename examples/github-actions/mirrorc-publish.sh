#!/usr/bin/env bash
# Publishes what synth wrote (dist/, delivery/ and the lock) from a GitHub Actions job.
# Copy it to .github/mirrorc-publish.sh of your fleet repository (`mirrorc init` does).
#
#   MIRRORC_PUBLISH=pr    (default) commit on the branch $MIRRORC_BRANCH (default mirrorc/update),
#                         force-push that branch (it belongs to this job: each run rebuilds it from
#                         $MIRRORC_BASE) and open a pull request into $MIRRORC_BASE unless one is
#                         open; works with a protected base branch and never races with merges.
#   MIRRORC_PUBLISH=push  commit and push straight to $MIRRORC_BASE; fails with a clear message
#                         when the branch refuses the push (protected, or moved meanwhile).
#   MIRRORC_BASE          base branch (default: $GITHUB_REF_NAME, else main)
#   GH_TOKEN              for `gh pr create` / `gh pr list` (the job's github.token)
#
# Exit 0 when there is nothing to publish or it was published; 1 otherwise.
set -euo pipefail

mode="${MIRRORC_PUBLISH:-pr}"
base="${MIRRORC_BASE:-${GITHUB_REF_NAME:-main}}"
branch="${MIRRORC_BRANCH:-mirrorc/update}"
remote="${MIRRORC_REMOTE:-origin}"
message="${MIRRORC_COMMIT_MESSAGE:-mirrorc: update mirrors}"
case "$mode" in pr|push) ;; *) echo "mirrorc-publish: MIRRORC_PUBLISH must be pr or push, not \"$mode\"" >&2; exit 1 ;; esac

git config user.name >/dev/null || git config user.name 'mirrorc'
git config user.email >/dev/null || git config user.email 'mirrorc@users.noreply.github.com'

# Everything synth writes: mirrors, the GitOps delivery manifests and the lock (removals included).
paths=()
for p in dist delivery clusters/fleet.lock.json; do
  if [ -e "$p" ] || git ls-files --error-unmatch "$p" >/dev/null 2>&1; then paths+=("$p"); fi
done
[ "${#paths[@]}" -gt 0 ] || { echo "mirrorc-publish: nothing to publish (no dist/, delivery/ or lock here)" >&2; exit 1; }
git add -A -- "${paths[@]}"
if git diff --cached --quiet; then
  echo "mirrorc-publish: no changes"
  exit 0
fi
git commit -q -m "$message"

if [ "$mode" = push ]; then
  if ! git push "$remote" "HEAD:refs/heads/$base"; then
    echo "mirrorc-publish: the push to $base was refused (a protected branch, or $base moved during this run)." >&2
    echo "mirrorc-publish: nothing was published; use MIRRORC_PUBLISH=pr (a branch and a pull request), or let the next run retry." >&2
    exit 1
  fi
  echo "mirrorc-publish: pushed to $base"
  exit 0
fi

# PR mode: the branch is rebuilt from the base on every run, so force is expected.
if ! git push --force "$remote" "HEAD:refs/heads/$branch"; then
  echo "mirrorc-publish: could not push the branch $branch" >&2
  exit 1
fi
echo "mirrorc-publish: pushed $branch"
open="$(gh pr list --head "$branch" --base "$base" --state open --json number --jq 'length')"
if [ "${open:-0}" != 0 ]; then
  echo "mirrorc-publish: the open pull request for $branch now has this update"
  exit 0
fi
run_url="${GITHUB_SERVER_URL:-}/${GITHUB_REPOSITORY:-}/actions/runs/${GITHUB_RUN_ID:-}"
gh pr create --base "$base" --head "$branch" --title "$message" \
  --body "Mirrors compiled by mirrorc from the fleet's clusters. Review the changes to dist/, delivery/ and the lock, then merge. Run: $run_url"
echo "mirrorc-publish: opened a pull request from $branch into $base"
