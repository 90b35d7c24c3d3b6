export {
  GENERATOR,
  isOpenApi3,
  MAX_ACTIONS,
  openApiToAwp,
  type SyntheticOptions,
  type SyntheticSurface,
} from './openapi-to-awp.js';
