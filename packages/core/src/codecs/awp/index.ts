/**
 * The Agent Web Protocol (AWP) codec: `/agent.json` at a domain's root, one surface with its actions, entities,
 * error recovery, dependencies, hints and status.
 */
import { isObject } from '../../json/values.js';
import { defineCodec } from '../define.js';
import { emitAwp } from './emit.js';
import { parseAwp } from './parse.js';
import { CARRIED_BINDINGS } from './rules.js';

export const awpCodec = defineCodec({
  format: 'awp',
  title: 'Agent Web Protocol (AWP) agent.json',
  specName: 'AWP',
  mediaType: 'application/json',
  signature: 'awp_version',
  carries: {
    agent: [
      // Derived from domain and intent; the emitter reports them when they will read back differently.
      'id',
      'name',
      'description',
      'surface.domain',
      'surface.intent',
      'surface.entities',
      'surface.errors',
      'surface.hints',
      'surface.flags',
      'auth.schemes',
      'auth.requiredFor',
      'auth.optionalFor',
      'auth.tokenExpiry',
      'auth.refreshEndpoint',
      'status.operational',
      'status.degradedOperations',
      'status.statusEndpoint',
      'extensions.awp',
    ],
    operation: [
      'description',
      'input',
      'output',
      'authRequired',
      'rateLimit',
      'idempotency',
      'executionModel',
      'pollEndpoint',
      'sensitivity',
      'requiresConfirmation',
      'reversible',
      'dependsOn',
      'extensions.awp',
    ],
    bindings: CARRIED_BINDINGS,
  },
  detect: (document) => isObject(document) && Object.hasOwn(document, 'awp_version'),
  parse: parseAwp,
  emitOne: emitAwp,
});
