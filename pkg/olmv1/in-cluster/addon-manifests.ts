/**
 * The objects that run the node's add-ons (pure), one `v1` List each: cert-manager (as
 * upstream's manifests lay it out, under the same names; its CRDs come from its module) and the
 * service-CA stand-in (RBAC for the kinds service-ca-operator serves, nothing else).
 */
import type { CertManagerImages } from '../images/index.ts';

type Obj = Record<string, unknown>;

/** A ServiceAccount, a ClusterRole `role` with `rules` and the binding of the one to the other. */
function accountWithClusterRole(namespace: string, account: string, role: string, rules: Obj[]): Obj[] {
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: account, namespace } },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: role }, rules },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: role },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ kind: 'ServiceAccount', name: account, namespace }],
    },
  ];
}

/** One replica of `image` as non-root with a read-only root and no capabilities; `extra` goes into the container. */
function deployment(
  namespace: string,
  name: string,
  labels: Record<string, string>,
  serviceAccount: string,
  image: string,
  args: string[],
  extra: Obj = {},
): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: serviceAccount,
          securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
          containers: [
            {
              name,
              image,
              args,
              securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
              ...extra,
            },
          ],
        },
      },
    },
  };
}

/** cert-manager's namespace, also its cluster resource namespace (ClusterIssuers' Secrets). */
export const CERT_MANAGER_NAMESPACE = 'cert-manager';
/** Its three Deployments. */
export const CERT_MANAGER_DEPLOYMENTS = ['cert-manager', 'cert-manager-webhook', 'cert-manager-cainjector'] as const;
/** The Secret holding the CA the webhook serves with (cainjector copies it into caBundle). */
const WEBHOOK_CA_SECRET = 'cert-manager-webhook-ca';

const rule = (apiGroups: string[], resources: string[], verbs: string[], resourceNames?: string[]): Obj => ({
  apiGroups,
  resources,
  verbs,
  ...(resourceNames === undefined ? {} : { resourceNames }),
});
const READ = ['get', 'list', 'watch'];
const WRITE = ['get', 'list', 'watch', 'update', 'patch'];
const ALL = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

/** What each component may do: upstream's Helm chart's rules for the features built here. */
const ROLES: Record<string, Obj[]> = {
  'cert-manager-controller': [
    rule(['cert-manager.io'], ['issuers', 'clusterissuers', 'certificates', 'certificaterequests'], ALL),
    rule(['cert-manager.io'], ['issuers/status', 'clusterissuers/status', 'certificates/status', 'certificaterequests/status'], ['update', 'patch']),
    rule(['cert-manager.io'], ['certificates/finalizers', 'certificaterequests/finalizers'], ['update']),
    // The approver approves requests of cert-manager's own issuers; the webhook checks this grant.
    rule(['cert-manager.io'], ['signers'], ['approve'], ['issuers.cert-manager.io/*', 'clusterissuers.cert-manager.io/*']),
    rule(['acme.cert-manager.io'], ['orders', 'challenges'], READ),
    rule([''], ['secrets'], ALL),
    rule([''], ['events'], ['create', 'patch']),
  ],
  'cert-manager-cainjector': [
    rule(['cert-manager.io'], ['certificates'], READ),
    rule([''], ['secrets'], READ),
    rule([''], ['events'], ['create', 'patch']),
    rule(['admissionregistration.k8s.io'], ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations'], WRITE),
    rule(['apiregistration.k8s.io'], ['apiservices'], WRITE),
    rule(['apiextensions.k8s.io'], ['customresourcedefinitions'], WRITE),
  ],
  'cert-manager-webhook': [rule(['authorization.k8s.io'], ['subjectaccessreviews'], ['create'])],
};

const labels = (name: string): Record<string, string> => ({ 'app.kubernetes.io/name': name, 'app.kubernetes.io/instance': 'cert-manager' });

/** Everything but the CRDs, as one `v1` List (apply after the CRDs). */
export function certManagerManifests(images: CertManagerImages): Obj {
  const ns = CERT_MANAGER_NAMESPACE;
  const items: Obj[] = [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }];
  const accounts = {
    'cert-manager-controller': 'cert-manager',
    'cert-manager-cainjector': 'cert-manager-cainjector',
    'cert-manager-webhook': 'cert-manager-webhook',
  };
  for (const [role, account] of Object.entries(accounts)) items.push(...accountWithClusterRole(ns, account, role, ROLES[role] ?? []));
  // The webhook keeps its serving CA in a Secret of its own namespace.
  items.push({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'cert-manager-webhook:dynamic-serving', namespace: ns },
    rules: [rule([''], ['secrets'], ['get', 'list', 'watch', 'create', 'update'])],
  });
  items.push({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'cert-manager-webhook:dynamic-serving', namespace: ns },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cert-manager-webhook:dynamic-serving' },
    subjects: [{ kind: 'ServiceAccount', name: 'cert-manager-webhook', namespace: ns }],
  });
  items.push(deployment(ns, 'cert-manager', labels('cert-manager'), 'cert-manager', images.controller, [`--cluster-resource-namespace=${ns}`]));
  items.push(deployment(ns, 'cert-manager-cainjector', labels('cert-manager-cainjector'), 'cert-manager-cainjector', images.cainjector, []));
  const dnsNames = ['cert-manager-webhook', `cert-manager-webhook.${ns}`, `cert-manager-webhook.${ns}.svc`];
  items.push(
    deployment(
      ns,
      'cert-manager-webhook',
      labels('cert-manager-webhook'),
      'cert-manager-webhook',
      images.webhook,
      [
        '--secure-port=10250',
        '--healthz-port=6080',
        `--dynamic-serving-ca-secret-namespace=${ns}`,
        `--dynamic-serving-ca-secret-name=${WEBHOOK_CA_SECRET}`,
        `--dynamic-serving-dns-names=${dnsNames.join(',')}`,
      ],
      {
        ports: [{ name: 'https', containerPort: 10250 }],
        readinessProbe: { httpGet: { path: '/healthz', port: 6080 }, periodSeconds: 2 },
      },
    ),
  );
  items.push({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'cert-manager-webhook', namespace: ns },
    spec: { selector: labels('cert-manager-webhook'), ports: [{ name: 'https', port: 443, targetPort: 'https' }] },
  });
  const clientConfig = (path: string): Obj => ({ service: { name: 'cert-manager-webhook', namespace: ns, path } });
  const webhook = (path: string, rules: Obj[]): Obj => ({
    name: 'webhook.cert-manager.io',
    admissionReviewVersions: ['v1'],
    clientConfig: clientConfig(path),
    rules,
    failurePolicy: 'Fail',
    sideEffects: 'None',
    timeoutSeconds: 30,
  });
  const annotations = { 'cert-manager.io/inject-ca-from-secret': `${ns}/${WEBHOOK_CA_SECRET}` };
  items.push({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'cert-manager-webhook', annotations },
    webhooks: [
      webhook('/validate', [
        { apiGroups: ['cert-manager.io', 'acme.cert-manager.io'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['*/*'] },
      ]),
    ],
  });
  items.push({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'cert-manager-webhook', annotations },
    webhooks: [
      webhook('/mutate', [{ apiGroups: ['cert-manager.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['certificaterequests'] }]),
    ],
  });
  return { apiVersion: 'v1', kind: 'List', items };
}

/** A self-signed ClusterIssuer (what upstream's end-to-end setup issues its CA from). */
export function selfSignedClusterIssuer(name: string): Obj {
  return { apiVersion: 'cert-manager.io/v1', kind: 'ClusterIssuer', metadata: { name }, spec: { selfSigned: {} } };
}

/** The stand-in's namespace; its CA Secret lives here. */
export const SERVICE_CA_NAMESPACE = 'olmv1-service-ca';
/** Its Deployment (also its ServiceAccount, ClusterRole and ClusterRoleBinding). */
export const SERVICE_CA_DEPLOYMENT = 'service-ca-stand-in';
/** The Secret holding the CA (type kubernetes.io/tls), created by the stand-in when absent. */
export const SERVICE_CA_SECRET = 'signing-key';

const READ_UPDATE = ['get', 'list', 'update'];

/**
 * What the stand-in may do: read and update annotated Services (their status annotations),
 * create and renew serving Secrets (and its CA Secret), update the objects it injects into.
 */
const RULES: Obj[] = [
  { apiGroups: [''], resources: ['services', 'configmaps'], verbs: READ_UPDATE },
  { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'create', 'update'] },
  { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: READ_UPDATE },
  {
    apiGroups: ['admissionregistration.k8s.io'],
    resources: ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations'],
    verbs: READ_UPDATE,
  },
  { apiGroups: ['apiregistration.k8s.io'], resources: ['apiservices'], verbs: READ_UPDATE },
];

/** Everything the stand-in needs, as one `v1` List. */
export function serviceCaManifests(image: string): Obj {
  const ns = SERVICE_CA_NAMESPACE;
  const name = SERVICE_CA_DEPLOYMENT;
  const labels = { 'app.kubernetes.io/name': name };
  const items: Obj[] = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    ...accountWithClusterRole(ns, name, name, RULES),
    deployment(ns, name, labels, name, image, [`--namespace=${ns}`, `--ca-secret=${SERVICE_CA_SECRET}`], {
      ports: [{ name: 'health', containerPort: 8080 }],
      // Ready once it holds the CA.
      readinessProbe: { httpGet: { path: '/readyz', port: 'health' }, periodSeconds: 1 },
    }),
  ];
  return { apiVersion: 'v1', kind: 'List', items };
}
