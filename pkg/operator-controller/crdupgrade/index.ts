/**
 * pkg/operator-controller/crdupgrade: CRD upgrade safety (decision 0047), the rules upstream
 * OLM runs through crdify before it replaces an installed CustomResourceDefinition, with its
 * texts. Pure: the installed and the proposed CRDs in, the violations out; reading the
 * installed CRD and reporting are operator-controller's (pkg/operator-controller/clusterextension).
 */
export { checkCrdChanges, crdNames } from './compare.ts';
export { isCrdV1 } from './crd.ts';
export { formatCrdUpgradeError } from './violation.ts';
