export { type CatalogContent, type CatalogServerOptions, buildCatalogServer } from './server.ts';
export { type Coding, cleanPath, evaluatePreconditions, formatHttpDate, negotiateCoding, parseHttpDate, parseRange } from './http-semantics.ts';
