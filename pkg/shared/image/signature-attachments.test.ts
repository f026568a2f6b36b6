// sigstoreSigned through the image client against a fake registry: the `sha256-<hex>.sig`
// attachment manifest is read only where registries.d says use-sigstore-attachments, its
// layers are verified with the policy's public key, and a missing, foreign or malformed
// attachment refuses the pull. (Signatures made by real tools: test/integration/signature-policy.test.ts.)
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { imageTestBed } from '../../../test/support/image-test-bed.ts';
import { buildImage } from './build.ts';
import { createImageClient, type ImageClient } from './client.ts';
import { deleteReadOnly } from './fs-tree.ts';
import { sha256Digest } from './digest.ts';
import { HttpTransport } from './http-transport.ts';
import { RegistryAuth } from './registry-auth.ts';
import { RegistryClient } from './registry-client.ts';
import type { SignaturePolicyPaths } from './signature-load.ts';
import { SIGSTORE_SIGNATURE_ANNOTATION, SIGSTORE_SIGNATURE_MIME_TYPE } from './signature-sigstore.ts';

const trusted = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const pemOf = (k: typeof trusted): string => k.publicKey.export({ type: 'spki', format: 'pem' }).toString();

const bed = imageTestBed('olmv1-sig-attach-', deleteReadOnly);
let paths: SignaturePolicyPaths;
let client: ImageClient;

beforeEach(async () => {
  paths = { systemPolicy: join(bed().dir, 'policy.json'), systemRegistriesDir: join(bed().dir, 'registries.d') };
  await mkdir(paths.systemRegistriesDir);
  await writeFile(join(paths.systemRegistriesDir, 'a.yaml'), 'default-docker:\n  use-sigstore-attachments: true\n');
  client = createImageClient({ insecureRegistries: [bed().registry.host], signaturePolicy: paths });
});

afterEach(() => client.close());

async function setPolicy(key: typeof trusted): Promise<void> {
  const req = { type: 'sigstoreSigned', keyData: Buffer.from(pemOf(key)).toString('base64') };
  await writeFile(paths.systemPolicy, JSON.stringify({ default: [{ type: 'reject' }], transports: { docker: { [bed().registry.host]: [req] } } }));
}

/** Pushes a small image to `repo:v1` and returns its manifest digest. */
async function pushImage(repo: string): Promise<string> {
  const pusher = createImageClient({ insecureRegistries: [bed().registry.host] });
  try {
    return await pusher.push(`${bed().registry.host}/${repo}:v1`, buildImage({ files: new Map([['a.txt', Buffer.from(repo)]]) }));
  } finally {
    pusher.close();
  }
}

/** Writes the attachment manifest `sha256-<hex>.sig` of `digest` in `repo`, one layer per entry. */
async function attach(
  repo: string,
  digest: string,
  layers: Array<{ mediaType: string; payload: Buffer; annotations: Record<string, string> }>,
  mediaType = 'application/vnd.oci.image.manifest.v1+json',
): Promise<void> {
  const transport = new HttpTransport({ insecureRegistries: [bed().registry.host] });
  const rc = new RegistryClient(transport, new RegistryAuth(transport, undefined));
  const target = { domain: bed().registry.host, path: repo, name: `${bed().registry.host}/${repo}` };
  try {
    const config = Buffer.from('{}');
    for (const blob of [config, ...layers.map((l) => l.payload)]) await rc.uploadBlob(target, sha256Digest(blob), blob);
    const manifest = {
      schemaVersion: 2,
      mediaType,
      config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: sha256Digest(config), size: config.length },
      layers: layers.map((l) => ({ mediaType: l.mediaType, digest: sha256Digest(l.payload), size: l.payload.length, annotations: l.annotations })),
    };
    await rc.putManifest(target, `${digest.replace(':', '-')}.sig`, mediaType, Buffer.from(JSON.stringify(manifest)));
  } finally {
    transport.close();
  }
}

function signature(
  key: typeof trusted,
  digest: string,
  reference: string,
): { mediaType: string; payload: Buffer; annotations: Record<string, string> } {
  const payload = Buffer.from(
    JSON.stringify({
      critical: {
        identity: { 'docker-reference': reference },
        image: { 'docker-manifest-digest': digest },
        type: 'cosign container image signature',
      },
      optional: { creator: 'test' },
    }),
  );
  return {
    mediaType: SIGSTORE_SIGNATURE_MIME_TYPE,
    payload,
    annotations: { [SIGSTORE_SIGNATURE_ANNOTATION]: sign('sha256', payload, key.privateKey).toString('base64') },
  };
}

async function verdict(ref: string): Promise<string> {
  try {
    await client.readImageFiles(ref);
    return 'accepted';
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

describe('sigstore attachments', () => {
  it('accepts an image whose attachment is signed by the trusted key; refuses another key and no attachment', async () => {
    await setPolicy(trusted);
    const good = await pushImage('good');
    await attach('good', good, [signature(trusted, good, `${bed().registry.host}/good:v1`)]);
    expect(await verdict(`${bed().registry.host}/good:v1`)).toBe('accepted');
    expect(bed().registry.requests).toContain(`GET /v2/good/manifests/${good.replace(':', '-')}.sig`);

    const bad = await pushImage('bad');
    await attach('bad', bad, [signature(stranger, bad, `${bed().registry.host}/bad:v1`)]);
    expect(await verdict(`${bed().registry.host}/bad:v1`)).toBe(
      'error copying image: Source image rejected: cryptographic signature verification failed: invalid signature when validating ASN.1 encoded signature',
    );

    await pushImage('none');
    expect(await verdict(`${bed().registry.host}/none:v1`)).toBe(
      'error copying image: Source image rejected: A signature was required, but no signature exists',
    );
  });

  it('reads no attachments where registries.d does not enable them', async () => {
    await setPolicy(trusted);
    const good = await pushImage('off');
    await attach('off', good, [signature(trusted, good, `${bed().registry.host}/off:v1`)]);
    await writeFile(join(paths.systemRegistriesDir, 'a.yaml'), `docker:\n  ${bed().registry.host}/off:\n    use-sigstore-attachments: false\n`);
    expect(await verdict(`${bed().registry.host}/off:v1`)).toBe(
      'error copying image: Source image rejected: A signature was required, but no signature exists',
    );
    expect(bed().registry.requests.some((r) => r.startsWith('GET ') && r.includes('.sig'))).toBe(false);
  });

  it('a signature of another image, or an attachment manifest of another type, refuses the pull', async () => {
    await setPolicy(trusted);
    const digest = await pushImage('copied');
    await attach('copied', digest, [signature(trusted, `sha256:${'0'.repeat(64)}`, `${bed().registry.host}/copied:v1`)]);
    expect(await verdict(`${bed().registry.host}/copied:v1`)).toBe(
      `error copying image: Source image rejected: Signature for digest sha256:${'0'.repeat(64)} does not match`,
    );
    const other = await pushImage('docker-type');
    await attach(
      'docker-type',
      other,
      [signature(trusted, other, `${bed().registry.host}/docker-type:v1`)],
      'application/vnd.docker.distribution.manifest.v2+json',
    );
    expect(await verdict(`${bed().registry.host}/docker-type:v1`)).toMatch(
      /^error copying image: Source image rejected: unexpected MIME type for sigstore attachment manifest sha256-[0-9a-f]{64}\.sig in .*: "application\/vnd\.docker\.distribution\.manifest\.v2\+json"$/,
    );
  });
});
