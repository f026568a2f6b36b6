/**
 * Waits until CRDs just applied are Established, with `kubectl wait`. kubectl reads a CRD whose
 * status has no conditions yet as an error ("accessor error: <nil> is of the type <nil>")
 * instead of waiting, which a loaded machine hits right after the apply; that one error is
 * retried until the deadline, every other failure is thrown as it is. The retry is localstack's
 * `waitUntil`, not `vi.waitFor`: the benchmarks (bench/lib/olm-stack.ts) call this outside
 * vitest, where `vi.waitFor` throws.
 */
import { waitUntil } from '../../pkg/olmv1/localstack/index.ts';

/** Runs kubectl with `args` (its kubeconfig already given); rejects when kubectl fails. */
type Kubectl = (args: string[]) => Promise<unknown>;

const NO_CONDITIONS_YET = 'accessor error: <nil>';

/** `kubectl wait --for=condition=Established` (not the applier's waitEstablished, which nudges through the client) on `crds` (`crd/<name>`), within `timeoutMs`. */
export async function kubectlWaitEstablished(kubectl: Kubectl, crds: string[], timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let failed: { err: unknown } | undefined;
  await waitUntil(
    `${crds.join(', ')} Established`,
    async () => {
      const left = Math.max(1, Math.ceil((deadline - Date.now()) / 1000));
      try {
        await kubectl(['wait', '--for=condition=Established', `--timeout=${left}s`, ...crds]);
        return true;
      } catch (err) {
        const text = `${(err as { stderr?: unknown }).stderr ?? ''} ${(err as Error).message}`;
        if (text.includes(NO_CONDITIONS_YET)) throw err;
        failed = { err }; // not retried: ends the wait and is thrown below
        return true;
      }
    },
    { timeoutMs, intervalMs: 200 },
  );
  if (failed !== undefined) throw failed.err;
}
