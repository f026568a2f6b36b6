/**
 * Real image signatures made by real tools for the signature-policy tests: a GnuPG key made in
 * a private GNUPGHOME (`gpg --batch --passphrase '' --quick-gen-key`) and `skopeo copy
 * --sign-by`, which stores the "simple signing" signature in the lookaside directory a
 * registries.d file in the same work directory names (file://). Both come from Debian's
 * `gnupg` and `skopeo` packages (.ci/run installs them).
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export interface GpgKey {
  fingerprint: string;
  /** The exported public key (binary keyring), for a policy's keyPath. */
  publicKeyPath: string;
  gnupgHome: string;
}

/** Makes an RSA signing key named `name` in its own GNUPGHOME under `dir`. */
export async function makeGpgKey(dir: string, name: string): Promise<GpgKey> {
  const gnupgHome = join(dir, `gnupg-${name}`);
  await mkdir(gnupgHome, { recursive: true, mode: 0o700 });
  const env = { ...process.env, GNUPGHOME: gnupgHome };
  await exec('gpg', ['--batch', '--passphrase', '', '--quick-gen-key', `${name} <${name}@example.com>`, 'rsa2048', 'sign', 'never'], { env });
  const { stdout } = await exec('gpg', ['--batch', '--with-colons', '--list-keys'], { env });
  const fingerprint = /^fpr:+([0-9A-F]{40}):/m.exec(stdout)?.[1];
  if (fingerprint === undefined) throw new Error(`no fingerprint in gpg output: ${stdout}`);
  const publicKeyPath = join(dir, `${name}.gpg`);
  const { stdout: exported } = await exec('gpg', ['--batch', '--export', fingerprint], { env, encoding: 'buffer' });
  await writeFile(publicKeyPath, exported);
  return { fingerprint, publicKeyPath, gnupgHome };
}

/** A registries.d directory whose default lookaside is `<dir>/sigstore` (file://). */
export async function lookasideRegistriesD(dir: string): Promise<{ registriesDir: string; lookaside: string }> {
  const registriesDir = join(dir, 'registries.d');
  const lookaside = join(dir, 'sigstore');
  await mkdir(registriesDir, { recursive: true });
  await mkdir(lookaside, { recursive: true });
  await writeFile(join(registriesDir, 'default.yaml'), `default-docker:\n  lookaside: file://${lookaside}\n`);
  return { registriesDir, lookaside };
}

/**
 * Copies `from` to `to` on the plain-HTTP test registry with skopeo, signing the copy with `key`
 * (its signature goes to the lookaside `registriesDir` names).
 */
export async function skopeoSignedCopy(from: string, to: string, key: GpgKey, registriesDir: string): Promise<void> {
  await exec(
    'skopeo',
    [
      '--insecure-policy',
      '--registries.d',
      registriesDir,
      'copy',
      '--src-tls-verify=false',
      '--dest-tls-verify=false',
      '--sign-by',
      key.fingerprint,
      `docker://${from}`,
      `docker://${to}`,
    ],
    { env: { ...process.env, GNUPGHOME: key.gnupgHome } },
  );
}

/**
 * containers/image's own verdict (skopeo's build of it) on pulling `ref` under `policyFile`:
 * `accepted`, or the `Source image rejected: ...` text.
 */
export async function skopeoVerdict(ref: string, policyFile: string, registriesDir: string, outDir: string): Promise<string> {
  try {
    await exec('skopeo', [
      '--policy',
      policyFile,
      '--registries.d',
      registriesDir,
      'copy',
      '--src-tls-verify=false',
      `docker://${ref}`,
      `dir:${outDir}`,
    ]);
    return 'accepted';
  } catch (e) {
    const stderr = String((e as { stderr?: unknown }).stderr ?? e);
    const msg = /msg="((?:[^"\\]|\\.)*)"/.exec(stderr)?.[1];
    return msg === undefined ? stderr : msg.replace(/\\(.)/g, '$1');
  }
}

/** A sigstore key pair made by `cosign generate-key-pair` (encrypted private key, PEM public key). */
export interface SigstoreKey {
  privateKeyPath: string;
  publicKeyPath: string;
  passphrase: string;
}

/** Makes a cosign key pair named `name` under `dir` with the `cosign` binary at `cosign`. */
export async function makeSigstoreKey(cosign: string, dir: string, name: string): Promise<SigstoreKey> {
  const passphrase = `pass-${name}`;
  await exec(cosign, ['generate-key-pair', '--output-key-prefix', join(dir, name)], {
    cwd: dir,
    env: { ...process.env, COSIGN_PASSWORD: passphrase },
  });
  return { privateKeyPath: join(dir, `${name}.key`), publicKeyPath: join(dir, `${name}.pub`), passphrase };
}

/** A registries.d directory saying that sigstore signatures are OCI attachments (`use-sigstore-attachments`). */
export async function attachmentsRegistriesD(dir: string): Promise<string> {
  const registriesDir = join(dir, 'registries.d-sigstore');
  await mkdir(registriesDir, { recursive: true });
  await writeFile(join(registriesDir, 'default.yaml'), 'default-docker:\n  use-sigstore-attachments: true\n');
  return registriesDir;
}

/**
 * Signs `digestRef` (`host/repo@sha256:...` on the plain-HTTP test registry) with `cosign sign`
 * and the key pair `key`, without a transparency log: cosign stores the signature as the
 * attachment `sha256-<hex>.sig` and claims the repository (no tag) as the identity. (Debian's
 * skopeo 1.9.3 cannot make sigstore signatures: its `--sign-by-sigstore-private-key` fails with
 * `Debian-local change: sigstore disabled`.)
 */
export async function cosignSign(cosign: string, digestRef: string, key: SigstoreKey): Promise<void> {
  await exec(
    cosign,
    ['sign', '--key', key.privateKeyPath, '--tlog-upload=false', '--allow-http-registry', '--allow-insecure-registry', '--yes', digestRef],
    { env: { ...process.env, COSIGN_PASSWORD: key.passphrase } },
  );
}
