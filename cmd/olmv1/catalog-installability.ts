/**
 * Whether OLM v1 can install a bundle, judged from catalog data alone (pure). Dependencies are
 * always judged; `olm.bundle.object` carries the manifests, so everything is judged as the
 * renderer judges it; `olm.csv.metadata` lacks webhooks and manifests, so those stay `unjudged`;
 * with neither, install modes are unjudged too. The gates are render's `checkPreRenderGates`, run
 * with and without each optional feature to tell "never" from "with configuration".
 */
import type { ClusterServiceVersion } from '../../pkg/operator-controller/bundle/index.ts';
import { decodeSingleDocument } from '../../pkg/operator-controller/bundle/index.ts';
import type { Bundle, JsonValue } from '../../pkg/shared/fbc/index.ts';
import { checkPreRenderGates, isSupportedKind } from '../../pkg/operator-controller/render/index.ts';
import { DEPENDENCY_PROPERTY_TYPES } from '../../pkg/operator-controller/resolve/index.ts';

/** What the catalog held that the verdict is based on. */
type Evidence = 'bundle-objects' | 'csv-metadata' | 'properties-only';

/**
 * The verdict on one bundle.
 * - `yes`: installs with a plain ClusterExtension;
 * - `conditional`: installs once `needs` are met (configuration or a cluster feature);
 * - `no`: operator-controller refuses it; `reason` says why (upstream's text where it has one).
 * `unjudged` lists what the catalog data could not show (empty with full bundle objects).
 */
export type Verdict =
  | { kind: 'yes'; evidence: Evidence; unjudged: string[] }
  | { kind: 'conditional'; needs: string[]; evidence: Evidence; unjudged: string[] }
  | { kind: 'no'; reason: string; evidence: Evidence; unjudged: string[] };

/** `spec.config.inline.watchNamespace` for bundles without AllNamespaces. */
export const NEEDS_WATCH_NAMESPACE = 'spec.config.inline.watchNamespace (the bundle supports OwnNamespace/SingleNamespace, not AllNamespaces)';
/** A certificate provider for bundles with webhooks. */
export const NEEDS_CERT_PROVIDER = 'a certificate provider for its webhooks (cert-manager or OpenShift service-CA) on operator-controller';

const UNJUDGED_WEBHOOKS = 'webhooks (olm.csv.metadata does not carry webhookdefinitions)';
const UNJUDGED_KINDS = 'manifest kinds (the catalog does not carry the manifests)';
const UNJUDGED_MODES = 'install modes and API services (no olm.csv.metadata or olm.bundle.object)';

/** Objects of the bundle's `olm.bundle.object` properties that decode; others are skipped. */
function bundleObjects(bundle: Bundle): { kind?: unknown; metadata?: { name?: unknown } }[] {
  const out: { kind?: unknown; metadata?: { name?: unknown } }[] = [];
  for (const p of bundle.properties) {
    if (p.type !== 'olm.bundle.object') continue;
    const data = isObject(p.value) ? p.value['data'] : undefined;
    if (typeof data !== 'string') continue;
    const decoded = decodeSingleDocument(Buffer.from(data, 'base64').toString('utf8'));
    if (decoded.ok && isObject(decoded.value)) out.push(decoded.value);
  }
  return out;
}

function isObject(v: JsonValue | undefined): v is { [key: string]: JsonValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A CSV holding what `olm.csv.metadata` tells about install modes and API services. */
function csvFromMetadata(value: JsonValue): ClusterServiceVersion {
  const meta = isObject(value) ? value : {};
  const modes = Array.isArray(meta['installModes']) ? meta['installModes'] : [];
  const apis = isObject(meta['apiServiceDefinitions']) ? meta['apiServiceDefinitions'] : {};
  const owned = Array.isArray(apis['owned']) ? apis['owned'] : [];
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    spec: {
      installModes: modes.filter(isObject).map((m) => ({ type: String(m['type'] ?? ''), supported: m['supported'] === true })),
      apiservicedefinitions: { owned },
    },
  };
}

/**
 * Judges `bundle` (see the module comment for what each kind of catalog data allows).
 * Never throws: undecodable bundle objects are skipped, missing data becomes `unjudged`.
 */
export function installability(bundle: Bundle): Verdict {
  const objects = bundleObjects(bundle);
  const csvObject = objects.find((o) => o.kind === 'ClusterServiceVersion');
  const metadata = bundle.properties.find((p) => p.type === 'olm.csv.metadata');
  const evidence: Evidence = csvObject !== undefined ? 'bundle-objects' : metadata !== undefined ? 'csv-metadata' : 'properties-only';
  const unjudged =
    evidence === 'bundle-objects'
      ? []
      : evidence === 'csv-metadata'
        ? [UNJUDGED_WEBHOOKS, UNJUDGED_KINDS]
        : [UNJUDGED_MODES, UNJUDGED_WEBHOOKS, UNJUDGED_KINDS];
  const no = (reason: string): Verdict => ({ kind: 'no', reason, evidence, unjudged });

  const dependency = bundle.properties.find((p) => DEPENDENCY_PROPERTY_TYPES.includes(p.type));
  if (dependency !== undefined) return no(`dependencies (${dependency.type}) are not supported by OLM v1`);

  if (evidence === 'bundle-objects') {
    const unsupported = objects.find((o) => typeof o.kind === 'string' && !isSupportedKind(o.kind));
    if (unsupported !== undefined) {
      return no(`unsupported resource ${JSON.stringify(String(unsupported.metadata?.name ?? ''))} with kind ${JSON.stringify(unsupported.kind)}`);
    }
  }
  const csv =
    evidence === 'bundle-objects' ? (csvObject as ClusterServiceVersion) : metadata !== undefined ? csvFromMetadata(metadata.value) : undefined;
  if (csv === undefined) return { kind: 'yes', evidence, unjudged };

  // Everything on: a refusal here is one no configuration lifts.
  const all = { webhookSupport: true, hasCertProvider: true, singleOwnNamespaceSupport: true };
  const never = checkPreRenderGates(csv, all);
  if (never !== undefined) return no(never);
  const needs: string[] = [];
  if (checkPreRenderGates(csv, { ...all, hasCertProvider: false }) !== undefined) needs.push(NEEDS_CERT_PROVIDER);
  if (checkPreRenderGates(csv, { ...all, singleOwnNamespaceSupport: false }) !== undefined) needs.push(NEEDS_WATCH_NAMESPACE);
  return needs.length === 0 ? { kind: 'yes', evidence, unjudged } : { kind: 'conditional', needs, evidence, unjudged };
}

/** The INSTALLABLE column: `yes`, `yes, with <needs>` or `no: <reason>`. */
export function verdictText(v: Verdict): string {
  if (v.kind === 'yes') return 'yes';
  if (v.kind === 'conditional') return `yes, with ${v.needs.join(' and ')}`;
  return `no: ${v.reason}`;
}
