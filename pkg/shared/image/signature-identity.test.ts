import { describe, expect, it } from 'vitest';
import { parseNormalized } from './reference.ts';
import { identityMatches } from './signature-identity.ts';
import type { IdentityMatch } from './signature-policy.ts';

const D = `sha256:${'b'.repeat(64)}`;
const tagged = parseNormalized('quay.io/ns/app:v1');
const digested = parseNormalized(`quay.io/ns/app@${D}`);

describe('identityMatches', () => {
  it.each<[IdentityMatch, typeof tagged, string, boolean]>([
    [{ type: 'matchRepoDigestOrExact' }, tagged, 'quay.io/ns/app:v1', true],
    [{ type: 'matchRepoDigestOrExact' }, tagged, 'quay.io/ns/app:v2', false],
    [{ type: 'matchRepoDigestOrExact' }, digested, 'quay.io/ns/app:anything', true],
    [{ type: 'matchRepoDigestOrExact' }, digested, 'quay.io/ns/other:v1', false],
    // A claim of a bare repository (what cosign sign writes) is never accepted, for a digest either (containers/image).
    [{ type: 'matchRepoDigestOrExact' }, digested, 'quay.io/ns/app', false],
    [{ type: 'matchRepoDigestOrExact' }, tagged, 'quay.io/ns/app', false],
    // Tag and digest: the claim must be exactly that.
    [{ type: 'matchRepoDigestOrExact' }, parseNormalized(`quay.io/ns/app:v1@${D}`), 'quay.io/ns/app:v1', false],
    [{ type: 'matchRepoDigestOrExact' }, parseNormalized(`quay.io/ns/app:v1@${D}`), `quay.io/ns/app:v1@${D}`, true],
    [{ type: 'remapIdentity', prefix: 'quay.io/ns', signedPrefix: 'origin.io/team' }, digested, 'origin.io/team/app', false],
    [{ type: 'matchExact' }, digested, 'quay.io/ns/app:v1', false],
    [{ type: 'matchExact' }, tagged, 'quay.io/ns/app:v1', true],
    [{ type: 'matchExact' }, tagged, 'quay.io/ns/app', false],
    [{ type: 'matchRepository' }, tagged, 'quay.io/ns/app:v9', true],
    [{ type: 'matchRepository' }, tagged, 'quay.io/ns/app2:v1', false],
    [{ type: 'exactReference', dockerReference: 'mirror.io/app:v1' }, tagged, 'mirror.io/app:v1', true],
    [{ type: 'exactReference', dockerReference: 'mirror.io/app:v1' }, tagged, 'quay.io/ns/app:v1', false],
    [{ type: 'exactRepository', dockerRepository: 'mirror.io/app' }, tagged, 'mirror.io/app:v7', true],
    [{ type: 'remapIdentity', prefix: 'quay.io/ns', signedPrefix: 'origin.io/team' }, tagged, 'origin.io/team/app:v1', true],
    [{ type: 'remapIdentity', prefix: 'quay.io/n', signedPrefix: 'origin.io/team' }, tagged, 'origin.io/teams/app:v1', false],
    [{ type: 'matchRepoDigestOrExact' }, parseNormalized('docker.io/library/busybox:1'), 'busybox:1', true],
    [{ type: 'matchRepository' }, tagged, 'NOT A REFERENCE', false],
  ])('%o for %o and signed %s: %s', (rule, ref, signed, want) => {
    expect(identityMatches(rule, ref, signed)).toBe(want);
  });
});
