/**
 * pkg/operator-controller/crdupgrade: CRD upgrade safety (decision 0047), the rules upstream
 * runs through crdify before replacing an installed CRD, with its texts. Pure.
 */
export { checkCrdChanges, crdNames } from './check.ts';
export { isCrdV1 } from './crd.ts';
export { formatCrdUpgradeError } from './violation.ts';
