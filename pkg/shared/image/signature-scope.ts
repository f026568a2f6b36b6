/**
 * Which policy scope applies to an image, as containers/image looks it up for the docker
 * transport: the exact reference (`host/repo:tag` or `host/repo@digest`), then the repository and
 * each parent namespace up to the host, then wildcard domains (`*.example.com`, `*.com`, port
 * dropped), then the transport's `""` scope, then the policy's `default`. The same order picks a
 * registries.d entry (without `""` and `default`).
 */
import type { ImageReference } from './reference.ts';
import type { Policy, Requirement } from './signature-policy.ts';

/** `name:tag` or `name@digest` (a reference with both uses the digest, as docker.NewReference forbids both). */
export function policyIdentity(ref: ImageReference): string {
  if (ref.digest !== undefined) return `${ref.name}@${ref.digest}`;
  if (ref.tag !== undefined) return `${ref.name}:${ref.tag}`;
  return ref.name;
}

/** The repository, its parent namespaces, the host, then the wildcard domains, most specific first. */
export function policyNamespaces(ref: ImageReference): string[] {
  const res: string[] = [];
  let name = ref.name;
  for (;;) {
    res.push(name);
    const slash = name.lastIndexOf('/');
    if (slash === -1) break;
    name = name.slice(0, slash);
  }
  const colon = name.indexOf(':');
  if (colon !== -1) name = name.slice(0, colon);
  for (;;) {
    const dot = name.indexOf('.');
    if (dot === -1) break;
    name = name.slice(dot + 1);
    res.push(`*.${name}`);
  }
  return res;
}

/** The scope that matched (`default` for the policy's default) and its requirements. */
interface ScopedRequirements {
  scope: string;
  requirements: Requirement[];
}

/** The requirements `policy` sets for pulling `ref` over the docker transport. */
export function requirementsFor(policy: Policy, ref: ImageReference): ScopedRequirements {
  const scopes = policy.transports.get('docker');
  if (scopes !== undefined) {
    for (const scope of [policyIdentity(ref), ...policyNamespaces(ref)]) {
      const reqs = scopes.get(scope);
      if (reqs !== undefined) return { scope: `docker:${scope}`, requirements: reqs };
    }
    const transportDefault = scopes.get('');
    if (transportDefault !== undefined) return { scope: 'docker', requirements: transportDefault };
  }
  return { scope: 'default', requirements: policy.default };
}
