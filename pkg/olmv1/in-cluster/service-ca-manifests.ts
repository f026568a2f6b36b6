/**
 * The objects that run the service-CA stand-in on the local node (pure): its namespace (where
 * it keeps its CA Secret), ServiceAccount, the ClusterRole of what it reads and writes (the
 * kinds service-ca-operator serves, nothing else) and one Deployment over the image built here.
 */

/** The stand-in's namespace; its CA Secret lives here. */
export const SERVICE_CA_NAMESPACE = 'olmv1-service-ca';
/** Its Deployment (also its ServiceAccount, ClusterRole and ClusterRoleBinding). */
export const SERVICE_CA_DEPLOYMENT = 'service-ca-stand-in';
/** The Secret holding the CA (type kubernetes.io/tls), created by the stand-in when absent. */
export const SERVICE_CA_SECRET = 'signing-key';

type Obj = Record<string, unknown>;

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
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: ns } },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules: RULES },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'ServiceAccount', name, namespace: ns }],
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: ns, labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: name,
            securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
            containers: [
              {
                name,
                image,
                args: [`--namespace=${ns}`, `--ca-secret=${SERVICE_CA_SECRET}`],
                ports: [{ name: 'health', containerPort: 8080 }],
                // Ready once it holds the CA.
                readinessProbe: { httpGet: { path: '/readyz', port: 'health' }, periodSeconds: 1 },
                securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
              },
            ],
          },
        },
      },
    },
  ];
  return { apiVersion: 'v1', kind: 'List', items };
}
