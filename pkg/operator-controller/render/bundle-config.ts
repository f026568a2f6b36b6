/**
 * `spec.config.inline` handling for registry+v1 bundles: schema validation, then extraction of
 * `watchNamespace` and `deploymentConfig`. Failures carry upstream's full, terminal texts
 * (`invalid ClusterExtension configuration: invalid configuration: ...`, and `invalid
 * deploymentConfig: failed to unmarshal deploymentConfig: ...` for values Kubernetes types reject).
 */
import { err, ok, type Result } from '../../shared/errors/index.ts';
import type { JsonObject } from '../bundle/index.ts';
import { DEPLOYMENT_CONFIG_FIELDS, K8S_TYPES, type FieldType } from './config-k8s-types.ts';
import { formatSchemaError } from './config-errors.ts';
import { buildConfigSchema } from './config-schema.ts';
import { validateSchema } from './json-schema.ts';

/** Deployment customisations (OLM v0 SubscriptionConfig without `selector`); unknown nested fields dropped, as upstream's typed decoding does. */
export interface DeploymentConfig {
  env?: JsonObject[];
  envFrom?: JsonObject[];
  volumes?: JsonObject[];
  volumeMounts?: JsonObject[];
  tolerations?: JsonObject[];
  resources?: JsonObject;
  nodeSelector?: Record<string, string>;
  affinity?: JsonObject;
  annotations?: Record<string, string>;
}

/** The validated configuration: both parts are undefined when not set (or set to null). */
export interface BundleConfig {
  watchNamespace?: string;
  deploymentConfig?: DeploymentConfig;
}

/** Inputs of `unmarshalBundleConfig`. */
interface BundleConfigOptions {
  /** Install mode types the CSV marks `supported: true`. */
  supportedModes: ReadonlySet<string>;
  installNamespace: string;
  deploymentConfigEnabled: boolean;
}

/**
 * Validates `config` (the decoded `spec.config.inline`; undefined counts as `{}`)
 * and extracts its parts. See the module comment for the error texts.
 */
export function unmarshalBundleConfig(config: unknown, opts: BundleConfigOptions): Result<BundleConfig, string> {
  const value = config === undefined ? {} : config;
  const failure = validateSchema(buildConfigSchema(opts), value);
  if (failure !== undefined) {
    return err(`invalid ClusterExtension configuration: invalid configuration: ${formatSchemaError(failure)}`);
  }
  const record = value as Record<string, unknown>;
  const out: BundleConfig = {};
  const watch = record['watchNamespace'];
  if (watch !== undefined && watch !== null) out.watchNamespace = String(watch);
  const dc = record['deploymentConfig'];
  if (opts.deploymentConfigEnabled && dc !== undefined && dc !== null) {
    const decoded = decodeStruct(DEPLOYMENT_CONFIG_FIELDS, 'SubscriptionConfig', dc as JsonObject, []);
    if (!decoded.ok) return err(`invalid deploymentConfig: failed to unmarshal deploymentConfig: ${decoded.error}`);
    out.deploymentConfig = decoded.value as DeploymentConfig;
  }
  return ok(out);
}

const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const QUANTITY = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const QUANTITY_NUMBER = /^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$/;
const QUANTITY_SUFFIX = /^(|[numkMGTPE]|[KMGTPE]i|[eE][-+]?[0-9]+)$/;

const INT_RANGES = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  int64: [-(2 ** 63), 2 ** 63 - 1],
} as const;

// Decodes a schema-valid value the way Go's typed JSON decoding would: unknown fields are
// dropped, quantities parsed, integers range-checked. `path` holds the JSON field names from
// the SubscriptionConfig root (Go's UnmarshalTypeError field path).
function decodeStruct(
  fields: Readonly<Record<string, FieldType>>,
  structName: string,
  value: JsonObject,
  path: readonly string[],
): Result<JsonObject, string> {
  const out: JsonObject = {};
  for (const [rawName, type] of Object.entries(fields)) {
    const name = rawName.replace(/^!/, '');
    if (!Object.hasOwn(value, name)) continue;
    const decoded = decodeField(type, structName, value[name], [...path, name]);
    if (!decoded.ok) return decoded;
    out[name] = decoded.value;
  }
  return ok(out);
}

function decodeField(type: FieldType, structName: string, value: unknown, path: readonly string[]): Result<unknown, string> {
  if (value === null || value === undefined) return ok(value);
  if (type === 'int32' || type === 'int64') {
    const [min, max] = INT_RANGES[type];
    if (typeof value === 'number' && (value < min || value > max)) {
      return err(`json: cannot unmarshal number ${String(value)} into Go struct field ${structName}.${path.join('.')} of type ${type}`);
    }
    return ok(value);
  }
  if (type === 'string' || type === 'bool') return ok(value);
  if (type.startsWith('[]')) {
    const items: unknown[] = [];
    for (const item of value as unknown[]) {
      const decoded = decodeField(type.slice(2), structName, item, path);
      if (!decoded.ok) return decoded;
      items.push(decoded.value);
    }
    return ok(items);
  }
  if (type.startsWith('map<')) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value as JsonObject)) {
      const decoded = decodeField(type.slice(4, -1), structName, v, [...path, k]);
      if (!decoded.ok) return decoded;
      out[k] = decoded.value;
    }
    return ok(out);
  }
  const target = type.slice(1);
  if (target === 'Quantity') return decodeQuantity(value);
  if (target === 'Time' || target === 'FieldsV1') return ok(value);
  const fields = K8S_TYPES[target];
  if (fields === undefined) return ok(value);
  return decodeStruct(fields, target, value as JsonObject, path);
}

/** Checks a resource quantity as Kubernetes' `ParseQuantity` does; numbers are accepted. */
function decodeQuantity(value: unknown): Result<unknown, string> {
  if (typeof value === 'number') return ok(value);
  const text = String(value).trim();
  const m = QUANTITY.exec(text);
  if (text === '' || m === null || !QUANTITY_NUMBER.test(m[1] as string)) return err(QUANTITY_FORMAT_ERROR);
  if (!QUANTITY_SUFFIX.test(m[2] as string)) return err("unable to parse quantity's suffix");
  return ok(value);
}
