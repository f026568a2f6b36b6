/**
 * containers-registries.d(5): where "simple signing" signatures of an image live. Every `*.yaml`
 * file of the directory is read; `default-docker` may appear in one file only and each `docker`
 * scope once, as containers/image's docker/registries_d.go requires. The entry for an image is
 * the most specific scope (the same order as the policy's, see scope.ts), else `default-docker`.
 */
import { load } from 'js-yaml';
import { err, ok, type Result } from '../errors/index.ts';
import type { ImageReference } from './reference.ts';
import { policyIdentity, policyNamespaces } from './signature-scope.ts';

/** One namespace's settings (only what reading signatures needs). */
interface RegistryNamespace {
  /** `lookaside`, else the legacy `sigstore` key: the base URL of signatures. */
  lookaside?: string | undefined;
  useSigstoreAttachments?: boolean | undefined;
}

export interface RegistriesD {
  defaultDocker?: RegistryNamespace | undefined;
  docker: Map<string, RegistryNamespace>;
}

const NAMESPACE_KEYS = ['lookaside', 'lookaside-staging', 'sigstore', 'sigstore-staging', 'use-sigstore-attachments'];

function namespace(v: unknown, where: string): RegistryNamespace {
  if (v === null || v === undefined) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new Error(`${where}: not a mapping`);
  const o = v as Record<string, unknown>;
  for (const key of Object.keys(o)) if (!NAMESPACE_KEYS.includes(key)) throw new Error(`${where}: unknown key "${key}"`);
  const lookaside = o.lookaside ?? o.sigstore;
  if (lookaside !== undefined && typeof lookaside !== 'string') throw new Error(`${where}: lookaside is not a string`);
  const attachments = o['use-sigstore-attachments'];
  if (attachments !== undefined && typeof attachments !== 'boolean') throw new Error(`${where}: use-sigstore-attachments is not a boolean`);
  return { lookaside, useSigstoreAttachments: attachments };
}

/** Merges the parsed files (`[path, text]`, in directory order) into one configuration. */
export function parseRegistriesD(files: ReadonlyArray<readonly [string, string]>): Result<RegistriesD, string> {
  const merged: RegistriesD = { docker: new Map() };
  let defaultFrom: string | undefined;
  for (const [file, text] of files) {
    try {
      const doc = load(text, { filename: file, json: false });
      if (doc === null || doc === undefined) continue;
      if (typeof doc !== 'object' || Array.isArray(doc)) throw new Error('not a mapping');
      const o = doc as Record<string, unknown>;
      for (const key of Object.keys(o)) if (key !== 'default-docker' && key !== 'docker') throw new Error(`unknown key "${key}"`);
      if (o['default-docker'] !== undefined) {
        if (defaultFrom !== undefined)
          throw new Error(`Error parsing signature storage configuration: "default-docker" defined both in "${defaultFrom}" and "${file}"`);
        defaultFrom = file;
        merged.defaultDocker = namespace(o['default-docker'], 'default-docker');
      }
      const docker = o.docker;
      if (docker !== undefined && docker !== null) {
        if (typeof docker !== 'object' || Array.isArray(docker)) throw new Error('docker: not a mapping');
        for (const [scope, ns] of Object.entries(docker)) {
          if (merged.docker.has(scope))
            throw new Error(`Error parsing signature storage configuration: "docker" namespace "${scope}" defined more than once`);
          merged.docker.set(scope, namespace(ns, `docker "${scope}"`));
        }
      }
    } catch (e) {
      return err(`reading registries.d file ${JSON.stringify(file)}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return ok(merged);
}

/**
 * The value of `field` for `ref`: the most specific scope that sets it, else `default-docker`'s
 * (containers/image looks each setting up on its own, so a scope that sets only one does not
 * hide the other from a wider scope).
 */
function settingFor<K extends keyof RegistryNamespace>(config: RegistriesD, ref: ImageReference, field: K): RegistryNamespace[K] | undefined {
  for (const scope of [policyIdentity(ref), ...policyNamespaces(ref)]) {
    const value = config.docker.get(scope)?.[field];
    if (value !== undefined && value !== '') return value;
  }
  const value = config.defaultDocker?.[field];
  return value === '' ? undefined : value;
}

/** The lookaside base URL of `ref` (undefined: none configured). */
export function lookasideFor(config: RegistriesD, ref: ImageReference): string | undefined {
  return settingFor(config, ref, 'lookaside');
}

/** Whether `ref`'s sigstore signatures are read as OCI attachments (`use-sigstore-attachments`). */
export function useSigstoreAttachmentsFor(config: RegistriesD, ref: ImageReference): boolean {
  return settingFor(config, ref, 'useSigstoreAttachments') === true;
}

/**
 * The URL of signature number `index` (from 1) of the manifest `digest` under `base`:
 * `<base>/<repository path>@<algorithm>=<hex>/signature-<index>`.
 */
export function lookasideUrl(base: string, ref: ImageReference, digest: string, index: number): URL {
  const url = new URL(base);
  const [algorithm, hex] = digest.split(':');
  url.pathname = `${url.pathname.replace(/\/$/, '')}/${ref.path}@${algorithm}=${hex}/signature-${index}`;
  return url;
}
