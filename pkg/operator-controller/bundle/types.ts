/**
 * The registry+v1 bundle model: what `parseBundle` produces from a bundle's files and what
 * `pkg/operator-controller/render` turns into plain manifests.
 *
 * Objects are plain JSON-compatible values exactly as decoded from the manifests (after
 * YAML-to-JSON conversion). They are shared, not copied, with whatever consumes them: treat
 * every object reachable from a `RegistryV1Bundle` as read-only.
 */
import type { ClusterServiceVersion } from './csv-schema.ts';
import type { KubeObject, ObjectMeta } from '../../shared/unstructured/index.ts';

/** A JSON object as decoded from a manifest. */
export type JsonObject = { [key: string]: unknown };

/**
 * Objects of a bundle are pkg/shared/unstructured's KubeObject: `apiVersion` and `kind` are always
 * non-empty strings (the parser refuses documents without them) and `metadata` always an object
 * (`{}` when the manifest has none); everything else is as written.
 */
export type { KubeObject } from '../../shared/unstructured/index.ts';

/** A CustomResourceDefinition from the bundle: `metadata.name` is always a string. */
export interface CustomResourceDefinition extends KubeObject {
  metadata: ObjectMeta & { name: string };
}

/**
 * A parsed registry+v1 bundle.
 *
 * - `packageName`: `operators.operatorframework.io.bundle.package.v1` from
 *   `metadata/annotations.yaml` ("" when absent; rendering refuses it then).
 * - `csv`: the (last) ClusterServiceVersion, validated for the fields OLM uses, with the
 *   `olm.properties` annotation already merged with `metadata/properties.yaml`.
 * - `crds`: CustomResourceDefinitions in manifest order (files in lexical order).
 * - `others`: every other object, in manifest order.
 * - `otherLines`: set when parsed with `othersAsLines` (other-lines.ts): each other object's
 *   JSON, in order, with `others` holding their stubs; a renderer's caller takes each line once.
 */
export interface RegistryV1Bundle {
  packageName: string;
  csv: ClusterServiceVersion;
  crds: CustomResourceDefinition[];
  others: KubeObject[];
  otherLines?: OtherLines;
}

/**
 * Where a parse keeps the other objects' JSON lines (other-lines.ts): an array, or a store the
 * caller hands in (pkg/shared/lines keeps large bundles' lines in a file, decision 0098).
 */
export interface OtherLines {
  /** Lines pushed. */
  readonly length: number;
  /** Lines pushed and not dropped. */
  readonly left: number;
  /** Appends a line; returns the new length. */
  push(line: string): number;
  /** The line at `index`; undefined once dropped. */
  at(index: number): string | undefined;
  /** Lets go of the line at `index`. */
  drop(index: number): void;
}

/** A bundle's files: path relative to the bundle root (forward slashes) to content. */
export type BundleFiles = ReadonlyMap<string, Uint8Array>;
