/** The registry's OpenAPI 3.1 document (`GET /openapi.json`). */
export { type OpenApiOptions, openApiDocument } from './document.js';
export { COMPONENT_SCHEMAS } from './schemas.js';
