/**
 * The policy check of every pull that is not answered from the cache (as upstream's copy.Image
 * evaluates the policy context it loads per pull): load the policy and registries.d, evaluate,
 * and throw when the image is refused. No policy file at all: accept anything, logged, as
 * upstream; a policy that cannot be read or parsed refuses the pull (decision 0116).
 */
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { findCause } from '../errors/index.ts';
import type { ImageReference } from './reference.ts';
import { evaluatePolicy } from './signature-evaluate.ts';
import { useSigstoreAttachmentsFor, type RegistriesD } from './signature-registries-d.ts';
import type { SigstoreAttachment } from './signature-sigstore.ts';
import {
  MAX_CONFIG_BYTES,
  loadPolicy,
  loadRegistriesD,
  lookasideSignatures,
  readBounded,
  type LookasideHttp,
  type SignaturePolicyPaths,
} from './signature-load.ts';

/** An image the policy refuses: the message is upstream's `Source image rejected: <reason>`. */
export class SignaturePolicyRejectedError extends Error {
  readonly image: string;
  /** The policy scope that applied: `docker:<scope>`, `docker` (the transport's default) or `default`. */
  readonly scope: string;
  /** The requirement that refused, e.g. `signedBy (GPGKeys, keyPath /k.gpg, signedIdentity matchRepoDigestOrExact)`. */
  readonly requirement: string;
  readonly policyFile: string;

  constructor(reason: string, details: { image: string; scope: string; requirement: string; policyFile: string }) {
    super(`Source image rejected: ${reason}`);
    this.name = 'SignaturePolicyRejectedError';
    this.image = details.image;
    this.scope = details.scope;
    this.requirement = details.requirement;
    this.policyFile = details.policyFile;
  }
}

/** Checks one image before its content is used. */
export type SignaturePolicyCheck = (image: { ref: ImageReference; digest: string; name: string }, signal?: AbortSignal) => Promise<void>;

/** What the check reaches the network and the log through (the image client's). */
interface SignaturePolicyCheckDeps {
  /** http(s) lookaside reads (the image client's transport); unset: such a lookaside is an error. */
  lookasideHttp?: LookasideHttp | undefined;
  /**
   * The layers of an image's sigstore attachment manifest, read from the registry (the image
   * client's sources, credentials and TLS); unset: attachments enabled in registries.d are an error.
   */
  sigstoreAttachments?: ((ref: ImageReference, digest: string, signal?: AbortSignal) => Promise<SigstoreAttachment[]>) | undefined;
  log?: Pick<Logger, 'info' | 'warn' | 'debug'> | undefined;
}

/**
 * The check reading `paths` at each call.
 * @throws SignaturePolicyRejectedError when refused; Error `error loading policy context: ...`
 *   when the policy or registries.d cannot be read or parsed.
 */
export function signaturePolicyCheck(paths: SignaturePolicyPaths, deps: SignaturePolicyCheckDeps = {}): SignaturePolicyCheck {
  const { log, lookasideHttp, sigstoreAttachments } = deps;
  return async (image, signal) => {
    let loaded;
    try {
      loaded = await loadPolicy(paths);
    } catch (e) {
      throw new Error(`error loading policy context: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    if (loaded === undefined) {
      log?.info({ ref: image.name }, 'no default policy found, using insecure policy');
      return;
    }
    // registries.d is read once per check, and only when a requirement needs signatures.
    let registries: Promise<RegistriesD> | undefined;
    const registriesD = (): Promise<RegistriesD> => (registries ??= loadRegistriesD(paths));
    const decision = await evaluatePolicy(
      loaded.policy,
      { ref: image.ref, digest: image.digest },
      {
        readKey: async (path) => {
          const data = await readBounded(path, MAX_CONFIG_BYTES);
          if (data === undefined) await readFile(path); // throws the ENOENT error with its path
          return data ?? new Uint8Array();
        },
        signatures: async (img) => lookasideSignatures(await registriesD(), img, lookasideHttp, signal),
        sigstoreAttachments: async (img) => {
          if (!useSigstoreAttachmentsFor(await registriesD(), img.ref)) return [];
          if (sigstoreAttachments === undefined) throw new Error('no registry client configured for sigstore attachments');
          return sigstoreAttachments(img.ref, img.digest, signal);
        },
      },
    );
    if (decision.allowed) {
      log?.debug({ ref: image.name, scope: decision.scope, policy: loaded.file }, 'signature policy accepted image');
      return;
    }
    const details = { image: image.name, scope: decision.scope, requirement: decision.requirement, policyFile: loaded.file };
    log?.warn(
      { ref: image.name, scope: decision.scope, requirement: decision.requirement, policy: loaded.file, reason: decision.reason },
      'signature policy refused image',
    );
    throw new SignaturePolicyRejectedError(decision.reason, details);
  };
}

/**
 * For an Event's note: ` (image <ref>, policy <file>, scope <scope>, requirement <requirement>)`
 * when `err` is or wraps a signature-policy refusal, else `''` (condition texts stay upstream's).
 */
export function signaturePolicyDetail(err: unknown): string {
  const refused = findCause(err, (e): e is SignaturePolicyRejectedError => e instanceof SignaturePolicyRejectedError);
  if (refused === undefined) return '';
  return ` (image ${refused.image}, policy ${refused.policyFile}, scope ${refused.scope}, requirement ${refused.requirement})`;
}
