export { CLUSTER_CATALOG_MUTATE_PATH } from './label-defaulter.ts';
export { buildWebhookServer } from './server.ts';
