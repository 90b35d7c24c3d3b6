export { type AgentryRegistryImport, importAgentryRegistry } from './agentry-registry.js';
export {
  A2A_CARD_MEDIA_TYPE,
  AI_CATALOG_CONTENT_TYPE,
  type AiCatalogOptions,
  aiCatalog,
} from './ai-catalog.js';
export {
  type FederationSink,
  type ImportSummary,
  importMcpRegistry,
  type McpRegistryImport,
  OFFICIAL_META,
} from './mcp-registry.js';
export { federationMigrations } from './migrations.js';
export { FederationError } from './paging.js';
export {
  detectRegistryKind,
  FEDERATION_KINDS,
  type FederationKind,
  importRegistry,
  type RegistryImport,
  type RegistryImportResult,
} from './sync.js';
export type { FederationSourcesTable, FederationTables } from './tables.js';
