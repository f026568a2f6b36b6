/**
 * What the `olmv1 up` end-to-end tests share: a clean checkout of HEAD to run `up` in as a
 * newcomer does, the processes that name a directory (what `up` left running), and the
 * README's local stack walk-through as the shell script a newcomer pastes.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes the tracked files of `repo` as committed (HEAD) into `dest`: a clean checkout. Not
 * the work tree: other changes in progress there (a modified file importing a not yet added
 * one) would make the copy inconsistent, and a newcomer gets what is committed.
 */
export function checkoutHead(repo: string, dest: string): void {
  const tar = execFileSync('git', ['archive', '--format=tar', 'HEAD'], { cwd: repo, maxBuffer: 512 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', dest], { input: tar });
}

/** Pids (other than ours) whose command line mentions `needle` (a checkout or private temp directory). */
export function processesMentioning(needle: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) out.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/**
 * The first `sh` block of the README's "Five minutes with the local stack" in `checkout`, as a
 * bash script that stops at the first failing command (`set -eu`) and expands its alias.
 */
export function readmeWalkthrough(checkout: string): string {
  const readme = readFileSync(join(checkout, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Five minutes with the local stack'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return `set -eu\nshopt -s expand_aliases\n${block}`;
}
