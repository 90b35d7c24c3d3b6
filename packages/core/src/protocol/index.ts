export * from './a2a/index.js';
export * from './confirmation.js';
export * from './headers.js';
export * from './problem.js';
