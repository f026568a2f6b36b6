/**
 * pkg/olmv1/crd-deletion: the opt-in deletion of an uninstalled extension's
 * CustomResourceDefinitions and their custom resources (`olmv1 uninstall --delete-crds`,
 * decision 0119): the preview and its refusals.
 */
export { CRD_TYPE, previewCrdDeletion, previewSummary, type CrdToDelete, type DeletionPreview, type PreviewPorts } from './preview.ts';
