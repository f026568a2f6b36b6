/**
 * containers-registries.d(5): where "simple signing" signatures of an image live. Every `*.yaml`
 * file of the directory is read; `default-docker` may appear in one file only and each `docker`
 * scope once, as containers/image's docker/registries_d.go requires. The entry for an image is
 * the most specific scope (the same order as the policy's, see scope.ts), else `default-docker`.
 *
 * Files are decoded as containers/image decodes them: sigs.k8s.io/yaml's Unmarshal (the Go-compatible
 * decoder of pkg/gocompat/goyaml: YAML 1.1 scalars, so `yes` and `on` are booleans; the first
 * document only), then encoding/json into its structs: keys matched to fields exactly, else
 * without regard to case; unknown keys ignored; `null` leaves a field unset; a value of the wrong
 * JSON type is an error.
 */
import { decodeSingleDocument } from '../../gocompat/goyaml/index.ts';
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

/** JSON's name of a value's type, as encoding/json's errors say it. */
function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}

/**
 * The object's entries assigned to `fields` as encoding/json assigns them to a struct: a key
 * names the field whose name it equals, else one it equals ignoring case; later keys win;
 * other keys are dropped. @throws for a value that is not an object (or null).
 */
function structFields(v: unknown, fields: readonly string[], where: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (v === null || v === undefined) return out;
  if (typeof v !== 'object' || Array.isArray(v)) throw new Error(`${where}: cannot unmarshal ${jsonKind(v)} into an object`);
  for (const [key, value] of Object.entries(v)) {
    const field = fields.find((f) => f === key) ?? fields.find((f) => f.toLowerCase() === key.toLowerCase());
    if (field !== undefined) out.set(field, value);
  }
  return out;
}

/** A string field: null or absent leaves it unset. */
function stringField(fields: Map<string, unknown>, name: string, where: string): string | undefined {
  const v = fields.get(name);
  if (v === null || v === undefined) return undefined;
  if (typeof v !== 'string') throw new Error(`${where}: cannot unmarshal ${jsonKind(v)} into ${name} of type string`);
  return v;
}

const NAMESPACE_FIELDS = ['lookaside', 'lookaside-staging', 'sigstore', 'sigstore-staging', 'use-sigstore-attachments'];

function namespace(v: unknown, where: string): RegistryNamespace {
  const fields = structFields(v, NAMESPACE_FIELDS, where);
  for (const name of ['lookaside-staging', 'sigstore-staging']) stringField(fields, name, where);
  // As signatureTopLevel reads them: an empty lookaside falls back to sigstore.
  const lookaside = stringField(fields, 'lookaside', where) || stringField(fields, 'sigstore', where);
  const attachments = fields.get('use-sigstore-attachments');
  if (attachments !== undefined && attachments !== null && typeof attachments !== 'boolean') {
    throw new Error(`${where}: cannot unmarshal ${jsonKind(attachments)} into use-sigstore-attachments of type bool`);
  }
  return { lookaside: lookaside === '' ? undefined : lookaside, useSigstoreAttachments: attachments ?? undefined };
}

/** Merges the parsed files (`[path, text]`, in directory order) into one configuration. */
export function parseRegistriesD(files: ReadonlyArray<readonly [string, string]>): Result<RegistriesD, string> {
  const merged: RegistriesD = { docker: new Map() };
  let defaultFrom: string | undefined;
  const scopeFrom = new Map<string, string>();
  for (const [file, text] of files) {
    try {
      const decoded = decodeSingleDocument(text);
      if (!decoded.ok) throw new Error(decoded.error);
      const top = structFields(decoded.value, ['default-docker', 'docker'], 'registries.d file');
      const defaultDocker = top.get('default-docker');
      if (defaultDocker !== undefined && defaultDocker !== null) {
        if (defaultFrom !== undefined)
          throw new Error(`Error parsing signature storage configuration: "default-docker" defined both in "${defaultFrom}" and "${file}"`);
        defaultFrom = file;
        merged.defaultDocker = namespace(defaultDocker, 'default-docker');
      }
      const docker = top.get('docker');
      if (docker !== undefined && docker !== null) {
        if (typeof docker !== 'object' || Array.isArray(docker)) throw new Error(`docker: cannot unmarshal ${jsonKind(docker)} into a mapping`);
        for (const [scope, ns] of Object.entries(docker)) {
          const earlier = scopeFrom.get(scope);
          if (earlier !== undefined)
            throw new Error(
              `Error parsing signature storage configuration: "docker" namespace "${scope}" defined both in "${earlier}" and "${file}"`,
            );
          scopeFrom.set(scope, file);
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
