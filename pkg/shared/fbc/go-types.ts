/**
 * Go type descriptors of the FBC schema structs (operator-registry `declcfg`), the typed
 * property values (`alpha/property`) and the operator-framework API types they embed. Names
 * and JSON field names are upstream's: they appear verbatim in decoding error messages.
 */
import {
  GO_BOOL,
  GO_BYTES,
  GO_INT32,
  GO_RAW,
  GO_STRING,
  GO_STRING_MAP,
  GO_STRINGS,
  type GoStruct,
  type GoType,
  goSlice,
  goStruct,
} from './go-json-decode.ts';

const PROPERTY = goStruct('property.Property', { type: GO_STRING, value: GO_RAW });
const PROPERTIES = goSlice(PROPERTY, '[]property.Property');

/** `declcfg.Package` */
export const GO_PACKAGE = goStruct('declcfg.Package', {
  schema: GO_STRING,
  name: GO_STRING,
  defaultChannel: GO_STRING,
  icon: { kind: 'ptr', elem: goStruct('declcfg.Icon', { base64data: GO_BYTES, mediatype: GO_STRING }) },
  description: GO_STRING,
  properties: PROPERTIES,
});

/** `declcfg.Channel` */
export const GO_CHANNEL = goStruct('declcfg.Channel', {
  schema: GO_STRING,
  name: GO_STRING,
  package: GO_STRING,
  entries: goSlice(
    goStruct('declcfg.ChannelEntry', { name: GO_STRING, replaces: GO_STRING, skips: GO_STRINGS, skipRange: GO_STRING }),
    '[]declcfg.ChannelEntry',
  ),
  properties: PROPERTIES,
});

/** `declcfg.Bundle` */
export const GO_BUNDLE = goStruct('declcfg.Bundle', {
  schema: GO_STRING,
  name: GO_STRING,
  package: GO_STRING,
  image: GO_STRING,
  properties: PROPERTIES,
  relatedImages: goSlice(goStruct('declcfg.RelatedImage', { name: GO_STRING, image: GO_STRING }), '[]declcfg.RelatedImage'),
});

/** `declcfg.Deprecation` */
export const GO_DEPRECATION = goStruct('declcfg.Deprecation', {
  schema: GO_STRING,
  package: GO_STRING,
  entries: goSlice(
    goStruct('declcfg.DeprecationEntry', {
      reference: goStruct('declcfg.PackageScopedReference', { schema: GO_STRING, name: GO_STRING }),
      message: GO_STRING,
    }),
    '[]declcfg.DeprecationEntry',
  ),
});

// ---- operator-framework/api types used by olm.csv.metadata ----

const API_RESOURCE_REF = goStruct('v1alpha1.APIResourceReference', { name: GO_STRING, kind: GO_STRING, version: GO_STRING });
const DESCRIPTOR_FIELDS = { path: GO_STRING, displayName: GO_STRING, description: GO_STRING, 'x-descriptors': GO_STRINGS };
const STATUS_DESCRIPTOR = goStruct('v1alpha1.StatusDescriptor', { ...DESCRIPTOR_FIELDS, value: GO_RAW });
const SPEC_DESCRIPTOR = goStruct('v1alpha1.SpecDescriptor', { ...DESCRIPTOR_FIELDS, value: GO_RAW });
const ACTION_DESCRIPTOR = goStruct('v1alpha1.ActionDescriptor', DESCRIPTOR_FIELDS);
const DESCRIPTOR_LISTS = {
  resources: goSlice(API_RESOURCE_REF, '[]v1alpha1.APIResourceReference'),
  statusDescriptors: goSlice(STATUS_DESCRIPTOR, '[]v1alpha1.StatusDescriptor'),
  specDescriptors: goSlice(SPEC_DESCRIPTOR, '[]v1alpha1.SpecDescriptor'),
  actionDescriptors: goSlice(ACTION_DESCRIPTOR, '[]v1alpha1.ActionDescriptor'),
};
const CRD_DESCRIPTION = goStruct('v1alpha1.CRDDescription', {
  name: GO_STRING,
  version: GO_STRING,
  kind: GO_STRING,
  displayName: GO_STRING,
  description: GO_STRING,
  ...DESCRIPTOR_LISTS,
});
const API_SERVICE_DESCRIPTION = goStruct('v1alpha1.APIServiceDescription', {
  name: GO_STRING,
  group: GO_STRING,
  version: GO_STRING,
  kind: GO_STRING,
  deploymentName: GO_STRING,
  containerPort: GO_INT32,
  displayName: GO_STRING,
  description: GO_STRING,
  ...DESCRIPTOR_LISTS,
});
const APP_LINK = goStruct('v1alpha1.AppLink', { name: GO_STRING, url: GO_STRING });
const GVK = (name: string): GoStruct => goStruct(name, { group: GO_STRING, kind: GO_STRING, version: GO_STRING });

/** `property.CSVMetadata` */
const CSV_METADATA = goStruct('property.CSVMetadata', {
  annotations: GO_STRING_MAP,
  apiServiceDefinitions: goStruct('v1alpha1.APIServiceDefinitions', {
    owned: goSlice(API_SERVICE_DESCRIPTION, '[]v1alpha1.APIServiceDescription'),
    required: goSlice(API_SERVICE_DESCRIPTION, '[]v1alpha1.APIServiceDescription'),
  }),
  crdDescriptions: goStruct('v1alpha1.CustomResourceDefinitions', {
    owned: goSlice(CRD_DESCRIPTION, '[]v1alpha1.CRDDescription'),
    required: goSlice(CRD_DESCRIPTION, '[]v1alpha1.CRDDescription'),
  }),
  description: GO_STRING,
  displayName: GO_STRING,
  installModes: goSlice(
    goStruct('v1alpha1.InstallMode', { type: { kind: 'string', name: 'v1alpha1.InstallModeType' }, supported: GO_BOOL }),
    '[]v1alpha1.InstallMode',
  ),
  keywords: GO_STRINGS,
  labels: GO_STRING_MAP,
  links: goSlice(APP_LINK, '[]v1alpha1.AppLink'),
  maintainers: goSlice(goStruct('v1alpha1.Maintainer', { name: GO_STRING, email: GO_STRING }), '[]v1alpha1.Maintainer'),
  maturity: GO_STRING,
  minKubeVersion: GO_STRING,
  nativeAPIs: goSlice(goStruct('v1.GroupVersionKind', { group: GO_STRING, version: GO_STRING, kind: GO_STRING }), '[]v1.GroupVersionKind'),
  provider: APP_LINK,
});

/** `property.Package` (the `olm.package` property value). */
const GO_PROPERTY_PACKAGE = goStruct('property.Package', { packageName: GO_STRING, version: GO_STRING, release: GO_STRING });

/** `property.BundleObject` (the `olm.bundle.object` property value). */
export const GO_BUNDLE_OBJECT = goStruct('property.BundleObject', { data: GO_BYTES });

/** Property types `property.Parse` decodes into structs; every other type must merely be JSON. */
export const GO_PROPERTY_TYPES: ReadonlyMap<string, GoType> = new Map<string, GoType>([
  ['olm.package', GO_PROPERTY_PACKAGE],
  ['olm.package.required', goStruct('property.PackageRequired', { packageName: GO_STRING, versionRange: GO_STRING })],
  ['olm.gvk', GVK('property.GVK')],
  ['olm.gvk.required', GVK('property.GVKRequired')],
  ['olm.bundle.object', GO_BUNDLE_OBJECT],
  ['olm.csv.metadata', CSV_METADATA],
  ['olm.channel', goStruct('property.Channel', { channelName: GO_STRING })],
]);
