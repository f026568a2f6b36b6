/**
 * pkg/operator-controller/crdupgrade: CRD upgrade safety (decision 0047), the rules upstream
 * runs through crdify before replacing an installed CRD, with its texts. Pure; and, behind an
 * opt-in (decision 0120), the stored custom resources validated against the new schema as the
 * API server would (stored-validate.ts, pure) by a paged scan (stored-scan.ts, the I/O edge),
 * whose verdict is kept while a watch sees no change (stored-cache.ts, decision 0129).
 */
export { checkCrdChanges, crdNames } from './check.ts';
export { isCrdV1 } from './crd.ts';
export { formatCrdUpgradeError } from './violation.ts';
export { STORED_OBJECTS_ANNOTATION, storedObjectsOptIn, storedObjectsVerdict, type StoredVerdict } from './stored-decide.ts';
export { StoredVerdictCache } from './stored-cache.ts';
export { validateObject } from './stored-validate.ts';
export { normalizeSchema, type Json } from './schema.ts';
