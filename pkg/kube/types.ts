/**
 * The object shapes the client sends and receives: pkg/unstructured's, shared with the bundle
 * parser, the renderer and the applier.
 */
export {
  gvkOf,
  objectKey,
  splitObjectKey,
  type GroupVersionKind,
  type KubeObject,
  type ObjectList,
  type ObjectMeta,
  type ObjectRef,
  type OwnerReference,
  type TypeRef,
  type WatchEvent,
} from '../unstructured/index.ts';
