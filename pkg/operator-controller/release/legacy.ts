/**
 * The payload format this project wrote before Helm's release JSON. Records of it are still
 * read, never written: a revision is rewritten in Helm's format at its next update.
 */
import { z } from 'zod';
import type { KubeObject } from '../../shared/kube/index.ts';
import { isKubeObject } from './manifest.ts';
import { Manifest } from './manifest.ts';
import { ReleaseStatus, type Release } from './types.ts';

const ManifestObject = z.custom<KubeObject>(isKubeObject, { message: 'expected an object with apiVersion, kind and metadata' });

/** A release as the earlier format stored it. */
const LegacyRelease = z.object({
  extension: z.string().min(1),
  extensionUID: z.string(),
  revision: z.number().int().positive(),
  status: z.enum([
    ReleaseStatus.PendingInstall,
    ReleaseStatus.PendingUpgrade,
    ReleaseStatus.Deployed,
    ReleaseStatus.Superseded,
    ReleaseStatus.Failed,
  ]),
  bundle: z.object({
    package: z.string(),
    name: z.string(),
    version: z.string(),
    release: z.string().optional(),
    image: z.string(),
    digestRef: z.string().optional(),
  }),
  manifest: z.array(ManifestObject),
  properties: z.array(z.unknown()),
  config: z.record(z.string(), z.unknown()).optional(),
  notes: z
    .object({
      droppedFields: z.array(z.object({ object: z.string(), paths: z.array(z.string()) })).optional(),
      keptObjects: z.array(z.string()).optional(),
      skippedObjects: z.array(z.string()).optional(),
    })
    .optional(),
  description: z.string(),
  firstDeployed: z.string().optional(),
  lastDeployed: z.string().optional(),
});

/**
 * True when `doc` is in the earlier format: it names the release `extension`, where Helm's
 * JSON says `name`.
 */
export function isLegacyRelease(doc: unknown): boolean {
  return typeof doc === 'object' && doc !== null && !Array.isArray(doc) && 'extension' in doc && !('name' in doc);
}

/** Reads a record of the earlier format, or says what is wrong with it. */
export function fromLegacyRelease(doc: unknown): { ok: true; release: Release } | { ok: false; problem: string } {
  const parsed = LegacyRelease.safeParse(doc);
  if (!parsed.success) {
    return { ok: false, problem: parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ') };
  }
  return { ok: true, release: { ...parsed.data, manifest: Manifest.ofObjects(parsed.data.manifest) } };
}
