/**
 * pkg/shared/unstructured: the unstructured Kubernetes object type every module shares (see types.ts).
 */
export {
  gvkOf,
  objectKey,
  type GroupVersionKind,
  type KubeObject,
  type ObjectList,
  type ObjectMeta,
  type ObjectRef,
  type OwnerReference,
  type TypeRef,
  type WatchEvent,
} from './types.ts';
