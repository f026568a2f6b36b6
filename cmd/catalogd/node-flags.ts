/**
 * How catalogd's Node process is started (config/manager/catalogd.yaml passes both; a test
 * checks): the settings of cmd/shared/node-flags.ts, whose comments give the reasons.
 */
export { CATALOGD_ENVIRONMENT, CATALOGD_NODE_FLAGS } from '../shared/node-flags.ts';
