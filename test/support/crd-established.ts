/**
 * Waits until CRDs just applied are Established, with `kubectl wait`. kubectl reads a CRD whose
 * status has no conditions yet as an error ("accessor error: <nil> is of the type <nil>")
 * instead of waiting, which a loaded machine hits right after the apply; that one error is
 * retried until the deadline, every other failure is thrown as it is.
 */

/** Runs kubectl with `args` (its kubeconfig already given); rejects when kubectl fails. */
type Kubectl = (args: string[]) => Promise<unknown>;

const NO_CONDITIONS_YET = 'accessor error: <nil>';

/** `kubectl wait --for=condition=Established` (not the applier's waitEstablished, which nudges through the client) on `crds` (`crd/<name>`), within `timeoutMs`. */
export async function kubectlWaitEstablished(kubectl: Kubectl, crds: string[], timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = Math.max(1, Math.ceil((deadline - Date.now()) / 1000));
    try {
      await kubectl(['wait', '--for=condition=Established', `--timeout=${left}s`, ...crds]);
      return;
    } catch (err) {
      const text = `${(err as { stderr?: unknown }).stderr ?? ''} ${(err as Error).message}`;
      if (!text.includes(NO_CONDITIONS_YET) || Date.now() > deadline) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
