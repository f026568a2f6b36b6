/**
 * zod schemas for the parts of a ClusterServiceVersion and a CustomResourceDefinition that OLM
 * reads, rejecting wrong types as upstream's typed decoding does, with a message naming the
 * path. Unknown fields pass through; `null` is accepted wherever a field is optional, as in Go.
 */
import { z } from 'zod';
import { formatPath } from '../../shared/api/index.ts';

const StringMap = z.record(z.string(), z.string());
const StringList = z.array(z.string());
const AnyObject = z.record(z.string(), z.unknown());

/** An RBAC PolicyRule; the five lists are what permission hashing encodes. */
export const PolicyRule = z.looseObject({
  verbs: StringList.nullish(),
  apiGroups: StringList.nullish(),
  resources: StringList.nullish(),
  resourceNames: StringList.nullish(),
  nonResourceURLs: StringList.nullish(),
});
export type PolicyRule = z.infer<typeof PolicyRule>;

/** `install.spec.permissions[]` / `install.spec.clusterPermissions[]`. */
export const StrategyPermission = z.looseObject({
  serviceAccountName: z.string().nullish(),
  rules: z.array(PolicyRule).nullish(),
});
export type StrategyPermission = z.infer<typeof StrategyPermission>;

const EnvVar = z.looseObject({ name: z.string() });
const VolumeMount = z.looseObject({ name: z.string(), mountPath: z.string().nullish() });
const Volume = z.looseObject({ name: z.string() });

/** The container fields deploymentConfig and certificate volumes modify. */
const Container = z.looseObject({
  name: z.string().nullish(),
  env: z.array(EnvVar).nullish(),
  envFrom: z.array(AnyObject).nullish(),
  volumeMounts: z.array(VolumeMount).nullish(),
  resources: AnyObject.nullish(),
});
type Container = z.infer<typeof Container>;

/** The pod spec fields rendering modifies. */
const PodSpec = z.looseObject({
  containers: z.array(Container).nullish(),
  volumes: z.array(Volume).nullish(),
  tolerations: z.array(AnyObject).nullish(),
  nodeSelector: StringMap.nullish(),
  affinity: z
    .looseObject({
      nodeAffinity: AnyObject.nullish(),
      podAffinity: AnyObject.nullish(),
      podAntiAffinity: AnyObject.nullish(),
    })
    .nullish(),
});
type PodSpec = z.infer<typeof PodSpec>;

/** A Deployment spec as embedded in the CSV install strategy. */
const DeploymentSpec = z.looseObject({
  selector: z.looseObject({ matchLabels: StringMap.nullish() }).nullish(),
  template: z
    .looseObject({
      metadata: z.looseObject({ annotations: StringMap.nullish(), labels: StringMap.nullish() }).nullish(),
      spec: PodSpec.nullish(),
    })
    .nullish(),
});
type DeploymentSpec = z.infer<typeof DeploymentSpec>;

/** `install.spec.deployments[]`. */
export const StrategyDeployment = z.looseObject({
  name: z.string().nullish(),
  spec: DeploymentSpec.nullish(),
  label: StringMap.nullish(),
});
export type StrategyDeployment = z.infer<typeof StrategyDeployment>;

/** An admission rule of a webhook definition. */
const RuleWithOperations = z.looseObject({
  apiGroups: StringList.nullish(),
  resources: StringList.nullish(),
});

/** `spec.webhookdefinitions[]` (v1alpha1 WebhookDescription). */
export const WebhookDescription = z.looseObject({
  generateName: z.string().nullish(),
  type: z.string().nullish(),
  deploymentName: z.string().nullish(),
  containerPort: z.number().int().nullish(),
  targetPort: z.union([z.number().int(), z.string()]).nullish(),
  rules: z.array(RuleWithOperations).nullish(),
  failurePolicy: z.string().nullish(),
  matchPolicy: z.string().nullish(),
  objectSelector: AnyObject.nullish(),
  sideEffects: z.string().nullish(),
  timeoutSeconds: z.number().int().nullish(),
  admissionReviewVersions: StringList.nullish(),
  reinvocationPolicy: z.string().nullish(),
  webhookPath: z.string().nullish(),
  conversionCRDs: StringList.nullish(),
});
export type WebhookDescription = z.infer<typeof WebhookDescription>;

/** `spec.installModes[]`. */
const InstallMode = z.looseObject({ type: z.string(), supported: z.boolean() });
type InstallMode = z.infer<typeof InstallMode>;

/**
 * The ClusterServiceVersion fields OLM reads; everything else is kept as is. Written out as
 * an interface (rather than inferred) because the inferred type is too deep for the
 * compiler; the schema below is checked against it.
 */
export interface ClusterServiceVersion {
  apiVersion: string;
  kind: 'ClusterServiceVersion';
  metadata?: { name?: string | null; annotations?: Record<string, string> | null; [k: string]: unknown } | null;
  spec?: CsvSpec | null;
  [k: string]: unknown;
}

/** `spec` of a ClusterServiceVersion (the fields OLM reads). */
interface CsvSpec {
  installModes?: InstallMode[] | null;
  install?: {
    strategy?: string | null;
    spec?: {
      deployments?: StrategyDeployment[] | null;
      permissions?: StrategyPermission[] | null;
      clusterPermissions?: StrategyPermission[] | null;
      [k: string]: unknown;
    } | null;
    [k: string]: unknown;
  } | null;
  customresourcedefinitions?: { owned?: { name: string; [k: string]: unknown }[] | null; [k: string]: unknown } | null;
  apiservicedefinitions?: { owned?: unknown[] | null; [k: string]: unknown } | null;
  webhookdefinitions?: WebhookDescription[] | null;
  [k: string]: unknown;
}

const CsvSpecSchema = z.looseObject({
  installModes: z.array(InstallMode).nullish(),
  install: z
    .looseObject({
      strategy: z.string().nullish(),
      spec: z
        .looseObject({
          deployments: z.array(StrategyDeployment).nullish(),
          permissions: z.array(StrategyPermission).nullish(),
          clusterPermissions: z.array(StrategyPermission).nullish(),
        })
        .nullish(),
    })
    .nullish(),
  customresourcedefinitions: z.looseObject({ owned: z.array(z.looseObject({ name: z.string() })).nullish() }).nullish(),
  apiservicedefinitions: z.looseObject({ owned: z.array(z.unknown()).nullish() }).nullish(),
  webhookdefinitions: z.array(WebhookDescription).nullish(),
});

/** Schema of `ClusterServiceVersion`. */
export const ClusterServiceVersion: z.ZodType<ClusterServiceVersion> = z.looseObject({
  apiVersion: z.string(),
  kind: z.literal('ClusterServiceVersion'),
  metadata: z.looseObject({ name: z.string().nullish(), annotations: StringMap.nullish() }).nullish(),
  spec: CsvSpecSchema.nullish() as z.ZodType<CsvSpec | null | undefined>,
});

/** The CustomResourceDefinition fields OLM reads (name, conversion settings, API identity). */
export const CustomResourceDefinitionSchema = z.looseObject({
  apiVersion: z.string(),
  kind: z.literal('CustomResourceDefinition'),
  metadata: z.looseObject({ name: z.string(), annotations: StringMap.nullish() }),
  spec: z
    .looseObject({
      group: z.string().nullish(),
      scope: z.string().nullish(),
      names: z.looseObject({ plural: z.string().nullish(), kind: z.string().nullish() }).nullish(),
      preserveUnknownFields: z.boolean().nullish(),
    })
    .nullish(),
});

/**
 * Renders zod issues as `path: message` lines joined with "; " (at most five, then a count),
 * e.g. `spec.installModes[0].supported: Invalid input: expected boolean, received string`.
 */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  const shown = issues.slice(0, 5).map((issue) => `${formatPath(issue.path)}: ${issueMessage(issue)}`);
  if (issues.length > 5) shown.push(`and ${issues.length - 5} more`);
  return shown.join('; ');
}

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_union') return 'Invalid input: expected integer or string';
  return issue.message;
}
