/**
 * Bundle validators run before generation (upstream `registryv1.BundleValidator`): every
 * check runs, in upstream's order, and all problems are joined with "\n". Texts and the
 * ordering inside each check are upstream's.
 */
import type { RegistryV1Bundle, WebhookDescription } from '../bundle/index.ts';
import { ownedCrdNames, strategyDeployments, supportedInstallModes, webhookDefinitions } from './csv-access.ts';
import { dns1123SubdomainErrors } from '../../shared/k8sname/index.ts';
import { goList, goQuote, goSorted, compareUtf8 } from '../../gocompat/gotext/index.ts';
import { isSupportedKind } from './resource-mapping.ts';

type Check = (bundle: RegistryV1Bundle) => string[];

/** The validators in upstream order. */
const BUNDLE_VALIDATORS: readonly Check[] = [
  checkDeploymentSpecUniqueness,
  checkDeploymentNameIsDNS1123Subdomain,
  checkCRDResourceUniqueness,
  checkOwnedCRDExistence,
  checkPackageNameNotEmpty,
  checkConversionWebhookSupport,
  checkWebhookDeploymentReferentialIntegrity,
  checkWebhookNameUniqueness,
  checkWebhookNameIsDNS1123Subdomain,
  checkConversionWebhookCRDReferenceUniqueness,
  checkConversionWebhooksReferenceOwnedCRDs,
  checkWebhookRules,
  checkObjectSupport,
];

/** All validator messages joined with "\n", or undefined when the bundle is valid. */
export function validateBundle(bundle: RegistryV1Bundle): string | undefined {
  const errors = BUNDLE_VALIDATORS.flatMap((check) => check(bundle));
  return errors.length === 0 ? undefined : errors.join('\n');
}

function duplicates(names: Iterable<string>): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) dup.add(name);
    seen.add(name);
  }
  return goSorted(dup);
}

function deploymentNames(bundle: RegistryV1Bundle): string[] {
  return strategyDeployments(bundle.csv).map((d) => d.name ?? '');
}

function whName(wh: WebhookDescription): string {
  return wh.generateName ?? '';
}

function whType(wh: WebhookDescription): string {
  return wh.type ?? '';
}

function checkDeploymentSpecUniqueness(bundle: RegistryV1Bundle): string[] {
  return duplicates(deploymentNames(bundle)).map((d) => `cluster service version contains duplicate strategy deployment spec '${d}'`);
}

function checkDeploymentNameIsDNS1123Subdomain(bundle: RegistryV1Bundle): string[] {
  const problems = new Map<string, string[]>();
  for (const name of deploymentNames(bundle)) {
    const errs = dns1123SubdomainErrors(name);
    if (errs.length > 0) problems.set(name, goSorted(errs));
  }
  return goSorted(problems.keys()).map(
    (name) => `invalid cluster service version strategy deployment name '${name}': ${(problems.get(name) ?? []).join(', ')}`,
  );
}

function checkCRDResourceUniqueness(bundle: RegistryV1Bundle): string[] {
  return duplicates(bundle.crds.map((c) => c.metadata.name)).map((n) => `bundle contains duplicate custom resource definition '${n}'`);
}

function checkOwnedCRDExistence(bundle: RegistryV1Bundle): string[] {
  const present = new Set(bundle.crds.map((c) => c.metadata.name));
  const missing = new Set(ownedCrdNames(bundle.csv).filter((n) => !present.has(n)));
  return goSorted(missing).map((n) => `cluster service definition references owned custom resource definition '${n}' not found in bundle`);
}

function checkPackageNameNotEmpty(bundle: RegistryV1Bundle): string[] {
  return bundle.packageName === '' ? ['package name is empty'] : [];
}

function checkConversionWebhookSupport(bundle: RegistryV1Bundle): string[] {
  const names = webhookDefinitions(bundle.csv)
    .filter((wh) => whType(wh) === 'ConversionWebhook')
    .map(whName);
  if (names.length === 0) return [];
  const modes = supportedInstallModes(bundle.csv);
  if (modes.size === 1 && modes.has('AllNamespaces')) return [];
  const sorted = goList(goSorted(modes));
  return names.map(
    (n) =>
      `bundle contains conversion webhook ${goQuote(n)} and supports install modes ${sorted} - conversion webhooks are only supported for bundles that only support AllNamespaces install mode`,
  );
}

function checkWebhookDeploymentReferentialIntegrity(bundle: RegistryV1Bundle): string[] {
  const known = new Set(deploymentNames(bundle));
  const byDeployment = new Map<string, WebhookDescription[]>();
  for (const wh of webhookDefinitions(bundle.csv)) {
    const dep = wh.deploymentName ?? '';
    if (known.has(dep)) continue;
    byDeployment.set(dep, [...(byDeployment.get(dep) ?? []), wh]);
  }
  const out: string[] = [];
  for (const dep of goSorted(byDeployment.keys())) {
    const whs = [...(byDeployment.get(dep) ?? [])].sort((a, b) => compareUtf8(whType(a), whType(b)) || compareUtf8(whName(a), whName(b)));
    for (const wh of whs) {
      out.push(`webhook of type '${whType(wh)}' with name '${whName(wh)}' references non-existent deployment '${dep}'`);
    }
  }
  return out;
}

function checkWebhookNameUniqueness(bundle: RegistryV1Bundle): string[] {
  const byType = new Map<string, string[]>();
  for (const wh of webhookDefinitions(bundle.csv)) byType.set(whType(wh), [...(byType.get(whType(wh)) ?? []), whName(wh)]);
  const out: string[] = [];
  for (const type of goSorted(byType.keys())) {
    for (const name of duplicates(byType.get(type) ?? [])) out.push(`duplicate webhook '${name}' of type '${type}'`);
  }
  return out;
}

function checkWebhookNameIsDNS1123Subdomain(bundle: RegistryV1Bundle): string[] {
  const byType = new Map<string, Map<string, string[]>>();
  for (const wh of webhookDefinitions(bundle.csv)) {
    const errs = dns1123SubdomainErrors(whName(wh));
    if (errs.length === 0) continue;
    const forType = byType.get(whType(wh)) ?? new Map<string, string[]>();
    forType.set(whName(wh), goSorted(errs));
    byType.set(whType(wh), forType);
  }
  const out: string[] = [];
  for (const type of goSorted(byType.keys())) {
    const forType = byType.get(type) ?? new Map<string, string[]>();
    for (const name of goSorted(forType.keys())) {
      out.push(`webhook of type '${type}' has invalid name '${name}': ${(forType.get(name) ?? []).join(',')}`);
    }
  }
  return out;
}

function checkConversionWebhookCRDReferenceUniqueness(bundle: RegistryV1Bundle): string[] {
  const crdToWebhooks = new Map<string, string[]>();
  for (const wh of webhookDefinitions(bundle.csv)) {
    if (whType(wh) !== 'ConversionWebhook') continue;
    for (const crd of wh.conversionCRDs ?? []) crdToWebhooks.set(crd, [...(crdToWebhooks.get(crd) ?? []), whName(wh)]);
  }
  const out: string[] = [];
  for (const crd of goSorted(crdToWebhooks.keys())) {
    const whs = crdToWebhooks.get(crd) ?? [];
    if (whs.length > 1) {
      out.push(`conversion webhooks [${goSorted(whs).join(',')}] reference same custom resource definition '${crd}'`);
    }
  }
  return out;
}

function checkConversionWebhooksReferenceOwnedCRDs(bundle: RegistryV1Bundle): string[] {
  const conversion = webhookDefinitions(bundle.csv).filter((wh) => whType(wh) === 'ConversionWebhook');
  if (conversion.length === 0) return [];
  const owned = new Set(ownedCrdNames(bundle.csv));
  const out: string[] = [];
  for (const wh of [...conversion].sort((a, b) => compareUtf8(whName(a), whName(b)))) {
    for (const crd of goSorted(wh.conversionCRDs ?? [])) {
      if (!owned.has(crd)) {
        out.push(`conversion webhook '${whName(wh)}' references custom resource definition '${crd}' not owned bundle`);
      }
    }
  }
  return out;
}

const FORBIDDEN_GROUPS = new Set(['olm.operatorframework.io', '*']);
const FORBIDDEN_ADMISSION_RESOURCES = new Set([
  '*',
  'mutatingwebhookconfiguration',
  'mutatingwebhookconfigurations',
  'validatingwebhookconfiguration',
  'validatingwebhookconfigurations',
]);

function checkWebhookRules(bundle: RegistryV1Bundle): string[] {
  const out: string[] = [];
  for (const wh of webhookDefinitions(bundle.csv)) {
    if (whType(wh) === 'ConversionWebhook') continue;
    const name = goQuote(whName(wh));
    for (const rule of wh.rules ?? []) {
      for (const group of rule.apiGroups ?? []) {
        if (FORBIDDEN_GROUPS.has(group)) {
          out.push(`webhook ${name} contains forbidden rule: admission webhook rules cannot reference API group ${goQuote(group)}`);
        }
        if (group !== 'admissionregistration.k8s.io') continue;
        for (const resource of rule.resources ?? []) {
          if (FORBIDDEN_ADMISSION_RESOURCES.has(resource.toLowerCase())) {
            out.push(
              `webhook ${name} contains forbidden rule: admission webhook rules cannot reference resource ${goQuote(resource)} for API group ${goQuote(group)}`,
            );
          }
        }
      }
    }
  }
  return out;
}

function checkObjectSupport(bundle: RegistryV1Bundle): string[] {
  const out: string[] = [];
  for (const obj of bundle.others) {
    if (!isSupportedKind(obj.kind)) {
      const name = typeof obj.metadata?.name === 'string' ? obj.metadata.name : '';
      out.push(`unsupported resource ${goQuote(name)} with kind ${goQuote(obj.kind)}`);
    }
  }
  return out;
}
