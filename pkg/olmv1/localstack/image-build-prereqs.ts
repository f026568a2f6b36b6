/**
 * What building the project's image needs from the machine besides a node (buildah, debootstrap:
 * pkg/olmv1/images), named with their fix, as missingNodePrerequisites names the node's.
 */
import { execFileSync } from 'node:child_process';

/** The tools the image build runs. */
const TOOLS = ['buildah', 'debootstrap'] as const;

/** Every tool of the project image's build missing on `env`'s PATH, as lines for a message (empty: all there). */
export function missingImageBuildPrerequisites(env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  for (const tool of TOOLS) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { env, stdio: 'ignore' });
    } catch {
      problems.push(`no ${tool} (apt-get install -y ${tool})`);
    }
  }
  return problems;
}
