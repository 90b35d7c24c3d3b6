/**
 * `@agentry/host/express`: a host as an Express (5) middleware, falling through to the next middleware for paths
 * it does not serve. An entry of its own because it reads Node's request and response, which a host served by
 * any other means never touches.
 */
export { type ExpressNext, type ExpressRequestLike, expressHandler } from './adapters/express.js';
